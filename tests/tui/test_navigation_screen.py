"""Going to item N, the item list with states, and search in the panes (`/`, `>`, `<`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.model import Item, Message, Response
from annotate.tui import make_app
from annotate.tui.screens.items import ItemsDialog
from tests.tui.conftest import make_session, pairwise_item, screen_render

SIZES = [(80, 24), (160, 48)]


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
async def test_item_list_shows_states_and_goes_to_a_number(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("1", "enter", "s", "1", "f", "1", "enter")  # item 1 answered, 2 skipped, 3 flagged
        await pilot.pause()
        assert app.screen.index == 2
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ItemsDialog)
        text = screen_render(app)[0]
        assert "Your queue: 6 items" in text
        refs = [app.item_ref(app.queue.assignments[i].item_id) for i in range(6)]
        listed = text.splitlines()[1:]  # the progress line has the reference of the item on screen
        lines = {n: next(line for line in listed if f"#{refs[n]}" in line) for n in range(4)}
        assert "answered" in lines[0] and "skipped: expertise" in lines[1]
        assert "⚑ flagged: broken item" in lines[2] and "▶" in lines[2]
        assert "not answered" in lines[3]
        await pilot.press("5", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, ItemsDialog) and app.screen.index == 4
        await pilot.press("i", "up", "up", "enter")  # Enter with no number: the highlighted entry
        await pilot.pause()
        assert app.screen.index == 2
        await pilot.press("i", *"99", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ItemsDialog) and "your queue has items 1 to 6" in screen_render(app)[0]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.index == 2
        await pilot.press("q")
        await pilot.pause()
    assert [e.payload["to"] for e in store.events() if e.kind == "nav.go"] == [4, 2]
    store.close()


async def test_go_to_an_item_by_its_reference(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        ref = app.item_ref(app.queue.assignments[3].item_id)
        await pilot.press("colon", *f"{ref[:3].lower()}-{ref[3:].lower()}", "enter")  # as it may be typed
        for _ in range(20):
            await pilot.pause(0.05)
            if not isinstance(app.screen, ItemsDialog):
                break
        assert app.screen.index == 3
        await pilot.press("i", *"ZZZZZZ", "enter")
        for _ in range(20):
            await pilot.pause(0.05)
            if "not in your queue" in screen_render(app)[0]:
                break
        assert "#ZZZZZZ is not in your queue" in screen_render(app)[0]
    store.close()


LONG = "\n\n".join(f"Paragraph {i} of the answer." for i in range(80)) + "\n\nThe needle is here."
SEARCH_ITEM = Item("s1", "pairwise", (Message("user", "Which answer mentions a needle?"),),
                   (Response("A", LONG, "m1"), Response("B", "No NEEDLE in this one? needle twice.", "m2")))


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
async def test_search_marks_matches_and_steps_through_them(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path, items=[SEARCH_ITEM, pairwise_item(1)])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        if app.screen.item.id != "s1":
            await pilot.press("1", "enter")
            await pilot.pause()
        await pilot.press("slash", *"needle", "enter")
        await pilot.pause()
        screen = app.screen
        assert len(screen.matches) == 4  # prompt 1, the long answer 1, the short one 2 (case-insensitive)
        seen = [(screen.matches[screen.match_index].view, screen.matches[screen.match_index].line)]
        for _ in range(4):
            await pilot.press("greater_than_sign")
            await pilot.pause()
            match = screen.matches[screen.match_index]
            seen.append((match.view, match.line))
            view = match.view
            assert view.scroll_y <= match.line < view.scroll_y + view.scrollable_content_region.height
            assert view.mark == (match.line, match.start, match.end)
            assert "match" in screen_render(app)[0]
        assert seen[0] == seen[4]  # round the end back to the first
        long_pane = next(m.view for m in screen.matches if "needle is here" in
                         m.view.full_lines()[m.line].text.lower())
        while "needle is here" not in screen.matches[screen.match_index].view.full_lines()[
                screen.matches[screen.match_index].line].text.lower():
            await pilot.press("less_than_sign")
            await pilot.pause()
        assert long_pane.scroll_y > 0 and "The needle is here." in screen_render(app)[0]
        strip = long_pane.render_line(round(screen.matches[screen.match_index].line - long_pane.scroll_y))
        assert any(seg.style is not None and seg.style.reverse and seg.text.lower() == "needle" for seg in strip)
        await pilot.press("slash", *"zzz", "enter")
        await pilot.pause()
        assert not screen.matches and "no match for 'zzz'" in screen_render(app)[0]
        await pilot.press("1", "enter")  # the answer keys work again after a search
        await pilot.pause()
    assert store.judgments("alice")
    store.close()
