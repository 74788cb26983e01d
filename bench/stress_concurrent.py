"""Many annotators, one session file: N processes annotate at once, the way the app writes.

Each process is one annotator starting `annotate start` on the same session at the same moment (a
barrier releases them together): it opens its own Store on the file, gets its default queue
(`ensure_queue`, which writes the queue on a first start, as the app does), and then, for each
item, reads it and submits a judgment with its events through the app's own store thread
(`annotate.tui.queue.StoreRunner`, the single thread every Store call of the app runs on), waiting
for each write to be durable, which is what the app's `Saving…` -> `Saved` shows. Now and then it
also writes events that belong to no submit (navigation), as the app does.

At the end the script checks that no row was lost (every judgment and every event of every
process is in the file), that no process saw an error of any kind (so no "database is locked"
reached a person), and that `PRAGMA integrity_check` is ok; it prints the write latency per
submit (median, p99, max) and the time to open the session and get the queue.

    python bench/stress_concurrent.py [--processes 10] [--judgments 100] [--dir FOLDER]

Exit status 0 when every check passes (tests/test_concurrency.py runs it).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from pathlib import Path

from annotate.model import Event, Item, Judgment, Message, Response, Timings
from annotate.plan import ensure_queue
from annotate.session import create_session, load_session
from annotate.store import Store, utc_now
from annotate.tui.queue import StoreRunner

EVENTS_PER_SUBMIT = 3
NAV_EVERY = 10
"""Every this many items a process also writes one navigation event on its own (no submit)."""


def worker(spec_path: str, annotator: str, n: int, barrier: mp.Barrier, results: mp.Queue) -> None:
    latencies: list[float] = []
    errors: list[str] = []
    open_ms = 0.0
    nav_events = 0
    try:
        spec = load_session(spec_path)
        barrier.wait()
        began = time.perf_counter()
        store = Store.open(spec.db)
        runner = StoreRunner(store)
        queue = runner.call(ensure_queue, store, spec, annotator).result()
        open_ms = (time.perf_counter() - began) * 1000
        for k, assignment in enumerate(queue[:n]):
            runner.call(store.item, assignment.item_id).result()
            timings = Timings(utc_now(), 500, 2000, 1900, {"A": 1000, "B": 900}, {"A": 1.0, "B": 0.5}, 0)
            events = [
                Event(kind, time.monotonic_ns(), utc_now(), {"n": e}, assignment.id, annotator)
                for e, kind in enumerate(("item.shown", "key.label", "key.submit"))
            ]
            judgment = Judgment(assignment.id, "A" if assignment.position % 2 else "B", timings)
            start = time.perf_counter()
            try:
                runner.call(store.submit, judgment, events).result()
            except Exception as exc:  # the point is to count every failure, whatever it is
                errors.append(f"submit: {type(exc).__name__}: {exc}")
                continue
            latencies.append((time.perf_counter() - start) * 1000)
            if k % NAV_EVERY == NAV_EVERY - 1:
                nav = Event("nav.back", time.monotonic_ns(), utc_now(), {}, assignment.id, annotator)
                try:
                    runner.call(store.log_events, [nav]).result()
                    nav_events += 1
                except Exception as exc:
                    errors.append(f"log_events: {type(exc).__name__}: {exc}")
        runner.close()
        store.close()
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    results.put((annotator, latencies, errors, open_ms, nav_events))


def run(processes: int, judgments: int, folder: Path) -> bool:
    """Run the stress test in `folder`; print the figures; True when every check passed."""
    spec = create_session("stress", "pairwise", seed=1, folder=folder / "sessions")
    with Store.open(spec.db) as store:
        store.add_items([
            Item(f"item{i:04d}", "pairwise", (Message("user", f"prompt {i}"),),
                 (Response("A", "a" * 400, "m1"), Response("B", "b" * 400, "m2")))
            for i in range(judgments)
        ])
    annotators = [f"annotator{k:02d}" for k in range(processes)]
    context = mp.get_context("spawn")  # a fresh interpreter per annotator, like separate terminals
    barrier = context.Barrier(processes)
    results: mp.Queue = context.Queue()
    procs = [context.Process(target=worker, args=(str(spec.path), name, judgments, barrier, results))
             for name in annotators]
    start = time.perf_counter()
    for proc in procs:
        proc.start()
    collected = [results.get(timeout=600) for _ in procs]
    for proc in procs:
        proc.join()
    wall = time.perf_counter() - start
    latencies = sorted(x for _, lat, _, _, _ in collected for x in lat)
    errors = [e for _, _, errs, _, _ in collected for e in errs]
    opens = sorted(o for _, _, _, o, _ in collected)
    nav_events = sum(n for *_, n in collected)
    with Store.open(spec.db) as store:
        stored = len(store.judgments())
        events = len(store.events())
        per_annotator = {name: len(store.judgments(name)) for name in annotators}
        integrity = store.db.execute("PRAGMA integrity_check").fetchone()[0]
    expected = processes * judgments
    expected_events = EVENTS_PER_SUBMIT * expected + nav_events
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies else float("nan")
    print(f"{processes} processes x {judgments} judgments on one file, all starting at once ({wall:.1f} s wall)")
    print(f"judgments stored {stored} of {expected} (every annotator {min(per_annotator.values())}"
          f"-{max(per_annotator.values())}); events stored {events} of {expected_events}")
    print(f"errors reaching a user: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    print(f"integrity_check: {integrity}")
    if latencies:
        print(f"write latency per submit (queued on the app's store thread until durable): "
              f"median {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, max {latencies[-1]:.1f} ms")
    if opens:
        print(f"open + queue at start: median {statistics.median(opens):.0f} ms, max {opens[-1]:.0f} ms")
    ok = (stored == expected and set(per_annotator.values()) == {judgments} and events == expected_events
          and not errors and integrity == "ok")
    print("PASS" if ok else "FAIL")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=10)
    parser.add_argument("--judgments", type=int, default=100, help="per process")
    parser.add_argument("--dir", type=Path, default=None, help="Where to put the session (default: a temp folder).")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="annotate-stress-"))
    return 0 if run(args.processes, args.judgments, folder) else 1


if __name__ == "__main__":
    sys.exit(main())
