"""Hostile text shows literally and changes nothing outside its pane; the screens stay blind."""

from __future__ import annotations

from pathlib import Path

from hostile_corpus import contains_forbidden, hostile_strings

from annotate.model import Item, Message, Response
from annotate.tui import make_app
from annotate.tui.app import AnnotateApp
from annotate.tui.widgets.doc_view import DocView
from tests.tui.conftest import MODELS, make_session, pairwise_item, screen_render

ISSUE_CASES = (
    "[bold red]x[/]",
    "\x1b[2J",
    "\x1b]52;c;aGk=\x07",
    "\x1b]8;;http://x\x07link\x1b]8;;\x07",
    "\u202eevil\u202c",
    "<script>alert(1)</script>",
)
TERMINAL_ACTIVE = ("\x07", "\x1b]", "\x1bP", "\x1b[2J", "\x1b_", "\x1b^", "\x1bc", "\x9b", "\x9d", "\u202e", "\u2066")


def hostile_items() -> list[Item]:
    corpus = [text for name, text in hostile_strings(include_huge=False) if not name.startswith("size-")]
    chunks = [corpus[i::4] for i in range(4)]
    items = [pairwise_item(0, "\n\n".join(ISSUE_CASES), " ".join(ISSUE_CASES))]
    for i, chunk in enumerate(chunks, start=1):
        items.append(Item(
            id=f"hostile-{i}", kind="pairwise",
            conversation=(Message("system", chunk[0]), Message("user", "\n".join(chunk[1:6]))),
            responses=(Response("A", "\n\n".join(chunk), MODELS[0]),
                       Response("B", "\n".join(reversed(chunk)), MODELS[1],
                                history=(Message("user", chunk[2]), Message("assistant", chunk[3])))),
        ))
    return items


def all_lines(app: AnnotateApp) -> list[str]:
    lines = []
    for view in app.screen.query(DocView):
        lines.extend(strip.text for strip in view.full_lines())
    return lines


def assert_harmless(app: AnnotateApp) -> str:
    text, raw = screen_render(app)
    for sequence in TERMINAL_ACTIVE:
        assert sequence not in raw, repr(sequence)
    assert contains_forbidden(text) == []
    for line in all_lines(app):
        assert contains_forbidden(line) == [], line
    return text


async def test_hostile_text_shows_literally_and_stays_in_its_pane(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=hostile_items())
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        seen_issue_item = False
        for _ in range(5):
            text = assert_harmless(app)
            rendered = "\n".join(all_lines(app))
            if app.screen.item.id == pairwise_item(0).id:
                seen_issue_item = True
                assert "[bold red]x[/]" in text  # markup shown, not applied
                assert "␛[2J" in rendered and "␛]52;c;aGk=␇" in rendered
                assert "␛]8;;http://x␇link␛]8;;␇" in rendered
                assert "⟨U+202E⟩evil" in rendered
                assert "<script>alert(1)</script>" in rendered  # raw HTML is shown, not dropped
            assert text.splitlines()[0].startswith(" Item ")  # the progress line is intact
            for _ in range(3):
                await pilot.press("space")
                assert_harmless(app)
            await pilot.press("3", "enter")
            await pilot.pause()
        assert seen_issue_item
    assert len(store.judgments("alice")) == 5
    store.close()


async def test_no_model_name_or_item_id_on_any_screen(tmp_path: Path) -> None:
    items = [pairwise_item(i) for i in range(3)]
    spec, store = make_session(tmp_path, items=items)
    secrets = [*MODELS, *(item.id for item in items), "secret-category-x"]

    def check(app: AnnotateApp) -> None:
        text, _ = screen_render(app)
        lines = "\n".join(all_lines(app))
        for secret in secrets:
            assert secret not in text, secret
            assert secret not in lines, secret

    for size in ((160, 48), (80, 24)):
        app = make_app(spec, store, f"blind{size[0]}")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            check(app)  # pairwise screen with the guideline open
            await pilot.press("g")
            await pilot.pause()
            check(app)
            await pilot.press("question_mark")
            await pilot.pause()
            check(app)  # help
            await pilot.press("escape", "s")
            await pilot.pause()
            check(app)  # skip dialog
            await pilot.press("escape", "1", "enter", "2", "enter", "3")
            await pilot.pause()
            check(app)
            await pilot.press("enter")
            await pilot.pause()
            check(app)  # finished dialog
    store.close()
