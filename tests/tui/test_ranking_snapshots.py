"""Snapshots of the ranking screen at 120x40 and 80x24 (pytest-textual-snapshot): two responses side by
side with the strip and the order, and on a narrow terminal one response with every other one key away.

Content is fixed (items, display orders, a frozen sitting timer). Update after an intended change with
`pytest tests/tui/test_ranking_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

from annotate.model import Assignment, Item, Message, Response
from annotate.refs import REF_KEY_META
from annotate.session import create_session, open_store
from annotate.tui import make_app

ANSWERS = (
    "Use `sorted(xs, reverse=True)`: it returns a new list.\n\n```python\nprint(sorted([3, 1, 2], reverse=True))\n```",
    "Call `xs.sort(reverse=True)`; it sorts **in place** and returns `None`, so do not assign its result.",
    "Reverse a sorted list:\n\n1. `xs.sort()`\n2. `xs.reverse()`\n\nTwo passes, same result.",
    "Python lists cannot be sorted backwards.",
    "`sorted(xs)[::-1]` works, but it builds two lists; `sorted(xs, reverse=True)` builds one.",
    "",
)


def _app(tmp_path: Path, k: int, order: str):
    spec = create_session("snap", "ranking", seed=3, folder=tmp_path / "sessions")
    if k != 4:
        from annotate.spec import load_spec

        spec.path.write_text(spec.path.read_text(encoding="utf-8").replace("k = 4", f"k = {k}"), encoding="utf-8")
        spec = load_spec(spec.path)
    store = open_store(spec)
    store.set_meta(REF_KEY_META, "0" * 32)  # fixed item references on the progress line
    slots = "ABCDEF"[:k]
    store.add_items([Item("q1", "ranking", (Message("user", "How do I sort a Python list in descending order?"),),
                          tuple(Response(s, ANSWERS[i], f"model-{s}") for i, s in enumerate(slots)))])
    store.add_assignments([Assignment(0, "snap", "q1", 0, order=tuple(order))])
    return make_app(spec, store, "snap", open_guideline=False, sitting_clock=lambda: 0.0), store


def test_ranking_120x40(snap_compare, tmp_path: Path) -> None:
    app, store = _app(tmp_path, 4, "CADB")
    try:
        assert snap_compare(app, terminal_size=(120, 40), press=["2", "4", "equals_sign", "1"])
    finally:
        store.close()


def test_ranking_80x24(snap_compare, tmp_path: Path) -> None:
    app, store = _app(tmp_path, 4, "CADB")
    try:
        assert snap_compare(app, terminal_size=(80, 24), press=["2", "4", "full_stop"])
    finally:
        store.close()


def test_ranking_six_80x24(snap_compare, tmp_path: Path) -> None:
    app, store = _app(tmp_path, 6, "FBDAEC")
    try:
        assert snap_compare(app, terminal_size=(80, 24), press=["3", "1", "equals_sign", "5", "v", "6"])
    finally:
        store.close()
