"""How fast span mode is: key press -> the change painted, on responses of about 10k characters.

Drives the real app headless (`App.run_test`, 160x48) over a pairwise session with error spans
(`[labels.spans]`) of generated Markdown responses (bench_tui's documents). On each item it marks
one error by keys, as an annotator would, and times each step from the key sent to the driver to
the screen refreshed after it was handled (`call_after_refresh` queued as soon as the key's handler
has run; the handler is seen to have run by the event it records):

- `m`: span mode on (the pane switches from Markdown to the plain text with its offset map);
- cursor keys in span mode (`l`, `w`, `j`, `b`, PageDown, `h`, `k`, PageUp, Space, `w`, `w`);
- Enter: the dialog for category, severity and note painted (a box on the item screen's overlay
  layer, no longer a modal screen: its region painted over the panes);
- Enter in the dialog: the dialog closed and the item with the new error painted;
- Escape: span mode off;
- Enter (after `1`): the answer with its span submitted -> the next item painted (the screen's
  painted hook, as in bench_tui);
- for reference, every fourth item, `s`: the pairwise screen's skip dialog painted (a modal screen,
  as the span dialog was; not counted in "every timed key");
- every fourth item, `b`: back to the answered item, which shows its spans again (plain text with
  the marks) -> painted; Enter then goes on unchanged (not timed).

Before each timed key it waits until read-ahead and writes are done (an annotator reading).

`--cpu` times the main thread's CPU (`time.thread_time_ns`) from the key sent to the paint instead of
the wall clock, a proxy that the machine's load does not inflate; the bench then polls with short
sleeps instead of spinning, so that the time Textual waits for its 60 fps update timer is not counted.

    python bench/bench_spans.py                 # 60 items of 10k characters per response
    python bench/bench_spans.py --items 20 --chars 50000
    python bench/bench_spans.py --items 20 --cpu    # main-thread CPU ms instead of wall ms

Target (issue): p95 under 50 ms at 10k characters, as for the pairwise screen.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_tui import make_items, summary  # noqa: E402

from annotate.session import create_session, open_store  # noqa: E402

CURSOR_KEYS = (("l", "l"), ("w", "w"), ("j", "j"), ("b", "b"), ("pagedown", None), ("h", "h"), ("k", "k"),
               ("pageup", None), ("space", " "), ("w", "w"), ("w", "w"))


async def span_keys(folder: Path, chars: int, n: int, cpu: bool = False) -> dict[str, list[float]]:
    """Milliseconds per step (module docstring) over n items of `chars` characters per response; with
    `cpu`, main-thread CPU milliseconds."""
    from textual import events

    from annotate.tui import make_app
    from annotate.tui.screens.item import ItemScreen
    from annotate.tui.screens.skip import SkipDialog

    spec = create_session(f"spans{chars}", "pairwise", seed=1, folder=folder / "sessions", spans=True)
    times: dict[str, list[float]] = defaultdict(list)
    with open_store(spec) as store:
        store.add_items(make_items(n, chars))
        app = make_app(spec, store, "bench", open_guideline=False)
        clock = time.thread_time_ns if cpu else time.monotonic_ns
        poll = 0.0005 if cpu else 0
        painted: list[int] = []
        app.painted_hooks.append((lambda _at: painted.append(clock())) if cpu else painted.append)

        def item_screen() -> ItemScreen:
            screen = app.screen
            assert isinstance(screen, ItemScreen), screen
            return screen

        async def settle() -> None:
            while not (app.settled() and (not isinstance(app.screen, ItemScreen) or app.screen.spans_prepared())):
                await asyncio.sleep(0.002)

        def send(key: str, character: str | None) -> int:
            driver = app._driver
            assert driver is not None
            start = clock()
            driver.send_message(events.Key(key, character))
            return start

        async def timed(name: str, key: str, character: str | None, handled) -> None:
            """Send `key`; once `handled()` is true, wait for the next refresh and note the time."""
            await settle()
            start = send(key, character)
            while not handled():
                await asyncio.sleep(poll)
            done: list[int] = []
            app.call_after_refresh(lambda: done.append(clock()))
            while not done:
                await asyncio.sleep(poll)
            times[name].append((done[0] - start) / 1e6)

        async def timed_item(name: str, key: str, character: str | None) -> None:
            await settle()
            before = len(painted)
            start = send(key, character)
            while len(painted) == before:
                await asyncio.sleep(poll)
            times[name].append((painted[before] - start) / 1e6)

        def recorded(screen: ItemScreen):
            count = len(screen.events)
            return lambda: len(screen.events) > count

        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            for k in range(n - 1):
                screen = item_screen()
                if k % 4 == 1:  # for reference: the skip dialog, a modal screen of the pairwise screen
                    await timed("reference: skip dialog opens (s)", "s", "s",
                                lambda: isinstance(app.screen, SkipDialog))
                    await pilot.press("escape")
                    await pilot.pause()
                await timed("span_mode_on (m)", "m", "m", lambda s=screen: s.span_slot is not None)
                for key, character in CURSOR_KEYS:
                    await timed("cursor key", key, character, recorded(screen))
                await timed("dialog opens (Enter)", "enter", "\r", lambda s=screen: s.span_dialog().is_open)
                await pilot.press("1", "2")
                marked = len(screen.spans)
                await timed("error marked (dialog Enter)", "enter", "\r",
                            lambda s=screen, m=marked: app.screen is s and len(s.spans) > m)
                await timed("span_mode_off (Escape)", "escape", None, lambda s=screen: s.span_slot is None)
                pane = next(p for p in screen.response_panes() if p.plain is not None)
                rows = pane.scrollable_content_region.height
                assert pane.plain_lines is not None and pane.rendered >= min(pane.virtual_size.height,
                                                                             round(pane.scroll_y) + rows)
                await pilot.press("1")
                await timed_item("submit -> next item painted", "enter", "\r")
                if k % 4 == 3:
                    await timed_item("revise: back to a marked item (b)", "b", "b")
                    back = item_screen()
                    assert back.spans and any(p.plain is not None for p in back.response_panes())
                    await settle()
                    await pilot.press("enter")  # unchanged: on to the next item, nothing written
                    await pilot.pause()
            await pilot.press("q")
        judgments = store.judgments("bench")
        assert len(judgments) == n - 1 and all(len(j.spans) == 1 for j in judgments)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=61, help="items (marked and submitted: items - 1)")
    parser.add_argument("--chars", type=int, default=10_000, help="characters per response")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--cpu", action="store_true", help="main-thread CPU time instead of wall time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        times = asyncio.run(span_keys(Path(tmp), args.chars, args.items, args.cpu))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    results = {name: summary(values) for name, values in times.items()}
    everything = summary([v for name, values in times.items() if not name.startswith("reference") for v in values])
    if args.json:
        print(json.dumps({"steps": results, "all_keys": everything, "peak_rss_mib": round(peak / 2**20, 1)},
                         indent=2))
        return
    print(f"annotate span mode benchmark, 160x48 headless, {args.chars} characters per response, "
          f"{args.items - 1} items marked, {'main-thread CPU' if args.cpu else 'wall'} time")
    for name, s in [*results.items(), ("every timed span-mode key", everything)]:
        print(f"  {name:<36} n={s['n']:<4} median {s['median_ms']:>7.1f} ms   p95 {s['p95_ms']:>7.1f} ms"
              f"   max {s['max_ms']:>7.1f} ms")
    print(f"peak resident memory {peak / 2**20:.1f} MiB")
    print(f"target p95 < 50 ms at 10k, every timed span-mode key: {'met' if everything['p95_ms'] < 50 else 'MISSED'}"
          f" ({everything['p95_ms']} ms)")


if __name__ == "__main__":
    main()
