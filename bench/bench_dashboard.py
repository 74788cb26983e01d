"""How long one refresh of the live dashboard (`annotate status --watch`) takes on a big session.

Builds a pairwise session of 10,000 items and 20 annotators (planned with overlap 3, 5 % gold,
2 % attention checks, 2 % repeats; each annotator has answered 60 to 95 % of their queue, with
noisy labels, skips and lognormal active times; half have a sitting open), then times
`annotate.dashboard.take_snapshot` on a read-only store, as the dashboard's worker calls it,
over several refreshes: median, p95 and max, and the peak memory of one refresh (Python
allocations, tracemalloc) and of the process (max RSS).

    python bench/bench_dashboard.py                  # 10,000 items, 20 annotators, 30 refreshes
    python bench/bench_dashboard.py --items 100000 --refreshes 10 --dir /tmp/big

Target (issue 13): well under a second per refresh at 10,000 items and 20 annotators.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from annotate.dashboard import take_snapshot  # noqa: E402
from annotate.model import Item, Judgment, Message, Response, Timings  # noqa: E402
from annotate.plan import Rates, apply_plan  # noqa: E402
from annotate.session import create_session, open_store  # noqa: E402
from annotate.spec import SessionSpec  # noqa: E402
from annotate.store import utc_now  # noqa: E402
from annotate.store.sittings import open_sitting  # noqa: E402

LABELS = ("A", "B", "tie", "both_bad")


def items(n: int, rng: random.Random) -> list[Item]:
    """n pairwise items; every 10th has a gold label, every 100th is an attention check."""
    out = []
    for i in range(n):
        gold = rng.choice(("A", "B")) if i % 10 == 0 or i % 100 == 1 else None
        out.append(Item(
            id=f"item-{i:06d}", kind="pairwise",
            conversation=(Message("user", f"Question {i}: which answer is better?"),),
            responses=(Response("A", f"Answer A to {i}.", "model-a"), Response("B", f"Answer B to {i}.", "model-b")),
            category="attention" if i % 100 == 1 else f"topic-{i % 7}", gold=gold,
        ))
    return out


def build(folder: Path, n_items: int, n_annotators: int, seed: int) -> tuple[SessionSpec, dict[str, float]]:
    """The session described above; returns its spec and how long each step took (seconds)."""
    rng = random.Random(seed)
    took: dict[str, float] = {}
    began = time.perf_counter()
    spec = create_session("bench-dashboard", "pairwise", seed=seed, folder=folder / "sessions")
    store = open_store(spec)
    made = items(n_items, rng)
    truth = {i.id: i.gold or rng.choice(LABELS) for i in made}
    store.add_items(made)
    took["items"] = time.perf_counter() - began
    began = time.perf_counter()
    names = [f"annotator-{k:02d}" for k in range(n_annotators)]
    apply_plan(store, spec, names, overlap=3, rates=Rates(gold=0.05, attention=0.02, repeat=0.02), seed=seed)
    took["plan"] = time.perf_counter() - began
    began = time.perf_counter()
    answered = 0
    with store.transaction():  # one transaction for the whole fabrication: Store.submit nests in it
        for k, name in enumerate(names):
            queue = store.assignments(name)
            share = 0.60 + 0.35 * rng.random()
            accuracy = 0.55 + 0.4 * rng.random()
            for assignment in queue[: int(len(queue) * share)]:
                skip = rng.random() < 0.02
                right = truth[assignment.item_id]
                label = right if rng.random() < accuracy else rng.choice(LABELS)
                active = int(rng.lognormvariate(9.2, 0.8) * (0.3 if k % 7 == 3 else 1.0))  # ~10 s; some fast
                timings = Timings(utc_now(), 400, active + 800, active)
                store.submit(Judgment(assignment.id, None if skip else label, timings,
                                      skip_reason="unsure" if skip else None), shown=assignment)
                answered += 1
    store.close()
    took["judgments"] = time.perf_counter() - began
    took["answered"] = answered
    return spec, took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--refreshes", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=None, help="Where to build the session (default: a temp folder).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        spec, took = build(folder, args.items, args.annotators, args.seed)
        size = spec.db.stat().st_size
        print(f"session: {args.items:,} items, {args.annotators} annotators, {int(took['answered']):,} judgments,"
              f" {size / 2**20:.1f} MiB; built in {took['items']:.1f} s (items) + {took['plan']:.1f} s (plan)"
              f" + {took['judgments']:.1f} s (judgments)")
        with open_store(spec) as writer:  # half of them have the app open (this process stands in for theirs)
            for annotator in writer.annotators()[: args.annotators // 2]:
                open_sitting(writer, annotator.name, pid=os.getpid())
        with open_store(spec, read_only=True) as store:
            take_snapshot(spec, store)  # warm the page cache, as a running dashboard has
            times, cpu = [], []
            for _ in range(args.refreshes):
                began, began_cpu = time.perf_counter(), time.process_time()
                snap = take_snapshot(spec, store)
                times.append(time.perf_counter() - began)
                cpu.append(time.process_time() - began_cpu)
            tracemalloc.start()
            take_snapshot(spec, store)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        times.sort()
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        print(f"snapshot over {args.refreshes} refreshes: median {1000 * statistics.median(times):.1f} ms,"
              f" p95 {1000 * p95:.1f} ms, max {1000 * times[-1]:.1f} ms")
        print(f"CPU time per refresh: median {1000 * statistics.median(cpu):.1f} ms (less sensitive to a busy machine)")
        print(f"figures: {len(snap.annotators)} annotators, {snap.done:,} done of {snap.assigned:,},"
              f" {snap.working} working, alpha {snap.alpha.value:.3f} over {snap.alpha.items:,} items")
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory: one refresh allocates at most {peak / 2**20:.2f} MiB (tracemalloc);"
              f" process max RSS {rss:.0f} MiB (including building the session)")
        began = time.process_time()
        sum(range(10_000_000))
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; this CPU sums range(10**7) in"
              f" {time.process_time() - began:.2f} s of CPU time (an idle modern core: about 0.1 to 0.2 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
