"""Every string of the hostile corpus (tests/hostile_corpus.py, all of it, the 1 MB line included) on
every place of the app where item text can appear, checked in what would be written to the terminal.

Places: the prompt pane (a multi-turn conversation: system, user, assistant, user), the Left and
Right panes (a response, and a response with its side's own earlier turns), the guideline panel (a
project guideline whose title and body are hostile), the adjudication screen's votes panel (hostile
annotator names and rationales), and the suggestion line (a suggestion whose label, model, rationale
and raw reply are hostile). The strings are batched, a few dozen per item, so one app shows them all.

What is checked is what reaches the terminal, two ways:

- every line a pane can ever paint (`DocView.full_lines()`, the whole document, not only the rows in
  view) and every strip of the full screen update (`Compositor.render_update(full=True)`, what the
  driver writes): no segment is a control segment made from text, no text carries an escape, C0/C1
  control or bidi override, no style carries a hyperlink or a click action;
- the bytes of the screen update (`LayoutUpdate.render_segments`, exactly what Textual's driver
  writes): once Textual's own colour (SGR) and cursor-position sequences are taken out, no escape,
  control or bidi character is left.

And Rich markup in the strings shows literally (`[bold red]x[/]` is on screen as typed).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from pathlib import Path

from hostile_corpus import FORBIDDEN_TERMINAL, hostile_strings
from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip

from annotate.guidelines import parse_guideline
from annotate.model import Assignment, Item, Judgment, Message, Response, Suggestion, Timings
from annotate.tui import make_app
from annotate.tui.app import AnnotateApp
from annotate.tui.screens.adjudicate import VotesPanel, make_adjudication_app
from annotate.tui.widgets.doc_view import DocView
from annotate.tui.widgets.guideline_panel import GuidelinePanel
from annotate.tui.widgets.suggestion import SuggestionLine
from tests.tui.conftest import make_session

CORPUS = hostile_strings()
HUGE = dict(CORPUS)["size-1mb-line"]
SMALL = [text for name, text in CORPUS if name != "size-1mb-line"]
CHUNKS = [SMALL[i::4] for i in range(4)]
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
FORBIDDEN = re.compile("[" + re.escape("".join(FORBIDDEN_TERMINAL)) + "]")
"""hostile_corpus.FORBIDDEN_TERMINAL as a pattern (fast on megabytes): C0 but tab and newline, DEL, C1, bidi."""
TEXTUAL_OWN = re.compile(r"\x1b\[[0-9;]*m|\x1b\[\d+;\d+H")
"""What Textual itself writes in a screen update: colours (SGR) and cursor positions."""
MODEL = "zqx-hostile-model"


def hostile_items() -> list[Item]:
    items = []
    for k, chunk in enumerate(CHUNKS):
        joined = "\n\n".join(chunk)
        items.append(Item(
            id=f"hostile-{k}", kind="pairwise",
            conversation=(Message("system", joined), Message("user", chunk[0]), Message("assistant", chunk[1]),
                          Message("user", joined)),
            responses=(Response("A", joined, MODEL),
                       Response("B", "\n".join(reversed(chunk)), MODEL,
                                history=(Message("user", joined), Message("assistant", joined)))),
        ))
    items.append(Item(id="hostile-huge", kind="pairwise", conversation=(Message("user", HUGE),),
                      responses=(Response("A", HUGE, MODEL), Response("B", "short", MODEL))))
    return items


def _console(width: int = 160, height: int = 48) -> Console:
    return Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system="truecolor",
                   legacy_windows=False, safe_box=False)


OUR_CLICKS = re.compile(r"screen\.(pick\('\d'\)|(aspect|criterion_click)\(\d+(, '\d')?\)|view_step\(-?1\)|[a-z_]+)")
"""The actions the answer bar, the aspect and rubric rows, the ranking strip and the key bar put on
their own fixed words (a click does what the key does); no other action may be on screen, and none
at all in a pane."""


def check_segments(segments: Iterable[Segment], where: str, clicks: re.Pattern[str] | None = None) -> None:
    for segment in segments:
        assert not segment.control, f"{where}: a control segment"
        assert not FORBIDDEN.search(segment.text), f"{where}: a control character in {segment.text[:80]!r}"
        assert not BIDI.search(segment.text), f"{where}: bidi control in {segment.text[:80]!r}"
        style = segment.style
        if style is not None:
            assert style.link is None, f"{where}: a hyperlink {style.link!r}"
            action = style.meta.get("@click")
            assert action is None or (clicks is not None and clicks.fullmatch(action)), \
                f"{where}: an action in {style.meta}"


def check_raw(raw: str, where: str) -> None:
    rest = TEXTUAL_OWN.sub("", raw)
    assert "\x1b" not in rest, f"{where}: an escape sequence {rest[rest.index(chr(27)):][:20]!r}"
    assert not FORBIDDEN.search(rest.replace("\n", "")), where
    assert not BIDI.search(rest), where


def check_lines(lines: list[Strip], where: str, console: Console) -> str:
    """Check every line of a pane; its text."""
    for strip in lines:
        check_segments(strip, where)
    check_raw("\n".join(strip.render(console) for strip in lines), where)
    return "\n".join(strip.text for strip in lines)


def check_screen(app: AnnotateApp) -> str:
    """Check the full screen update as the driver would write it; the screen's text."""
    width, height = app.size
    console = _console(width, height)
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    lines = [Strip.join(line) for line in update.strips]
    for strip in lines:
        check_segments(strip, "screen", OUR_CLICKS)
    check_raw(update.render_segments(console), "screen")
    return "\n".join(strip.text for strip in lines)


def check_panes(app: AnnotateApp) -> str:
    """Check every line every pane of the screen can show; their text."""
    console = _console()
    texts = []
    for view in app.screen.query(DocView):
        texts.append(check_lines(view.full_lines(), f"pane {view.id}", console))
    return "\n".join(texts)


def write_guideline(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "hostile.md"
    title = "".join(t for t in SMALL if t.strip() and t.splitlines() == [t] and len(t) < 200)[:2000]
    path.write_text(f"---\nid: hostile\nversion: 1\ntitle: {title}\n---\n" + "\n\n".join(SMALL) + "\n\n" + HUGE,
                    encoding="utf-8")
    return path


async def test_every_hostile_string_in_every_pane_the_guideline_and_the_suggestion_line(tmp_path: Path) -> None:
    items = hostile_items()
    spec, store = make_session(tmp_path, items=items)
    suggestions = store.add_suggestions([
        Suggestion(item.id, f"{MODEL} {SMALL[k]}", SMALL[k + 10], rationale="\n".join(SMALL), raw=SMALL[k + 20])
        for k, item in enumerate(items)
    ])
    store.add_assignments([
        Assignment(0, "alice", item.id, k, swapped=bool(k % 2), condition="upfront", suggestion_id=s.id)
        for k, (item, s) in enumerate(zip(items, suggestions, strict=True))
    ])
    store.set_meta("plan_hash", "test")
    guideline = parse_guideline(write_guideline(tmp_path / "guidelines"))
    app = make_app(spec, store, "alice", guideline=guideline, open_guideline=True)
    seen = ""
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        guideline_text = check_lines(app.screen.query_one(GuidelinePanel).full_lines(), "guideline",
                                     _console())
        assert "[bold red]x[/]" in guideline_text and "␛]52;c;aGk=␇" in guideline_text
        screen = check_screen(app)
        assert "Guideline: " in screen and "␛" in screen  # the hostile title, shown inert
        await pilot.press("g")
        for _ in items:
            await pilot.pause()
            panes = check_panes(app)
            screen = check_screen(app)
            seen += panes
            line = app.screen.query_one(SuggestionLine)
            assert line.display and line.text.startswith("Suggestion: ")  # fixed words only
            assert MODEL not in screen and MODEL not in panes
            for how in ("pagedown", "end", "home"):  # scrolling hostile text changes nothing outside the pane
                await pilot.press("tab", how)
                check_screen(app)
            await pilot.press("3", "enter")
        await pilot.pause()
        check_screen(app)  # the finished dialog over the last item
    assert "[bold red]x[/]" in seen  # markup shown, not applied
    assert "␛[2J" in seen and "␛]8;;http://x␇link␛]8;;␇" in seen and "⟨U+202E⟩" in seen
    assert "<script>alert(1)</script>" in seen
    assert len(store.judgments("alice")) == len(items)
    store.close()


async def test_the_narrow_layout_and_the_huge_line(tmp_path: Path) -> None:
    items = hostile_items()
    spec, store = make_session(tmp_path, items=[items[0], items[-1]])
    app = make_app(spec, store, "bob", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(2):
            await pilot.pause()
            check_panes(app)
            text = check_screen(app)
            assert text.splitlines()[0].startswith(" Item ")
            await pilot.press("z", "end", "z", "4", "enter")
    store.close()


async def test_adjudication_votes_with_hostile_names_and_rationales(tmp_path: Path) -> None:
    items = hostile_items()[:4]
    spec, store = make_session(tmp_path, items=items)
    timings = Timings("2026-11-30T10:00:00+00:00", 10, 500, 400)
    names = [f"{text[:300]} #{n}" for n, text in enumerate(SMALL)]
    assignments = store.add_assignments([
        Assignment(0, name, items[n % 4].id, 0, swapped=bool(n % 2)) for n, name in enumerate(names)
    ])
    for n, a in enumerate(assignments):
        store.submit(Judgment(a.id, ("A", "B", "tie", "both_bad")[(n // 4) % 4], timings, rationale=SMALL[-1 - n],
                              confidence=1 + n % 5))
    store.set_meta("plan_hash", "test")
    app = make_adjudication_app(spec, store, "carol", guideline=parse_guideline(write_guideline(tmp_path / "g")))
    assert len(app.queue) == 4
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(4):
            await pilot.pause()
            panel = app.screen.query_one(VotesPanel)
            assert panel.lines
            text = panel.render()
            check_segments(text.render(_console()), "votes panel")
            console = _console()
            console.print(text)
            check_raw(console.file.getvalue(), "votes panel")  # type: ignore[attr-defined]
            check_panes(app)
            screen = check_screen(app)
            assert "Annotators' answers" in screen and MODEL not in screen
            await pilot.press("1", "enter")
        await pilot.pause()
    store.close()
