"""Snapshots of the pairwise screen at 80x24 and 160x48 (pytest-textual-snapshot).

Content is fixed: the items and the seed are constant, the sitting timer is frozen at 0.
Update after an intended change with `pytest tests/tui/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

from annotate.tui import make_app
from tests.tui.conftest import make_session


def test_pairwise_80x24(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(80, 24), press=["1"])
    finally:
        store.close()


def test_pairwise_160x48_with_guideline(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "snap", sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(160, 48))
    finally:
        store.close()


def test_pairwise_160x48(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(160, 48), press=["2", "c", "4"])
    finally:
        store.close()


def test_graded_80x24(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, design="graded-7")
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(80, 24), press=["3"])
    finally:
        store.close()


def test_graded_160x48(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, design="graded-5")
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(160, 48), press=["5"])
    finally:
        store.close()


def test_aspects_80x24(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, design="aspects")
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(80, 24), press=["1", "2"])
    finally:
        store.close()


def test_aspects_160x48(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, design="aspects")
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(160, 48), press=["1", "2", "3", "4"])
    finally:
        store.close()
