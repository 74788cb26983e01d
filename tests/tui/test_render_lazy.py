"""Lazy rendering (annotate/tui/render.py `DocLines`): a document rendered a part at a time gives
exactly the lines of rendering it in one go; a view shows the right first screenful before the
rest is rendered; scroll depth is a fraction of the whole document once it is known."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from hostile_corpus import hostile_strings

from annotate.model import Item, Message, Response
from annotate.tui import make_app, prefetch
from annotate.tui.markdown_runs import split_markdown
from annotate.tui.render import Block, Doc, DocLines, render_lines
from annotate.tui.widgets.response_pane import ResponsePane
from tests.tui.conftest import make_session

EDGE_CASES = (
    "a\n\n- b\n\n- c\n\nd", "1. a\n\n2. b\n\n3. c\n\nafter", "---\n\npara\n\n***\n\n___\n\nx",
    "see [a] and [b][x]\n\n> [x]: http://y\n\n[a]: http://z 'T'\n\nmore [a]", "[a]: /u\n\n[a]: /v\n\n[a]",
    "```\ncode\n\nmore code\n```\n\nafter\n\n~~~~\n```\n\nx\n~~~~\n\nend", "> quote\n\n> quote2\n\npara",
    "Title\n===\n\nSub\n---\n\ntext", "    indented\n\n    code\n\ntext",
    "para\n```\nfence interrupts\n\nstill\n```\ndone",
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n| c |\n|---|\n| 3 |", "\n\n\nleading blanks\n\n\n", "   ", "",
    "- a\n  ```\n  x\n\n  y\n  ```\n\nz", "- [ ] task\n   ``` three\n    indented\n````\n\n| 1 | 2 |\ntext\n\nmore",
    "![img](x.png)\n\n---\n\n![i2](y)\n\npara ![i3](z) end\n\nnext", "text\n\n<div>\n\n*hi*\n\n</div>",
    "1) a\n\n2) b\n\nc\n\n- x\n\n+ y\n\n* z", "a  \nb\\\nc\n\n# h1\n\n## h2\n\n###### h6",
    "```py\n" + "x = 1\n" * 60 + "```",
)
FRAGMENTS = (
    "para text here", "- item", "  continued", "1. one", "2) two", "```", "```py", "~~~", "````", "    indented",
    "> quote", ">", "---", "***", "| a | b |", "|---|---|", "| 1 | 2 |", "# Head", "Setext", "===", "![im](u)",
    "[r]: /x", "see [r] and [r][]", "* star", "+ plus", "\t tab", "   ``` three", "text with `code`", "", "", "",
    "  - nested", "10. ten", "- ```", "  code in item", "**bold** _em_", "1. step:", "   ```python", "   x = 1",
    "   ```", " ```", "  ~~~", "    - deep", "      ```", "> ```", "> code",
)


def segments(lines: list) -> list[list[tuple]]:
    return [[(segment.text, segment.style) for segment in line] for line in lines]


def documents() -> list[Doc]:
    docs = [Doc(("hostile", name), (Block(text),)) for name, text in hostile_strings(include_huge=False)]
    for i, text in enumerate(EDGE_CASES):
        docs.append(Doc(("edge", str(i)), (Block(text),)))
        docs.append(Doc(("edge-turns", str(i)), (
            Block("context", heading=" User ", dim=True), Block(text, heading=" Earlier turn ", dim=True),
            Block(text, heading=" Response judged "),
        )))
    rng = random.Random(7)
    for i in range(300):
        text = "\n".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 30)))
        docs.append(Doc(("random", str(i)), (Block(text, dim=i % 5 == 0),)))
    return docs


def test_parts_give_exactly_the_lines_of_the_whole_document() -> None:
    for doc in documents():
        for width in (5, 40, 76):
            assert segments(DocLines(doc, width).finish()) == segments(render_lines(doc, width)), (doc.key, width)


def _estimates_of_every_part(doc: Doc, width: int) -> list[int]:
    """Each part's estimated lines, the document cut into every part first (as DocLines did before it
    cut texts only as far as it renders them)."""
    from annotate.safe_text import sanitize
    from annotate.tui.render import _estimate

    estimates: list[int] = []
    for index, block in enumerate(doc.blocks):
        if block.heading:
            estimates += [1, 1] if index else [1]
        if not block.text.strip():
            estimates.append(1)
            continue
        estimates += [_estimate(run, max(width, 8)) for run in split_markdown(sanitize(block.text))]
    return estimates


def test_the_height_estimated_is_the_sum_over_every_part_cut_in_advance() -> None:
    for doc in documents()[::3]:
        for width in (5, 40, 76):
            estimates = _estimates_of_every_part(doc, width)
            lines = DocLines(doc, width)
            for rendered in range(len(estimates)):
                assert lines.height == len(lines.lines) + sum(estimates[rendered:]), (doc.key, width, rendered)
                assert lines.render_next()
            assert lines.complete and not lines.render_next()


def test_runs_join_back_to_the_text_and_cut_between_blocks() -> None:
    text = "Intro.\n\n```\nx\n\ny\n```\n\n- a\n\n- b\n\nEnd."
    runs = split_markdown(text)
    assert "\n".join(runs) == text
    assert runs == ["Intro.\n", "```\nx\n\ny\n```\n", "- a\n\n- b\n", "End."]


def long_markdown(seed: int, chars: int = 20_000) -> str:
    rng = random.Random(seed)
    parts, size = [], 0
    while size < chars:
        kind = len(parts) % 4
        if kind == 0:
            words = " ".join(f"Sentence {rng.randint(0, 999)} about sorting." for _ in range(8))
            part = f"## Part {len(parts)}\n\n{words}"
        elif kind == 1:
            part = "\n".join(f"- point {rng.randint(0, 99)}: keep the order stable" for _ in range(4))
        elif kind == 2:
            part = "```python\n" + "\n".join(f"xs.sort(key=k{i})" for i in range(5)) + "\n```"
        else:
            part = "| a | b |\n|---|---:|\n" + "\n".join(f"| w{i} | {rng.randint(1, 99)} |" for i in range(4))
        parts.append(part)
        size += len(part) + 2
    return "\n\n".join(parts)


def test_a_long_document_is_rendered_only_as_far_as_asked() -> None:
    doc = Doc(("long",), (Block(long_markdown(1)),))
    lines = DocLines(doc, 70)
    assert lines.ensure(40)
    done, total = lines.progress
    assert not lines.complete and len(lines.lines) >= 40 and done < total / 4
    whole = render_lines(doc, 70)
    assert segments(lines.lines[:40]) == segments(whole[:40])
    assert abs(lines.height - len(whole)) <= len(whole) / 5  # a sensible estimate
    finished: list[bool] = []
    lines.when_complete(lambda: finished.append(True))
    lines.finish()
    assert finished == [True] and lines.height == len(whole)


def long_items(n: int) -> list[Item]:
    return [
        Item(id=f"long-{i}", kind="pairwise", conversation=(Message("user", f"Question {i}"),),
             responses=(Response("A", long_markdown(2 * i), "m1"), Response("B", long_markdown(2 * i + 1), "m2")))
        for i in range(n)
    ]


def visible_text(pane: ResponsePane) -> list[str]:
    top = round(pane.scroll_y)
    return [pane.render_line(y).text for y in range(pane.scrollable_content_region.height)], top


@pytest.fixture
def held_render_thread(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Keep the render thread paused (holds are never released, nor run out), so documents stay
    partial; `monkeypatch.undo()` then `release(hold())` lets it go."""
    monkeypatch.setattr(prefetch, "HOLD_MAX_S", 3600.0)
    monkeypatch.setattr(prefetch.Prefetcher, "release", lambda self, token: None)
    return monkeypatch


async def test_the_first_screenful_is_right_before_the_rest_is_rendered(tmp_path: Path, held_render_thread) -> None:
    spec, store = make_session(tmp_path, items=long_items(3))
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("1", "enter")
        await pilot.pause()
        for pane in app.screen.response_panes():
            assert not pane.complete
            rows, top = visible_text(pane)
            whole = render_lines(pane.doc, pane.render_width)
            assert top == 0 and rows == [line.text for line in whole[: len(rows)]]
            assert abs(pane.virtual_size.height - len(whole)) <= len(whole) / 5
        # Scrolling renders what comes into view.
        await pilot.press("space", "space", "space")
        pane = app.screen.query_one("#left", ResponsePane)
        rows, top = visible_text(pane)
        assert top > 0
        assert rows == [line.text for line in render_lines(pane.doc, pane.render_width)[top: top + len(rows)]]
    store.close()


async def test_depth_scrolled_before_the_rest_is_rendered_is_a_fraction_of_the_whole(
        tmp_path: Path, held_render_thread) -> None:
    spec, store = make_session(tmp_path, items=long_items(2))
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("space", "space")
        await pilot.pause()
        screen = app.screen
        expected = {}
        for pane in screen.response_panes():
            assert not pane.complete and pane.deepest > 0
            true_max = len(render_lines(pane.doc, pane.render_width)) - pane.scrollable_content_region.height
            expected[pane.slot] = round(pane.deepest / true_max, 4)
        await pilot.press("1", "enter")
        await pilot.pause()
    judgment = store.judgments("ann")[0]
    assert judgment.timings.pane_max_scroll == expected
    store.close()


async def test_once_the_render_thread_finishes_the_depth_is_corrected(tmp_path: Path, held_render_thread) -> None:
    spec, store = make_session(tmp_path, items=long_items(2))
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("space")
        await pilot.pause()
        screen = app.screen
        panes = screen.response_panes()
        assert all(not pane.complete for pane in panes)
        assert screen.clock is not None and screen.clock._pane_depth == {pane.slot: 0.0 for pane in panes}
        held_render_thread.undo()
        app.prefetcher.release(app.prefetcher.hold())
        for _ in range(500):
            await asyncio.sleep(0.01)
            if all(pane.complete for pane in panes) and app.prefetcher.idle():
                break
        await pilot.pause()
        for pane in panes:
            true_max = len(render_lines(pane.doc, pane.render_width)) - pane.scrollable_content_region.height
            assert pane.max_scroll_y == true_max
            assert screen.clock._pane_depth[pane.slot] == pytest.approx(pane.deepest / true_max)
    store.close()


def test_the_first_screenful_of_a_document_ahead_comes_before_the_rest_of_one_on_screen(tmp_path: Path) -> None:
    import time

    from annotate.tui.prefetch import Prefetcher
    from annotate.tui.render import LineCache
    from annotate.tui.store_runner import StoreRunner

    _spec, store = make_session(tmp_path)
    runner = StoreRunner(store)
    prefetcher = Prefetcher(runner, LineCache())
    hold = prefetcher.hold()  # nothing is rendered until everything is asked for
    on_screen = prefetcher.lines(Doc(("on screen",), (Block(long_markdown(1)),)), 70)
    on_screen.ensure(40)  # what the view renders itself
    ahead = Doc(("ahead",), (Block(long_markdown(2)),))
    warmed: list[tuple[int, bool]] = []
    asked = runner.call(store.items)
    item_id = asked.result(5)[0].id
    prefetcher.prefetch(item_id, lambda _item: [(ahead, 70, lambda lines: warmed.append(
        (len(lines.lines), on_screen.complete)), 40)])
    prefetcher.item(item_id).result(5)
    time.sleep(0.1)  # the item's done-callback queues the documents
    prefetcher.release(hold)
    deadline = time.monotonic() + 30
    while not prefetcher.idle() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert prefetcher.idle()
    [(rows, finished_on_screen)] = warmed
    assert 40 <= rows < len(render_lines(ahead, 70)) and not finished_on_screen
    assert on_screen.complete and prefetcher.cache.get(ahead, 70).complete
    prefetcher.close()
    runner.close()
    store.close()
