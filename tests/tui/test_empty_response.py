"""A response a model left empty is shown as such on the annotation screen, and can be judged."""

from __future__ import annotations

from pathlib import Path

from annotate.model import Item, Message, Response
from annotate.tui import make_app
from annotate.tui.content import EMPTY_RESPONSE, response_doc
from annotate.tui.render import render_lines
from annotate.tui.widgets.response_pane import ResponsePane
from tests.tui.conftest import make_session, screen_render

EMPTY_B = Item("e1", "pairwise", (Message("user", "Say something."),),
               (Response("A", "Something.", "m1"), Response("B", "", "m2")))
BLANK_WITH_HISTORY = Item(
    "e2", "pairwise", (Message("user", "Turn one?"),),
    (Response("A", "Fine.", "m1"), Response("B", "  \n", "m2", (Message("assistant", "Yes."),
                                                                  Message("user", "Turn two?")))),
)


def test_the_pane_document_says_the_response_is_empty() -> None:
    for item in (EMPTY_B, BLANK_WITH_HISTORY):
        text = "\n".join(strip.text for strip in render_lines(response_doc(item, "B"), 60))
        assert EMPTY_RESPONSE in text
        assert EMPTY_RESPONSE not in "\n".join(s.text for s in render_lines(response_doc(item, "A"), 60))


async def test_the_screen_shows_the_placeholder_and_the_item_can_be_judged(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[EMPTY_B])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        panes = {pane.slot: pane for pane in app.screen.query(ResponsePane) if pane.slot}
        assert EMPTY_RESPONSE in "\n".join(strip.text for strip in panes["B"].full_lines())
        assert EMPTY_RESPONSE not in "\n".join(strip.text for strip in panes["A"].full_lines())
        assert EMPTY_RESPONSE in screen_render(app)[0]
        await pilot.press("4", "enter")
        await pilot.pause()
    assert [j.label for j in store.judgments("alice")] == ["both_bad"]
    store.close()
