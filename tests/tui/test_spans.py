"""Error spans on the annotation screens: marked with the keyboard and the mouse, stored as offsets
into the original response text in slot space (swapped and unswapped alike), shown again on revise
and in adjudication, in pairwise, single and rubric sessions."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from annotate.model import Item, Judgment, Message, Response, Span, Timings
from annotate.plan import Rates, apply_plan
from annotate.session import create_session, open_store
from annotate.spec import SpecError
from annotate.tui import make_app
from annotate.tui.screens.adjudicate import VotesPanel, make_adjudication_app
from annotate.tui.screens.item import ItemScreen
from annotate.tui.screens.span_dialog import SpanDialog
from annotate.tui.widgets.response_pane import ResponsePane
from tests.tui.conftest import MODELS, make_session, screen_render

SIZE = (160, 48)
A_TEXT = "Yes, {n} is prime because it is odd."
B_TEXT = "No, {m} is **even**: it has 2 as a divisor.\n\n- check 7\n- check 13"


def span_session(tmp_path: Path, kind: str = "pairwise", items: list[Item] | None = None, design: str = "outcomes"):
    spec = create_session("s", kind, seed=5, folder=tmp_path / "sessions", design=design, spans=True)
    store = open_store(spec)
    if items is None:
        items = [error_item(i) for i in range(6)] if kind == "pairwise" else [single_error_item(i) for i in range(4)]
    store.add_items(items)
    return spec, store


def error_item(i: int, a: str | None = None) -> Item:
    return Item(
        id=f"e{i}", kind="pairwise", conversation=(Message("user", f"Is {91 + 2 * i} prime?"),),
        responses=(
            Response("A", a or A_TEXT.format(n=91 + 2 * i), MODELS[0]),
            Response("B", B_TEXT.format(m=92 + 2 * i), MODELS[1]),
        ),
    )


def single_error_item(i: int) -> Item:
    return Item(id=f"g{i}", kind="single", conversation=(Message("user", "Name a prime."),),
                responses=(Response("A", f"Sure: {20 + i} is prime.", MODELS[0]),))


def _screen(app: object) -> ItemScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, ItemScreen), screen
    return screen


def _left(assignment) -> str:
    return "B" if assignment.swapped else "A"


async def test_keyboard_spans_are_stored_in_slot_space_with_original_offsets(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    app = make_app(spec, store, "ann", open_guideline=False)
    seen = set()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(6):
            screen = _screen(app)
            assert screen.assignment is not None
            seen.add(screen.assignment.swapped)
            await pilot.press("m")  # the Left pane is active
            assert screen.span_slot == _left(screen.assignment)
            await pilot.press("w", "w", "enter")  # the third word: the number (Yes , 91 / No , 92)
            await pilot.pause()
            assert app.screen.query_one(SpanDialog).is_open
            await pilot.press("1", "2", *"oops", "enter")
            await pilot.pause()
            assert _screen(app).spans and screen.span_slot is not None
            await pilot.press("escape")  # leave span mode: the answer keys work again
            assert screen.span_slot is None
            await pilot.press("1", "enter")
            await pilot.pause()
    assert seen == {True, False}
    judgments = store.judgments("ann")
    assignments = {a.id: a for a in store.assignments("ann")}
    assert len(judgments) == 6
    for judgment in judgments:
        assignment = assignments[judgment.assignment_id]
        left = _left(assignment)
        assert judgment.label == left  # Left better, in slot space
        (span,) = judgment.spans
        assert (span.slot, span.category, span.severity, span.note) == (left, "factual", "major", "oops")
        text = store.item(assignment.item_id).response(left).text
        i = int(assignment.item_id[1:])
        assert text[span.start:span.end] == str((91 if left == "A" else 92) + 2 * i)
    store.close()


async def test_m_marks_errors_and_e_still_shows_earlier_turns(tmp_path: Path) -> None:
    turns = (Message("user", "Is 7 prime?"), Message("assistant", "Yes."), Message("user", "Is 91 prime?"))
    responses = (Response("A", A_TEXT.format(n=91), MODELS[0]), Response("B", B_TEXT.format(m=92), MODELS[1]))
    items = [Item(id="t0", kind="pairwise", conversation=turns, responses=responses)]
    spec, store = span_session(tmp_path, items=items)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("e")  # main's key: the earlier turns, not span mode
        assert screen.show_earlier and screen.span_slot is None
        await pilot.press("m")
        assert screen.span_slot is not None
        before = screen.cursor
        await pilot.press("e")  # in span mode: the end of the word
        assert screen.cursor > before and screen.show_earlier and screen.span_slot is not None
        await pilot.press("escape", "e")
        assert screen.span_slot is None and not screen.show_earlier
    store.close()


async def test_an_anchored_selection_extends_by_whole_words(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("tab", "m")  # Tab: the Right pane
        slot = screen.span_slot
        assert slot is not None and slot != _left(screen.assignment)
        await pilot.press("space", "w", "w", "w")
        assert screen.anchor is not None
        await pilot.press("enter", "2", "1", "enter", "escape", "3", "enter")
        await pilot.pause()
    (judgment,) = store.judgments("ann")
    (span,) = judgment.spans
    text = store.item(store.assignments("ann")[0].item_id).response(slot).text
    assert span.slot == slot and text[span.start:span.end] == text.split(" is")[0]  # "Yes, 91" / "No, 92"
    assert (span.category, span.severity, span.note) == ("reasoning", "minor", "")
    store.close()


async def test_the_span_dialog_is_modal_over_the_item_screen_and_starts_afresh(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    app = make_app(spec, store, "dlg", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = _screen(app)
        dialog = screen.query_one(SpanDialog)
        assert not dialog.visible and app.focused is not dialog
        await pilot.press("m")
        pane = app.focused
        assert isinstance(pane, ResponsePane)
        await pilot.press("enter")
        await pilot.pause()
        # the pane in span mode keeps the focus; the screen routes the keys to the box
        assert app.screen is screen and dialog.is_open and dialog.visible and app.focused is pane
        assert dialog.region.x == (SIZE[0] - dialog.region.width) // 2  # in the middle, over the panes
        await pilot.press("s", "v", "x")  # the item screen's keys (skip, plain view, delete) do nothing
        await pilot.click("#right", offset=(70, 2))  # outside the box: dropped, as by a modal screen
        await pilot.pause()
        assert app.screen is screen and app.focused is pane and screen.span_slot is not None
        assert not screen.spans and dialog.category is None and screen.cursor == screen.text_map(pane.slot).stops[0]
        await pilot.press("1", "escape")  # a category chosen, then cancelled
        await pilot.pause()
        assert not dialog.is_open and not dialog.visible and app.focused is pane and not screen.spans
        await pilot.press("enter")  # opened again: nothing chosen yet, the note box empty
        await pilot.pause()
        assert dialog.is_open and dialog.category is None and dialog.row == 0
        await pilot.press("2", "1", *"n", "enter")
        await pilot.pause()
        assert not dialog.is_open and [(s.category, s.severity, s.note) for s in screen.spans] == [
            ("reasoning", "minor", "n")]
        await pilot.press("escape", "s")  # out of span mode, the skip dialog and back: the hidden note
        await pilot.pause()               # box must not take the focus the screen gives back
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and app.focused is not dialog.query_one(Input)
        await pilot.press("m")
        assert screen.span_slot is not None
        await pilot.press("enter")  # open, then the item leaves the screen (the queue read again)
        await pilot.pause()
        screen.show_index(screen.index + 1)
        await pilot.pause()
        assert not dialog.is_open and not dialog.visible and screen.spans == []
    store.close()


async def test_mouse_drag_over_the_plain_text_marks_a_span(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    app = make_app(spec, store, "mo", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("v")  # the Left pane as plain text: the mouse marks there
        await pilot.pause()
        pane = screen.query_one("#left", ResponsePane)
        assert pane.plain is not None
        # content starts after the border (1) and the padding (1): columns 0..5 of the first line
        await pilot.mouse_down("#left", offset=(2, 1))
        await pilot.mouse_up("#left", offset=(2 + 5, 1))
        await pilot.pause()
        assert app.screen.query_one(SpanDialog).is_open
        await pilot.press("4", "2", "enter")
        await pilot.pause()
        await pilot.press("escape", "2", "enter")
        await pilot.pause()
    (judgment,) = store.judgments("mo")
    assignment = store.assignments("mo")[0]
    (span,) = judgment.spans
    left = _left(assignment)
    text = store.item(assignment.item_id).response(left).text
    assert span.slot == left and text[span.start:span.end] == text[:6]
    assert (span.category, span.severity) == ("unsafe", "major")
    assert judgment.label == ("A" if left == "B" else "B")  # Right better, in slot space
    store.close()


async def test_revise_shows_the_spans_and_changing_them_is_a_new_answer(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    app = make_app(spec, store, "rev", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("m", "enter", "1", "1", "enter", "escape", "1", "enter")
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        (stored,) = store.judgments("rev")
        assert screen.spans == list(stored.spans)
        pane = screen.query_one("#left", ResponsePane)
        assert pane.plain is not None  # the response with a marked error shows as plain text
        lines = pane.plain_lines
        assert lines is not None and [m.kind for m in lines.marks] == ["minor"]
        text, _ = screen_render(app)
        assert "Left: 1" in text and "plain text · 1 error marked" in text
        await pilot.press("enter")  # unchanged: nothing new is written
        await pilot.pause()
        assert len(store.judgments("rev", include_superseded=True)) == 1
        await pilot.press("b")
        await pilot.pause()
        await pilot.press("m", "n", "x", "escape", "enter")  # the next error, delete it, submit
        await pilot.pause()
    judgments = store.judgments("rev", include_superseded=True)
    assert len(judgments) == 2
    assert judgments[0].superseded_by == judgments[1].id and judgments[0].spans and not judgments[1].spans
    events = [e.kind for e in store.events()]
    assert {"span.mode", "span.add", "span.delete", "key.span_jump"} <= set(events)
    store.close()


async def test_hostile_text_offsets_index_the_original_not_the_placeholders(tmp_path: Path) -> None:
    hostile = "ok \x1b[2J \u202eevil\u202c done"
    spec, store = span_session(tmp_path, items=[error_item(0, a=hostile)])
    app = make_app(spec, store, "h", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = _screen(app)
        if screen.assignment is not None and screen.assignment.swapped:
            await pilot.press("tab")  # slot A is on the right
        await pilot.press("m", "l", "l", "l")  # onto the escape character's placeholder
        await pilot.press("space", "l", "l", "l", "l", "l")  # ␛ [ 2 J, the space, ⟨U+202E⟩
        await pilot.press("enter", "1", "1", "enter", "escape", "3", "enter")
        await pilot.pause()
        _, raw = screen_render(app)
        assert "\x1b[2J" not in raw and "\u202e" not in raw
    (judgment,) = store.judgments("h")
    (span,) = judgment.spans
    assert span.slot == "A" and hostile[span.start:span.end] == "\x1b[2J \u202e"
    store.close()


@pytest.mark.parametrize("kind", ["single", "rubric"])
async def test_spans_in_single_and_rubric_sessions(tmp_path: Path, kind: str) -> None:
    spec, store = span_session(tmp_path, kind=kind)
    app = make_app(spec, store, "g", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("m", "w", "w", "enter", "1", "2", "enter", "escape")
        assert screen.span_slot is None and len(screen.spans) == 1
        await pilot.press(*("7" if kind == "single" else "33333"), "enter")
        await pilot.pause()
    (judgment,) = store.judgments("g")
    (span,) = judgment.spans
    text = store.item(store.assignments("g")[0].item_id).response("A").text
    assert span.slot == "A" and text[span.start:span.end] == text.split()[1].rstrip(".")  # "2x"
    store.close()


async def test_adjudicator_sees_the_annotators_spans(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path)
    apply_plan(store, spec, ["alice", "bob"], 2, Rates(), 11)
    first = store.item_ids()[0]
    timings = Timings(shown_at="2025-01-01T00:00:00+00:00", first_input_ms=1, submit_ms=2, active_ms=2)
    for who, label, spans in (("alice", "A", (Span("B", 0, 3, "factual", "major", "wrong"),)), ("bob", "B", ())):
        (a,) = [x for x in store.assignments(who) if x.item_id == first]
        store.submit(Judgment(a.id, label, timings, spans=spans))
    app = make_adjudication_app(spec, store, "carol")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = _screen(app)
        assert screen.assignment is not None
        b_side = "Right" if not screen.assignment.swapped else "Left"
        panel = screen.query_one(VotesPanel)
        notes = {who: note for who, _text, _conf, note in panel.lines}
        assert f"{b_side} factual/major" in notes["alice"] and "errors" not in notes["bob"]
        pane = next(p for p in screen.response_panes() if p.slot == "B")
        lines = pane.plain_lines
        assert pane.plain is not None and lines is not None and [m.kind for m in lines.marks] == ["other"]
        assert screen.spans == []  # others' spans are shown, never part of the adjudicator's answer
        await pilot.press("1", "enter")
        await pilot.pause()
    (carol,) = store.judgments("carol")
    assert carol.spans == ()
    store.close()


async def test_sessions_without_spans_have_no_span_keys(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "n", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = _screen(app)
        assert screen.check_action("mark_errors", ()) is False
        await pilot.press("m", "v")
        assert screen.span_slot is None and not screen.query("SpanStrip")
        text, _ = screen_render(app)
        assert "Mark errors" not in text
    store.close()


def test_a_session_whose_taxonomy_is_nowhere_is_refused_naming_the_key(tmp_path: Path) -> None:
    from annotate.spec import load_spec
    from annotate.tui import run_app

    spec, store = span_session(tmp_path)
    store.close()
    text = spec.path.read_text().replace('categories = ["factual", "reasoning", "instruction", "unsafe"]', "")
    spec.path.write_text(text)
    with pytest.raises(SpecError) as caught:  # pairwise-chat declares no `errors:` in its front matter
        run_app(load_spec(spec.path), "x")
    assert "[labels.spans.categories]" in str(caught.value) and str(spec.path) in str(caught.value)


@pytest.mark.parametrize("design", ["graded-5", "aspects"])
async def test_spans_on_the_graded_and_aspect_screens(tmp_path: Path, design: str) -> None:
    spec, store = span_session(tmp_path, design=design, items=[error_item(i) for i in range(4)])
    app = make_app(spec, store, "d", open_guideline=False)
    expected = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(2):
            screen = _screen(app)
            assert screen.assignment is not None
            expected[screen.assignment.id] = _left(screen.assignment)
            await pilot.press("m", "w", "w", "enter", "1", "2", "enter", "escape")
            assert screen.span_slot is None and len(screen.spans) == 1
            await pilot.press(*("1" if design == "graded-5" else "1111"), "enter")  # Left much better
            await pilot.pause()
    judgments = store.judgments("d")
    assert len(judgments) == 2
    for judgment in judgments:
        left = expected[judgment.assignment_id]
        assert judgment.label == ("+2" if left == "A" else "-2")
        if design == "aspects":
            assert dict(judgment.scores)["correctness"] == left
        (span,) = judgment.spans
        assignment = next(a for a in store.assignments("d") if a.id == judgment.assignment_id)
        text = store.item(assignment.item_id).response(left).text
        i = int(assignment.item_id[1:])
        assert span.slot == left and text[span.start:span.end] == str((91 if left == "A" else 92) + 2 * i)
    store.close()


async def test_single_grade_adjudicator_sees_the_annotators_spans(tmp_path: Path) -> None:
    spec, store = span_session(tmp_path, kind="single")
    apply_plan(store, spec, ["alice", "bob"], 2, Rates(), 11)
    first = store.item_ids()[0]
    timings = Timings(shown_at="2025-01-01T00:00:00+00:00", first_input_ms=1, submit_ms=2, active_ms=2)
    for who, grade, spans in (("alice", "7", (Span("A", 6, 8, "factual", "minor"),)), ("bob", "3", ())):
        (a,) = [x for x in store.assignments(who) if x.item_id == first]
        store.submit(Judgment(a.id, grade, timings, spans=spans))
    app = make_adjudication_app(spec, store, "carol")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = _screen(app)
        notes = {who: note for who, _text, _conf, note in screen.query_one(VotesPanel).lines}
        assert "Response factual/minor" in notes["alice"] and "errors" not in notes["bob"]
        (pane,) = [p for p in screen.response_panes() if p.slot == "A"]
        lines = pane.plain_lines
        assert pane.plain is not None and lines is not None and [m.kind for m in lines.marks] == ["other"]
    store.close()
