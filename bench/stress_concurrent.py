"""Many annotators, one session file: N processes submit judgments at once.

Each process opens its own Store on the same SQLite file and submits judgments (each with a few
events, one transaction per submit) as fast as it can. At the end the script checks that no row
was lost, that no process saw "database is locked", and that `PRAGMA integrity_check` is ok, and
prints the write latency per submit (median, p99, max).

    python bench/stress_concurrent.py [--processes 10] [--judgments 100]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path

from annotate.model import Assignment, Event, Item, Judgment, Message, Response, Timings
from annotate.store import Store, utc_now


def worker(path: str, annotator: str, n: int, queue: mp.Queue) -> None:
    latencies: list[float] = []
    errors: list[str] = []
    with Store.open(path) as store:
        queue_ = store.assignments(annotator)
        for assignment in queue_[:n]:
            timings = Timings(utc_now(), 500, 2000, 1900, {"A": 1000, "B": 900}, {"A": 1.0, "B": 0.5}, 0)
            events = [
                Event(kind, time.monotonic_ns(), utc_now(), {"n": k}, assignment.id, annotator)
                for k, kind in enumerate(("key.label", "key.scroll", "key.submit"))
            ]
            start = time.perf_counter()
            try:
                store.submit(Judgment(assignment.id, "A" if assignment.position % 2 else "B", timings), events)
            except Exception as exc:  # the point is to count every failure, whatever it is
                errors.append(f"{type(exc).__name__}: {exc}")
                continue
            latencies.append((time.perf_counter() - start) * 1000)
    queue.put((annotator, latencies, errors))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=10)
    parser.add_argument("--judgments", type=int, default=100)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="annotate-stress-"))
    path = folder / "stress.db"
    annotators = [f"annotator{k:02d}" for k in range(args.processes)]
    with Store.open(path, create=True) as store:
        items = [
            Item(f"item{i:04d}", "pairwise", (Message("user", f"prompt {i}"),),
                 (Response("A", "a" * 400, "m1"), Response("B", "b" * 400, "m2")))
            for i in range(args.judgments)
        ]
        store.add_items(items)
        store.add_assignments([
            Assignment(0, name, item.id, position, swapped=bool(position % 2))
            for name in annotators for position, item in enumerate(items)
        ])
    queue: mp.Queue = mp.Queue()
    procs = [mp.Process(target=worker, args=(str(path), name, args.judgments, queue)) for name in annotators]
    start = time.perf_counter()
    for proc in procs:
        proc.start()
    results = [queue.get(timeout=600) for _ in procs]
    for proc in procs:
        proc.join()
    wall = time.perf_counter() - start
    latencies = sorted(x for _, lat, _ in results for x in lat)
    errors = [e for _, _, errs in results for e in errs]
    with Store.open(path) as store:
        stored = len(store.judgments())
        events = len(store.events())
        integrity = store.db.execute("PRAGMA integrity_check").fetchone()[0]
    expected = args.processes * args.judgments
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies else float("nan")
    print(f"{args.processes} processes x {args.judgments} judgments on one file ({wall:.1f} s wall)")
    print(f"judgments stored {stored} of {expected}; events stored {events} of {3 * expected}")
    print(f"errors reaching a user: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    print(f"integrity_check: {integrity}")
    if latencies:
        print(f"write latency per submit: median {statistics.median(latencies):.1f} ms, "
              f"p99 {p99:.1f} ms, max {latencies[-1]:.1f} ms")
    ok = stored == expected and events == 3 * expected and not errors and integrity == "ok"
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
