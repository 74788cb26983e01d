"""A newcomer's first start on a large session: launch to the first item, and the key path while the rest
of their queue is being written.

Issue 15: "The app's start on a 1M-item session stays <= 1 s to the first item". Before a plan, a first
start has one assignment to write per item. The app used to write the whole queue before it opened
(`old`: `ensure_default_queue`, then `make_app`, which then finds the queue complete); now it writes the
first chunk and the rest while the annotator works (`new`: `annotate.tui.queue_fill`). Both run here
alternately, each start in a process of its own (a fresh annotator each time), headless at 160x48:

- first item: from starting the process to the first item painted (wall), and the process's CPU by then;
- complete: from starting the process to the whole queue stored;
- keys: with `--keys K`, K items answered while the queue is being written, one every `--pace` seconds;
  the time from Enter to the next item painted, p50 / p95 / max;
- peak memory of the process (ru_maxrss).

The last annotator started is then started again (`resumed`): the launch on a complete queue of that length.

    python bench/bench_newcomer.py [--items 1000000] [--rounds 1] [--keys 20] [--dir FOLDER] [--modes old,new]

With `--dir`, the session is kept there and used again by the next run (building a million items takes
a minute or two).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from annotate.model import Item, Message, Response  # noqa: E402
from annotate.session import create_session, load_session  # noqa: E402
from annotate.store import Store  # noqa: E402

BATCH = 50_000

CHILD = r"""
import asyncio, json, resource, sys, time
from textual import events
from annotate.session import load_session
from annotate.store import Store
from annotate.store.queues import queue_counts
from annotate.tui import make_app

spec_path, name, mode, keys, pace = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
spec = load_session(spec_path)
out = {}

async def main(store):
    if mode == "old":
        from annotate.plan import ensure_default_queue
        ensure_default_queue(store, spec, name)
    app = make_app(spec, store, name, open_guideline=False)
    painted = []
    def on_painted(ns):
        if not painted:
            out["first_ns"], out["first_cpu_s"] = ns, time.process_time()
        painted.append(ns)
    app.painted_hooks.append(on_painted)
    latencies = []

    async def watch():
        while app.queue_writing():
            await asyncio.sleep(0.01)
        out["complete_ns"] = time.monotonic_ns()

    async with app.run_test(size=(160, 48)) as pilot:
        while not painted:
            await asyncio.sleep(0.001)
        out["writing_at_first"] = app.queue_fill is not None and app.queue_fill.active
        watcher = asyncio.create_task(watch())
        for _ in range(keys):
            await asyncio.sleep(pace)
            out.setdefault("filling_during_keys", True)
            if not app.queue_writing():
                out["filling_during_keys"] = False
            await pilot.press("1")
            before = len(painted)
            start = time.monotonic_ns()
            await pilot.press("enter")
            while len(painted) == before:
                await asyncio.sleep(0)
            latencies.append((painted[before] - start) / 1e6)
        await watcher
        out["queue"] = len(app.queue)
        await pilot.press("q")
    out["stored"] = queue_counts(store, name).total
    out["answered"] = len(store.judgments(name))
    out["keys_ms"] = latencies

with Store.open(spec.db) as store:
    asyncio.run(main(store))
out["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print("RESULT " + json.dumps(out), flush=True)
"""


def build(folder: Path, n: int) -> Path:
    """The session of `n` short pairwise items in `folder` (made once; used again when it is there)."""
    spec_path = folder / "sessions" / f"newcomer{n}.toml"
    if spec_path.exists():
        return spec_path
    spec = create_session(f"newcomer{n}", "pairwise", seed=1, folder=folder / "sessions")
    began = time.perf_counter()
    with Store.open(spec.db) as store:
        for low in range(0, n, BATCH):
            store.add_items([
                Item(f"item{i:07d}", "pairwise", (Message("user", f"Q{i:07d} prompt {i}"),),
                     (Response("A", f"answer a{i}", "m1"), Response("B", f"answer b{i}", "m2")))
                for i in range(low, min(n, low + BATCH))
            ])
    print(f"built {n:,} items in {time.perf_counter() - began:.0f} s")
    return spec.path


def start(spec_path: Path, name: str, mode: str, keys: int, pace: float) -> dict:
    began = time.monotonic_ns()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(spec_path), name, mode, str(keys), str(pace)],
                          capture_output=True, text=True, cwd=ROOT, env=os.environ | {"PYTHONPATH": str(ROOT)})
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if proc.returncode or line is None:
        raise RuntimeError(f"{mode} start failed (rc {proc.returncode}):\n{proc.stderr[-3000:]}")
    result = json.loads(line[len("RESULT "):])
    result["first_s"] = (result["first_ns"] - began) / 1e9
    result["complete_s"] = (max(result["complete_ns"], result["first_ns"]) - began) / 1e9
    return result


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--keys", type=int, default=20, help="items answered while the queue is being written")
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between answers")
    parser.add_argument("--modes", default="old,new")
    parser.add_argument("--dir", type=Path)
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench-newcomer-"))
    folder.mkdir(parents=True, exist_ok=True)
    spec_path = build(folder, args.items)
    spec = load_session(spec_path)
    print(f"newcomer's first start on {args.items:,} items ({spec.db}), 160x48 headless, {args.keys} answers"
          f" {args.pace} s apart; host {os.cpu_count()} cores")
    print("| start | first item | CPU by then | writing at first item | complete queue | keys while writing"
          " p50 / p95 / max | peak memory | load |")
    print("|---|---|---|---|---|---|---|---|")
    ok = True
    stamp = int(time.time())
    for r in range(args.rounds):
        for mode in args.modes.split(","):
            load = os.getloadavg()[0]
            res = start(spec_path, f"new-{mode}-{stamp}-{r}", mode, args.keys, args.pace)
            keys = res["keys_ms"]
            figures = (f"{statistics.median(keys):.1f} / {quantile(keys, 0.95):.1f} / {max(keys):.1f} ms"
                       + ("" if res.get("filling_during_keys") else " (queue complete before the last)")
                       if keys else "-")
            print(f"| {mode} | {res['first_s']:.2f} s | {res['first_cpu_s']:.2f} s | {res['writing_at_first']} |"
                  f" {res['complete_s']:.1f} s | {figures} | {res['maxrss_kb'] / 1024:.0f} MB | {load:.1f} |",
                  flush=True)
            ok = ok and res["stored"] == res["queue"] == args.items and res["answered"] == args.keys
            last = f"new-{mode}-{stamp}-{r}"
    if args.rounds:  # the last of them again: a resumed start on a complete queue of args.items
        res = start(spec_path, last, "resume", 0, 0.0)
        print(f"| resumed ({last}) | {res['first_s']:.2f} s | {res['first_cpu_s']:.2f} s | {res['writing_at_first']} |"
              f" - | - | {res['maxrss_kb'] / 1024:.0f} MB | {os.getloadavg()[0]:.1f} |", flush=True)
        ok = ok and res["stored"] == args.items
    print("every queue complete, every answer stored" if ok else "A QUEUE OR AN ANSWER IS MISSING")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
