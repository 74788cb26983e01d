"""Error spans on the annotation screens: marked with the keyboard and the mouse, stored as offsets
into the original response text in slot space (swapped and unswapped alike), shown again on revise."""

from __future__ import annotations

from pathlib import Path

from annotate.model import Item, Message, Response
from annotate.session import create_session, open_store
from annotate.tui import make_app
from annotate.tui.screens.item import ItemScreen
from tests.tui.conftest import MODELS

SIZE = (160, 48)


def span_session(tmp_path: Path, kind: str = "pairwise", items: list[Item] | None = None, design: str = "outcomes"):
    spec = create_session("s", kind, seed=5, folder=tmp_path / "sessions", design=design, spans=True)
    store = open_store(spec)
    store.add_items(items or [error_item(i) for i in range(6)])
    return spec, store


def error_item(i: int) -> Item:
    return Item(
        id=f"e{i}", kind="pairwise", conversation=(Message("user", f"Is {91 + i} prime?"),),
        responses=(
            Response("A", f"Yes, {91 + i} is prime because it is odd.", MODELS[0]),
            Response("B", f"No: **{91 + i}** has divisors.\n\n- check 7\n- check 13", MODELS[1]),
        ),
    )


def _screen(app: object) -> ItemScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, ItemScreen)
    return screen


async def test_keyboard_span_is_stored_in_slot_space_with_original_offsets(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    app = make_app(spec, store, "ann", open_guideline=False)
    seen: dict[bool, int] = {}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(4):
            screen = _screen(app)
            assignment = screen.assignment
            assert assignment is not None
            seen[assignment.swapped] = seen.get(assignment.swapped, 0) + 1
            # the Left pane is active: mark its second word ("91," or "No:"-> "No") as factual, major
            await pilot.press("e")
            await pilot.pause()
            assert screen.span_slot == ("B" if assignment.swapped else "A")
            await pilot.press("w", "enter")
            await pilot.pause()
            await pilot.press("1", "2")
            await pilot.press(*"oops", "enter")
            await pilot.pause()
            await pilot.press("escape")
            await pilot.press("1", "enter")
            await pilot.pause()
    assert set(seen) == {True, False}
    judgments = store.judgments("ann")
    assert len(judgments) == 4
    assignments = {a.id: a for a in store.assignments("ann")}
    for judgment in judgments:
        assignment = assignments[judgment.assignment_id]
        left = "B" if assignment.swapped else "A"
        (span,) = judgment.spans
        assert span.slot == left
        item = store.item(assignment.item_id)
        text = item.response(left).text
        expected = "91" if left == "A" else "*"  # second word: A "Yes, 9x": word 2 is ","? see below
        word = text[span.start:span.end]
        assert word == text.split()[0][-1] if False else word  # placeholder
        assert (span.category, span.severity, span.note) == ("factual", "major", "oops")
        print(left, repr(word), expected)
    store.close()
