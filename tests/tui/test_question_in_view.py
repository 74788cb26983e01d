"""The question being answered (the last user message) is always in view, at 80x24 and 120x40.

Multi-turn items show the last user message in full with earlier turns folded behind `e`; MT-Bench
and Arena turn-2 items lift the follow-up from the sides' histories into the prompt pane; a prompt
longer than its pane shows its last lines, and says how many are above.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.model import Item, Message, Response
from annotate.tui import make_app
from annotate.tui.content import has_earlier, prompt_doc, question_of, response_doc
from annotate.tui.render import render_lines
from annotate.tui.widgets.prompt_pane import PromptPane
from tests.tui.conftest import make_session, screen_render

SIZES = [(80, 24), (120, 40)]

EARLIER_ANSWER = "\n".join(f"Earlier answer line {i}." for i in range(40))
QUESTION = "QUESTION-START Now rewrite it for a child of ten,\nkeeping every step,\nand end with QUESTION-END."

MULTI_TURN = Item(
    "multi", "pairwise",
    (Message("system", "You are terse."), Message("user", "Explain how to bake bread, in detail."),
     Message("assistant", EARLIER_ANSWER), Message("user", QUESTION)),
    (Response("A", "Child version A.", "m1"), Response("B", "Child version B.", "m2")),
)

FOLLOW_UP = "Rewrite your previous response. Start every sentence with the letter A. FOLLOW-UP-END"
MT_BENCH = Item(
    "mt", "pairwise", (Message("user", "Write a travel blog post about Hawaii."),),
    (Response("A", "Aloha, said A.", "m1", (Message("assistant", "SIDE-A-FIRST " * 30), Message("user", FOLLOW_UP))),
     Response("B", "A trip, said B.", "m2", (Message("assistant", "SIDE-B-FIRST " * 30), Message("user", FOLLOW_UP)))),
)

LONG_PROMPT = Item(
    "long", "pairwise",
    (Message("user", "\n\n".join(f"Context paragraph {i}." for i in range(60)) + "\n\nSo which is right? LONG-END"),),
    (Response("A", "Answer A.", "m1"), Response("B", "Answer B.", "m2")),
)


def doc_text(doc, width: int = 100) -> str:
    return "\n".join(strip.text for strip in render_lines(doc, width))


def test_the_prompt_document_holds_the_last_user_message_and_folds_the_rest() -> None:
    folded = doc_text(prompt_doc(MULTI_TURN))
    assert "QUESTION-END" in folded and "keeping every step" in folded
    assert "Earlier answer line" not in folded and "You are terse" not in folded
    assert "system message and 1 earlier turn folded: e shows" in folded
    shown = doc_text(prompt_doc(MULTI_TURN, earlier=True))
    assert shown.index("You are terse") < shown.index("Earlier answer line 39") < shown.index("QUESTION-END")
    assert has_earlier(MULTI_TURN) and not has_earlier(LONG_PROMPT)


def test_a_follow_up_in_the_sides_histories_is_the_question_and_the_first_answers_fold() -> None:
    question = question_of(MT_BENCH)
    assert question is not None and question.in_history and question.text == FOLLOW_UP
    prompt = doc_text(prompt_doc(MT_BENCH))
    assert "FOLLOW-UP-END" in prompt and "travel blog" not in prompt
    for slot, first in (("A", "SIDE-A-FIRST"), ("B", "SIDE-B-FIRST")):
        folded = doc_text(response_doc(MT_BENCH, slot))
        assert first not in folded and "FOLLOW-UP-END" not in folded
        assert "Response judged · 1 earlier turn folded" in folded
        shown = doc_text(response_doc(MT_BENCH, slot, earlier=True))
        assert shown.index(first) < shown.index("Response judged")
    assert "travel blog" in doc_text(prompt_doc(MT_BENCH, earlier=True))


def test_sides_with_different_follow_ups_each_show_their_own() -> None:
    item = Item("diff", "pairwise", (Message("user", "Turn one?"),),
                (Response("A", "a2", "m1", (Message("assistant", "a1"), Message("user", "FOLLOW-A"))),
                 Response("B", "b2", "m2", (Message("assistant", "b1"), Message("user", "FOLLOW-B")))))
    assert "Turn one?" in doc_text(prompt_doc(item))
    text_a, text_b = doc_text(response_doc(item, "A")), doc_text(response_doc(item, "B"))
    assert "FOLLOW-A" in text_a and "a1" not in text_a and "FOLLOW-B" not in text_a
    assert "FOLLOW-B" in text_b and "b1" not in text_b


async def _screen_text(app, pilot) -> str:
    await pilot.pause()
    await pilot.pause(0.05)
    return screen_render(app)[0]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_multi_turn_question_in_full_and_earlier_turns_one_key_away(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path, items=[MULTI_TURN])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        text = await _screen_text(app, pilot)
        assert "QUESTION-START" in text and "QUESTION-END" in text  # Markdown joins the lines
        assert "Earlier answer line" not in text and "earlier turn folded" in text
        await pilot.press("e")
        text = await _screen_text(app, pilot)
        assert "QUESTION-END" in text, "the question stays in view with the earlier turns shown"
        assert "Earlier answer line 39" in text and "lines above" in text
        await pilot.press("e")
        text = await _screen_text(app, pilot)
        assert "Earlier answer line" not in text and "QUESTION-END" in text
        await pilot.press("1", "enter")
        await pilot.pause()
    (judgment,) = store.judgments("alice")
    assert set(judgment.timings.pane_view_ms) == {"A", "B"}  # the pane's slot, whatever is folded
    assert [e.payload["shown"] for e in store.events() if e.kind == "context.earlier"] == [True, False]
    store.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_mt_bench_turn_two_shows_the_follow_up(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path, items=[MT_BENCH])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        text = await _screen_text(app, pilot)
        assert "FOLLOW-UP-END" in text and "Aloha, said A." in text and "A trip, said B." in text
        assert "SIDE-A-FIRST" not in text and "SIDE-B-FIRST" not in text
        await pilot.press("e")
        text = await _screen_text(app, pilot)
        assert "SIDE-A-FIRST" in text and "SIDE-B-FIRST" in text and "FOLLOW-UP-END" in text
        await pilot.press("1", "enter")
        await pilot.pause()
    assert [j.label for j in store.judgments("alice")] in (["A"], ["B"])
    store.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_long_prompt_shows_its_last_lines_and_scrolls_up(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path, items=[LONG_PROMPT])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        text = await _screen_text(app, pilot)
        assert "LONG-END" in text and "Context paragraph 0." not in text
        assert "lines above" in text
        assert not app.screen.can_show_earlier()  # one message: nothing to fold
        prompt = app.screen.query_one("#prompt", PromptPane)
        assert prompt.scroll_y == prompt.max_scroll_y > 0
        await pilot.press("shift+tab", "home")  # the scroll keys read the top as in any pane
        text = await _screen_text(app, pilot)
        assert "Context paragraph 0." in text and "lines above" not in text
    store.close()


async def test_the_end_stays_in_view_across_a_resize(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[LONG_PROMPT])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _screen_text(app, pilot)
        await pilot.resize_terminal(80, 24)
        text = await _screen_text(app, pilot)
        assert "LONG-END" in text
        await pilot.resize_terminal(160, 48)
        assert "LONG-END" in await _screen_text(app, pilot)
    store.close()
