"""What a new annotator sees (review of `annotate demo` at 80x24, 120x40 and 160x48).

Each test drives the app with keys and asserts on the screen text or the store: the guideline
beside or over the panes, skips on the progress line, the help title, notices that leave the
answer bar alone, zoom, the line printed on quitting, text markers for the choice, skip reasons.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.model import side_to_slot
from annotate.spec import SessionSpec
from annotate.tui import make_app
from annotate.tui.app import AnnotateApp
from annotate.tui.screens.annotate import PairwiseScreen
from annotate.tui.summary import SittingSummary
from annotate.tui.widgets.guideline_panel import OVERLAY_SUBTITLE, GuidelinePanel
from tests.tui.conftest import make_session, screen_render
from tests.tui.test_annotate import FakeClock

NOTICE = "guideline closed: read both responses, then answer"


def pairwise(app: AnnotateApp) -> PairwiseScreen:
    assert isinstance(app.screen, PairwiseScreen)
    return app.screen


def text(app: AnnotateApp) -> list[str]:
    """The screen as plain lines."""
    return screen_render(app)[0].splitlines()


# -- 1. the guideline on the first item ------------------------------------------------------


async def test_wide_terminal_shows_the_guideline_beside_both_responses(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    clock = FakeClock()
    app = make_app(spec, store, "alice", clock=clock, sitting_clock=lambda: 0.0)  # first item: guideline open
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = pairwise(app)
        panel = screen.query_one(GuidelinePanel)
        left, right, prompt = (screen.query_one(f"#{name}") for name in ("left", "right", "prompt"))
        assert panel.display and not panel.covering
        for pane in (left, right, prompt):
            assert pane.region.intersection(panel.region).area == 0
            assert pane.region.width >= 40
        lines = text(app)
        assert "Left" in lines[1 + 3] and "Right" in lines[1 + 3] and "Guideline" in lines[1]
        assert "both responses are behind it" not in "\n".join(lines)
        assignment = screen.assignment
        assert assignment is not None
        clock.advance(10)
        await pilot.press("1")  # both responses are in view: the answer counts
        await pilot.pause()
        assert screen.choice == "left"
        await pilot.press("enter")
        await pilot.pause()
    (judgment,) = store.judgments("alice")
    assert judgment.label == side_to_slot("left", assignment.swapped)
    assert set(judgment.timings.pane_view_ms.values()) == {10_000}
    assert judgment.timings.guideline_ms == 10_000
    store.close()


@pytest.mark.parametrize(("size", "covered"), [((120, 40), {"right"}), ((80, 24), {"left", "right"})])
async def test_answer_key_closes_a_guideline_that_covers_a_response(
    tmp_path: Path, size: tuple[int, int], covered: set[str],
) -> None:
    spec, store = make_session(tmp_path)
    clock = FakeClock()
    app = make_app(spec, store, "alice", clock=clock, sitting_clock=lambda: 0.0)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = pairwise(app)
        panel = screen.query_one(GuidelinePanel)
        assert panel.display and panel.covering
        assert OVERLAY_SUBTITLE in screen_render(app)[0]  # the border says the responses are behind it
        assignment = screen.assignment
        assert assignment is not None
        clock.advance(10)
        await pilot.press("2")
        await pilot.pause()
        assert not panel.display and screen.choice is None  # closed, nothing recorded unseen
        lines = text(app)
        assert NOTICE in lines[0]  # on the progress line
        assert "choose an answer to submit" in "\n".join(lines)  # the answer bar's hint is left alone
        clock.advance(2)
        await pilot.press("1", "enter")
        await pilot.pause()
    (judgment,) = store.judgments("alice")
    assert judgment.label == side_to_slot("left", assignment.swapped)
    for side in ("left", "right"):  # a covered pane is not in view
        expected = 2_000 if side in covered else 12_000
        assert judgment.timings.pane_view_ms[side_to_slot(side, assignment.swapped)] == expected, side
    events = store.events(assignment.id)
    blocked = [e for e in events if e.kind == "key.blocked_by_guideline"]
    assert [dict(e.payload) for e in blocked] == [{"key": "2"}]
    assert not any(e.kind == "key.label" and e.payload["key"] == "2" for e in events)
    store.close()


async def test_grade_steps_are_held_back_by_a_covering_guideline(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, kind="single")
    app = make_app(spec, store, "gina", sitting_clock=lambda: 0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("plus")
        await pilot.pause()
        assert app.screen.grade is None  # type: ignore[attr-defined]
        assert not app.screen.query_one(GuidelinePanel).display
        await pilot.press("plus")
        await pilot.pause()
        assert app.screen.grade is not None  # type: ignore[attr-defined]
    store.close()


# -- 2. skips on the progress line -----------------------------------------------------------


async def test_progress_line_tells_skips_from_answers(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False, sitting_clock=lambda: 0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("1", "enter", "2", "enter", "3", "enter", "s", "1")
        await pilot.pause()
        ref = f"#{app.item_ref(app.screen.assignment.item_id)}"  # the item's reference, after its number
        assert f"Item 5 of 6 {ref} · 3 of 6 done · 1 skipped" in text(app)[0]
        await pilot.press("b")
        await pilot.pause()
        ref = f"#{app.item_ref(app.screen.assignment.item_id)}"
        assert f"Item 4 of 6 {ref} (skipped: expertise) · 3 of 6 done · 1 skipped" in text(app)[0]
        await pilot.press("b")
        await pilot.pause()
        assert f"Item 3 of 6 #{app.item_ref(app.screen.assignment.item_id)} (answered)" in text(app)[0]
    assert [j.skip_reason for j in store.judgments("alice")].count("expertise") == 1
    store.close()


# -- 3. the help title ------------------------------------------------------------------------


async def test_help_has_a_title_and_scrolls_at_80x24(tmp_path: Path) -> None:
    from textual.containers import VerticalScroll

    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        top = next(line for line in text(app) if "╭" in line)
        assert "Keys" in top
        box = app.screen.query_one("#help-box", VerticalScroll)
        assert box.max_scroll_y > 0
        await pilot.press("j", "j")
        await pilot.pause()
        assert box.scroll_y == 2
        assert "Keys" in next(line for line in text(app) if "╭" in line)  # the title stays
    store.close()


# -- 4. notices ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_link_notice_leaves_the_answer_bar_alone(tmp_path: Path, size: tuple[int, int]) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False, sitting_clock=lambda: 0.0)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        lines = text(app)
        assert "Left and Right scroll separately" in lines[0]
        assert not any("scroll separately" in line for line in lines[1:])
        assert "choose an answer to submit" in lines[-2]
        assert not app._notifications  # no toast
    store.close()


# -- 5. zoom ---------------------------------------------------------------------------------


async def test_zoom_keeps_the_progress_line_and_the_keys(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False, sitting_clock=lambda: 0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("z", "1")
        await pilot.pause()
        screen = pairwise(app)
        assert screen.maximized is screen.query_one("#left")
        lines = text(app)
        assert lines[0].startswith(" Item 1 of 6")
        assert "Left" in lines[1] and not any("Right" in line for line in lines[1:-3])
        assert "▶ 1  Left better ◀" in lines[-3]
        assert "Submit" in lines[-1] and "Quit" in lines[-1]
    store.close()


# -- 6. the line printed after quitting ------------------------------------------------------


async def test_summary_after_quitting(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("1", "enter", "2", "enter", "s", "2", "q")
        await pilot.pause()
    summary = SittingSummary.of(app.queue, unsaved=len(app.write_errors))
    assert summary == SittingSummary(total=6, answered=2, skipped=1)
    assert summary.line("annotate demo") == "2 of 6 answered, 1 skipped, all saved; resume with: annotate demo"
    assert SittingSummary(6, 5, 1).line("x") == "All 6 items have an answer (1 skipped), all saved; revise with: x"
    assert "1 write(s) NOT saved" in SittingSummary(6, 2, 0, unsaved=1).line("x")
    store.close()


def test_start_and_demo_print_how_to_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import annotate.tui
    from annotate.cli import main

    monkeypatch.chdir(tmp_path)
    make_session(tmp_path, name="evals")[1].close()
    seen = []

    def fake_run_app(spec: SessionSpec, annotator: str, db: Path | None = None,
                     theme: str | None = None) -> SittingSummary:
        seen.append((spec.name, annotator))
        return SittingSummary(total=46, answered=10, skipped=0)

    monkeypatch.setattr(annotate.tui, "run_app", fake_run_app)
    result = CliRunner().invoke(main, ["start", "evals", "--annotator", "alice"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "10 of 46 answered, all saved; resume with: annotate start evals --annotator alice"
    demo_dir = tmp_path / "demo dir"
    result = CliRunner().invoke(main, ["demo", "--dir", str(demo_dir)])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith(f"resume with: annotate demo --dir '{demo_dir}'")
    assert seen[0] == ("evals", "alice")


# -- 7. the choice marked in text ------------------------------------------------------------


async def test_choice_and_confidence_are_marked_in_text(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "▶" not in "\n".join(text(app)[-3:])
        await pilot.press("2", "c", "4")
        await pilot.pause()
        answer, extras = text(app)[-3:-1]
        assert "▶ 2  Right better ◀" in answer and answer.count("▶") == 1
        assert "Confidence ▶4/5◀" in extras
        await pilot.press("c")
        await pilot.pause()
        assert "(now ▶4/5◀)" in text(app)[-2]
    store.close()


# -- 8. skip reasons -------------------------------------------------------------------------


async def test_skip_reasons_read_well(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert "4  Blinding is broken: I recognise the model" in screen_render(app)[0]
        await pilot.press("4")
        await pilot.pause()
    assert [j.skip_reason for j in store.judgments("alice")] == ["identity"]
    store.close()
