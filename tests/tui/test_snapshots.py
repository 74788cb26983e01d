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


def _multi_turn_items() -> list:
    """A turn-2 item (MT-Bench style: each side's first answer in its history) and a long prompt."""
    from annotate.model import Item, Message, Response

    follow_up = "Now make it rhyme, and keep it under forty words."
    turn_two = Item(
        "mt-turn-2", "pairwise", (Message("user", "Write a short poem about the sea."),),
        (Response("A", "The sea is wide, the sea is deep,\nit sings the shore to sleep.", "m1",
                  (Message("assistant", "Grey water, restless,\nfolding light."), Message("user", follow_up))),
         Response("B", "Waves roll in and waves roll out,\nthat is what the sea's about.", "m2",
                  (Message("assistant", "The ocean hums\nbeneath the gulls."), Message("user", follow_up)))),
    )
    return [turn_two]


def test_multi_turn_80x24(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=_multi_turn_items())
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(80, 24))
    finally:
        store.close()


def test_multi_turn_earlier_shown_160x48(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=_multi_turn_items())
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(160, 48), press=["e"])
    finally:
        store.close()


def test_flag_dialog_80x24(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(80, 24), press=["f", "2"])
    finally:
        store.close()


def test_flagged_item_160x48(snap_compare, tmp_path: Path) -> None:
    from annotate.flags import Flag
    from annotate.store.flags import add_flag

    spec, store = make_session(tmp_path)
    first = make_app(spec, store, "snap").queue.assignments[0]  # makes the default queue
    add_flag(store, Flag(first.id, "guideline_unclear", "which rule applies?"))
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(160, 48))
    finally:
        store.close()


def test_items_dialog_80x24(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(80, 24), press=["i", "down"])
    finally:
        store.close()


def test_search_match_160x48(snap_compare, tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0)
    try:
        assert snap_compare(app, terminal_size=(160, 48), press=["slash", *"reverse", "enter", "greater_than_sign"])
    finally:
        store.close()
