"""How fast the annotation screen is: key press -> next item painted, and launch -> first item.

Drives the real app headless (`App.run_test`, 160x48) over a session of generated Markdown
responses (paragraphs, lists, fenced code, a table) of about 2k, 10k and 50k characters per side.
For each item it presses `1` (Left better), then times `Enter` (submit) until the next item has
been painted (the screen calls its painted hooks from `call_after_refresh`, i.e. after the
compositor has drawn the new item; the benchmark checks that every row in view was rendered
then, not left blank). Before each timed key it waits until the prefetcher is idle and the
previous write has landed, as when an annotator reads for a few seconds; `--rapid` sends the
next keys straight to the driver as soon as an item is painted (the worst case: nothing read
or rendered ahead, garbage not collected; the panes render what they show on the key path and
the render thread the rest of each response later).

Launch is timed in a fresh interpreter: from just before the process starts to the first item
painted (Python start-up, imports, opening the store, building the queue, first render).

For comparison it also times Textual's own `Markdown` widget updating to the same documents.

    python bench/bench_tui.py                # 200 items per size
    python bench/bench_tui.py --items 50 --sizes 10000
    python bench/bench_tui.py --design aspects   # the aspect rows screen (also graded-5, graded-7)
    python bench/bench_tui.py --design ranking --k 4   # the ranking screen: k responses of that size each

With `--design ranking` every item has k responses (`--k`, 3 to 6) of the size given, the ranking
screen shows two of them side by side at 160 columns, and each item is ranked `1` `2` ... `k`
before the timed `Enter`.

Targets (issue): p95 under 50 ms at 10k characters; launch under 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from annotate.model import Item, Message, Response  # noqa: E402
from annotate.session import create_session, open_store  # noqa: E402

_SENTENCE = (
    "the model returns a value when each list item is sorted by key and then printed to the output stream "
    "because a careful reader checks every claim against the source before trusting an answer that sounds right"
)
WORDS = tuple(_SENTENCE.split(" "))


def markdown_doc(chars: int, seed: int) -> str:
    """About `chars` characters of realistic Markdown: headings, paragraphs, lists, code, a table."""
    rng = random.Random(seed)

    def sentence(n: int) -> str:
        words = [rng.choice(WORDS) for _ in range(n)]
        return " ".join(words).capitalize() + "."

    parts: list[str] = []
    size = 0
    k = 0
    while size < chars:
        k += 1
        kind = k % 6
        if kind == 1:
            part = f"## Step {k}\n\n" + " ".join(sentence(rng.randint(8, 18)) for _ in range(4))
        elif kind == 2:
            part = "\n".join(f"- **{rng.choice(WORDS)}**: {sentence(rng.randint(5, 12))}" for _ in range(5))
        elif kind == 3:
            body = "\n".join(
                f"def step_{k}_{i}(xs):\n    return sorted(xs, key=lambda x: x[{i}])  # {rng.choice(WORDS)}"
                for i in range(4)
            )
            part = f"```python\n{body}\n```"
        elif kind == 4:
            rows = "\n".join(f"| {rng.choice(WORDS)} | {rng.randint(1, 999)} | {sentence(4)} |" for _ in range(5))
            part = "| name | count | note |\n|---|---:|---|\n" + rows
        elif kind == 5:
            part = "1. " + sentence(10) + "\n2. " + sentence(12) + "\n3. `inline code` and " + sentence(6)
        else:
            part = " ".join(sentence(rng.randint(10, 20)) for _ in range(5))
        parts.append(part)
        size += len(part) + 2
    return "\n\n".join(parts)[:chars]


def make_items(n: int, chars: int, k: int = 2) -> list[Item]:
    """n items of k responses (slots A, B, ...) of about `chars` characters each; k > 2: ranking items."""
    slots = "ABCDEF"[:k]
    return [
        Item(
            id=f"bench-{chars}-{i:04d}", kind="pairwise" if k == 2 else "ranking",
            conversation=(Message("user", f"Question {i}: explain the sorting helper and its edge cases."),),
            responses=tuple(Response(s, markdown_doc(chars, k * i + j), f"model-{s.lower()}")
                            for j, s in enumerate(slots)),
        )
        for i in range(n)
    ]


def bench_session(folder: Path, chars: int, design: str, k: int) -> Any:
    """A session of the design (`ranking`: kind ranking with k responses per item) and the keys that
    answer one item before Enter."""
    if design == "ranking":
        from annotate.spec import load_spec

        spec = create_session(f"bench{chars}rank{k}", "ranking", seed=1, folder=folder / "sessions")
        spec.path.write_text(spec.path.read_text(encoding="utf-8").replace("k = 4 ", f"k = {k} "), encoding="utf-8")
        spec = load_spec(spec.path)
        return spec, [str(p) for p in range(1, k + 1)]
    spec = create_session(f"bench{chars}{design.replace('-', '')}", "pairwise", seed=1, folder=folder / "sessions",
                          design=design)
    return spec, ["1"] * len(spec.schema.questions)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


async def key_to_paint(folder: Path, chars: int, n: int, rapid: bool, design: str = "outcomes", k: int = 4
                       ) -> tuple[list[float], list[float]]:
    """Milliseconds from Enter to the next item painted, for n - 1 submits, and the main thread's CPU
    milliseconds over the same spans (the app and its event loop run on it: a figure that does not
    depend on the host's load, unlike the wall clock); `design` is the pairwise
    study design (one `1` is pressed per question before Enter: four for the aspects design), or
    `ranking` (k responses per item, ranked 1 .. k before Enter)."""
    from textual import events

    from annotate.tui import make_app

    spec, answer = bench_session(folder, chars, design, k)
    with open_store(spec) as store:
        store.add_items(make_items(n, chars, k if design == "ranking" else 2))
        app = make_app(spec, store, "bench", open_guideline=False)
        painted: list[int] = []
        painted_cpu: list[int] = []

        def on_painted(ns: int) -> None:
            painted.append(ns)
            painted_cpu.append(time.thread_time_ns())

        app.painted_hooks.append(on_painted)
        times: list[float] = []
        cpu: list[float] = []
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            for _ in range(n - 1):
                if not rapid:
                    while not app.settled():
                        await asyncio.sleep(0.002)
                before = len(painted)
                if rapid:  # straight to the driver: Pilot.press waits for the process to go idle
                    driver = app._driver
                    assert driver is not None
                    for key in answer:
                        driver.send_message(events.Key(key, key))
                    start, start_cpu = time.monotonic_ns(), time.thread_time_ns()
                    driver.send_message(events.Key("enter", "\r"))
                else:
                    await pilot.press(*answer)
                    start, start_cpu = time.monotonic_ns(), time.thread_time_ns()
                    await pilot.press("enter")
                while len(painted) == before:
                    await asyncio.sleep(0)
                times.append((painted[before] - start) / 1e6)
                cpu.append((painted_cpu[before] - start_cpu) / 1e6)
                for pane in app.screen.response_panes():  # type: ignore[attr-defined]
                    rows = pane.scrollable_content_region.height
                    in_view = min(pane.virtual_size.height, round(pane.scroll_y) + rows)
                    assert pane.rendered >= in_view, f"{pane.id}: {pane.rendered} lines rendered, {in_view} in view"
            await pilot.press("q")
        assert len(store.judgments("bench")) == n - 1
    return times, cpu


async def markdown_widget(chars: int, runs: int) -> list[float]:
    """Milliseconds for Textual's Markdown widget to show a new document and paint it."""
    from textual.app import App, ComposeResult
    from textual.widgets import Markdown

    class Bench(App[None]):
        def compose(self) -> ComposeResult:
            yield Markdown("")

    times: list[float] = []
    app = Bench()
    async with app.run_test(size=(80, 48)) as pilot:
        widget = app.query_one(Markdown)
        for i in range(runs):
            text = markdown_doc(chars, 1000 + i)
            done = asyncio.Event()
            start = time.monotonic_ns()
            await widget.update(text)
            app.call_after_refresh(done.set)
            await done.wait()
            times.append((time.monotonic_ns() - start) / 1e6)
            await pilot.pause()
    return times


LAUNCH_CHILD = """
import sys, time
from annotate.session import load_session
from annotate.store import Store
from annotate.tui import make_app
spec = load_session(sys.argv[1])
with Store.open(spec.db) as store:
    app = make_app(spec, store, "launch", open_guideline=False)
    def painted(ns):
        print(ns, flush=True)
        app.exit()
    app.painted_hooks.append(painted)
    app.run(headless=True, size=(160, 48))
"""


def launch_times(folder: Path, chars: int, runs: int) -> list[float]:
    spec = create_session(f"launch{chars}", "pairwise", seed=1, folder=folder / "sessions")
    with open_store(spec) as store:
        store.add_items(make_items(50, chars))
    times = []
    for _ in range(runs):
        start = time.monotonic_ns()
        out = subprocess.run([sys.executable, "-c", LAUNCH_CHILD, str(spec.path)], capture_output=True, text=True,
                             check=True, cwd=folder)
        painted = int(out.stdout.strip().splitlines()[-1])
        times.append((painted - start) / 1e6)
    return times


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "median_ms": round(statistics.median(values), 1),
            "p95_ms": round(percentile(values, 95), 1), "max_ms": round(max(values), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=201, help="items per size (submits timed: items - 1)")
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[2000, 10000, 50000])
    parser.add_argument("--rapid", action="store_true", help="do not wait for read-ahead between keys")
    parser.add_argument("--launch-runs", type=int, default=5)
    parser.add_argument("--widget-runs", type=int, default=10)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--design", choices=["outcomes", "graded-5", "graded-7", "aspects", "ranking"],
                        default="outcomes", help="the pairwise study design of the session (annotate init --design), "
                                                 "or ranking (a ranking session of --k responses per item)")
    parser.add_argument("--k", type=int, default=4, choices=range(3, 7), metavar="K",
                        help="responses per item with --design ranking (3 to 6)")
    args = parser.parse_args()

    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for chars in args.sizes:
            wall, cpu = asyncio.run(key_to_paint(folder, chars, args.items, args.rapid, args.design, args.k))
            results[f"key_to_paint_{chars}"] = summary(wall)
            results[f"key_to_paint_{chars}_main_thread_cpu"] = summary(cpu)
        results["launch_to_first_item_10000"] = summary(launch_times(folder, 10_000, args.launch_runs))
        if args.widget_runs:
            for chars in (2000, 10_000):
                results[f"textual_markdown_widget_{chars}"] = summary(
                    asyncio.run(markdown_widget(chars, args.widget_runs)))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    mode = "rapid (no read-ahead wait)" if args.rapid else "annotator pace (read-ahead finished)"
    design = f"ranking, k = {args.k} responses of the size each" if args.design == "ranking" else args.design
    print(f"annotate TUI benchmark, 160x48 headless, {mode}, design {design}; load average {os.getloadavg()[0]:.1f}")
    for name, s in results.items():
        assert isinstance(s, dict)
        print(f"  {name:<36} n={s['n']:<4} median {s['median_ms']:>7.1f} ms   p95 {s['p95_ms']:>7.1f} ms"
              f"   max {s['max_ms']:>7.1f} ms")
    p95_10k = results.get("key_to_paint_10000")
    launch = results["launch_to_first_item_10000"]
    assert isinstance(launch, dict)
    if isinstance(p95_10k, dict):
        print(f"target p95 < 50 ms at 10k: {'met' if p95_10k['p95_ms'] < 50 else 'MISSED'}"
              f" ({p95_10k['p95_ms']} ms)")
    print(f"target launch < 1 s: {'met' if launch['median_ms'] < 1000 else 'MISSED'} (median {launch['median_ms']} ms)")


if __name__ == "__main__":
    main()
