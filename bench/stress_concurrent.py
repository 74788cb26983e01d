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
submit (median, p99, max), the rows lost, and the time to open the session and get the queue.

By default every annotator submits as fast as the store takes it (the worst case); `--pause-ms M`
makes each read for a random time of mean M before each submit, the first included, as people do.
Each annotator's first submit is also shown apart: it comes while the others are still opening the
session and writing their queues, a burst that happens once a start (with 10 writers and 100 submits
each, those 10 first submits are 1 % of all, so they alone can set the p99). `--lock-wait` picks
how a writer waits for the write lock, for a before/after comparison on the same machine:
`queue` (the app's way: its turn among annotate's writers in arrival order, annotate/store/writers.py,
then BEGIN IMMEDIATE), `polls` (BEGIN IMMEDIATE by annotate's short jittered polls alone, the way
before the queue) or `sqlite` (BEGIN IMMEDIATE under SQLite's own busy handler, the way before the
polls); `--compare` runs all three, one after the other, and prints a table of them, with an anchor
measured in the same run: one writer alone. Its median write is the time one submit holds the lock
(mostly the fsync of the WAL), and N annotators submitting back to back cannot do better than about
N times that at the median whatever the order of turns (each waits for the N - 1 others' submits):
the way of waiting decides the tail above it.

    python bench/stress_concurrent.py [--processes 10] [--judgments 100] [--pause-ms 0] [--dir FOLDER]
    python bench/stress_concurrent.py --processes 50 --compare [--judgments 40]

Exit status 0 when every check passes (tests/test_concurrency.py runs it).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from annotate.model import Event, Item, Judgment, Message, Response, Timings
from annotate.plan import ensure_queue
from annotate.session import create_session, load_session
from annotate.store import Store, utc_now
from annotate.tui.queue import StoreRunner

EVENTS_PER_SUBMIT = 3
NAV_EVERY = 10
"""Every this many items a process also writes one navigation event on its own (no submit)."""


LOCK_WAITS = ("sqlite", "polls", "queue")


class NoQueue:
    """A Store's writer queue that never queues: BEGIN IMMEDIATE alone decides who writes next."""

    active = False
    """Not a queue: the Store polls for SQLite's lock (`polls`) or leaves it to SQLite (`sqlite`)."""

    def __init__(self, db: Path) -> None:
        pass

    def close(self) -> None:
        pass

    @contextmanager
    def turn(self, timeout_s: float) -> Iterator[None]:
        yield


TURNS: list[tuple[str, float, float, float, float]] = []
"""This process's turns at the write lock during its start and first submit: (phase, asked, got,
released (perf_counter, the same clock in every process), CPU of the thread while it held the turn)."""
PHASE = ["start"]
"""What the process is doing: "start" (open + queue), "first" (its first submit), then "" (not logged)."""


def timed_turns(base: type) -> type:
    """`base` (a writer queue class) whose outermost turns are logged in TURNS while PHASE is set."""

    class Timed(base):  # type: ignore[misc,valid-type]
        _depth = 0

        @contextmanager
        def turn(self, timeout_s: float) -> Iterator[None]:
            asked = time.perf_counter()
            with super().turn(timeout_s):
                got, cpu = time.perf_counter(), time.thread_time()
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                    if PHASE[0] and not self._depth:
                        TURNS.append((PHASE[0], asked, got, time.perf_counter(), time.thread_time() - cpu))

    return Timed


def timed_call(func: Any, *args: Any) -> tuple[Any, float]:
    """`func(*args)` and the CPU time this thread spent in it."""
    cpu = time.thread_time()
    return func(*args), time.thread_time() - cpu


def use_lock_wait(lock_wait: str) -> None:
    """Make this process's Stores wait for the write lock the way `lock_wait` names (module docstring)."""
    import annotate.store.store as store_module

    if lock_wait in ("sqlite", "polls"):
        store_module.WriterQueue = NoQueue  # type: ignore[assignment,misc]
    if lock_wait == "sqlite":
        def begin(db, timeout_s: float = 0.0) -> None:  # type: ignore[no-untyped-def]
            store_module._retry_locked(lambda: db.execute("BEGIN IMMEDIATE"))

        store_module.begin_immediate = begin
    store_module.WriterQueue = timed_turns(store_module.WriterQueue)  # type: ignore[misc]


def worker(spec_path: str, annotator: str, n: int, barrier: mp.Barrier, results: mp.Queue, pause_ms: float = 0.0,
           lock_wait: str = "queue") -> None:
    use_lock_wait(lock_wait)
    rng = random.Random(annotator)
    latencies: list[float] = []
    errors: list[str] = []
    open_ms = 0.0
    start: dict[str, float] = {}
    nav_events = 0
    loop_cpu = (0.0, 0.0, 0.0)
    try:
        spec = load_session(spec_path)
        # Imported before the barrier, as every import of the process is: the app makes the store's
        # sqlite-utils Database after its first paint (below); without this, fifty interpreters importing it
        # at the same instant would be measured as the first submits'.
        import annotate.store._sqlite_utils  # noqa: F401
        barrier.wait()
        began = time.perf_counter()
        open_cpu = time.thread_time()
        store = Store.open(spec.db)
        open_cpu = time.thread_time() - open_cpu
        runner = StoreRunner(store)
        queue, queue_cpu = runner.call(timed_call, ensure_queue, store, spec, annotator).result()
        open_ms = (time.perf_counter() - began) * 1000
        runner.call(store.db.load)  # what the app does after the first paint (annotate/tui/app.py)
        start = {"began": began, "open_cpu": open_cpu, "queue_cpu": queue_cpu, "opened": time.perf_counter()}
        PHASE[0] = "first"
        loop_began = process_cpu(), time.thread_time(), runner.call(time.thread_time).result()
        for k, assignment in enumerate(queue[:n]):
            runner.call(store.item, assignment.item_id).result()
            timings = Timings(utc_now(), 500, 2000, 1900, {"A": 1000, "B": 900}, {"A": 1.0, "B": 0.5}, 0)
            events = [
                Event(kind, time.monotonic_ns(), utc_now(), {"n": e}, assignment.id, annotator)
                for e, kind in enumerate(("item.shown", "key.label", "key.submit"))
            ]
            judgment = Judgment(assignment.id, "A" if assignment.position % 2 else "B", timings)
            if pause_ms:
                time.sleep(rng.expovariate(1000.0 / pause_ms))  # reading the item
            asked = time.perf_counter()
            try:
                _, cpu = runner.call(timed_call, store.submit, judgment, events).result()
            except Exception as exc:  # the point is to count every failure, whatever it is
                errors.append(f"submit: {type(exc).__name__}: {exc}")
                continue
            latencies.append((time.perf_counter() - asked) * 1000)
            if PHASE[0] == "first":
                PHASE[0] = ""
                start.update(submit_asked=asked, submit_done=time.perf_counter(), submit_cpu=cpu)
            if k % NAV_EVERY == NAV_EVERY - 1:
                nav = Event("nav.back", time.monotonic_ns(), utc_now(), {}, assignment.id, annotator)
                try:
                    runner.call(store.log_events, [nav]).result()
                    nav_events += 1
                except Exception as exc:
                    errors.append(f"log_events: {type(exc).__name__}: {exc}")
        loop_ended = process_cpu(), time.thread_time(), runner.call(time.thread_time).result()
        loop_cpu = tuple(b - a for a, b in zip(loop_began, loop_ended, strict=True))
        runner.close()
        store.close()
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    results.put((annotator, latencies, errors, open_ms, {**start, "turns": TURNS}, nav_events, loop_cpu,
                 process_cpu()))


def process_cpu() -> float:
    """This process's CPU time so far (user + system, every thread), in seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def print_starts(starts: list[dict[str, Any]], show_each: bool) -> None:
    """Where each annotator's start and first submit spent their time: waiting for the turn at the write
    lock, holding it (and the CPU its thread had meanwhile), or before and after the turn (ms)."""
    rows = []
    for st in starts:
        if "submit_asked" not in st:
            continue
        queue_turns = [t for t in st["turns"] if t[0] == "start"]
        first_turns = [t for t in st["turns"] if t[0] == "first"]
        asked = st["submit_asked"]
        rows.append({
            "begin": st["began"], "open_cpu": st["open_cpu"] * 1000, "queue_cpu": st["queue_cpu"] * 1000,
            "queue_turns": len(queue_turns),
            "queue_wait": sum(t[2] - t[1] for t in queue_turns) * 1000,
            "queue_hold": sum(t[3] - t[2] for t in queue_turns) * 1000,
            "queue_hold_cpu": sum(t[4] for t in queue_turns) * 1000,
            "queue_released": max((t[3] for t in queue_turns), default=st["opened"]),
            "asked": asked, "latency": (st["submit_done"] - asked) * 1000, "cpu": st["submit_cpu"] * 1000,
            "before": (first_turns[0][1] - asked) * 1000 if first_turns else float("nan"),
            "wait": sum(t[2] - t[1] for t in first_turns) * 1000,
            "hold": sum(t[3] - t[2] for t in first_turns) * 1000,
            "hold_cpu": sum(t[4] for t in first_turns) * 1000,
            "after": (st["submit_done"] - first_turns[-1][3]) * 1000 if first_turns else float("nan"),
        })
    if not rows:
        return
    for row in rows:  # how many others' queue writes had still to end when this first submit was asked
        row["queues_after"] = sum(1 for other in rows if other is not row and other["queue_released"] > row["asked"])

    def mm(key: str) -> str:
        values = sorted(r[key] for r in rows)
        return f"{statistics.median(values):.1f}/{values[-1]:.1f}"

    print(f"  starts, median/max ms of the {len(rows)}: queue write: CPU of the start {mm('queue_cpu')} (open"
          f" {mm('open_cpu')}), wait for the turn {mm('queue_wait')}, turn held {mm('queue_hold')} (its CPU"
          f" {mm('queue_hold_cpu')}); first submit: {mm('latency')} = before the turn {mm('before')} + wait"
          f" {mm('wait')} + held {mm('hold')} (its CPU {mm('hold_cpu')}) + after {mm('after')}; its thread's CPU"
          f" {mm('cpu')}; others' queue writes still to end when it was asked {mm('queues_after')}")
    if show_each:
        t0 = min(r["begin"] for r in rows)
        print("  per process, ms from the barrier: queue turn asked-got-released (CPU held) | first submit asked,"
              " turn asked-got-released (CPU held), done | CPU of the first submit's thread")
        for r in sorted(rows, key=lambda r: r["asked"]):
            released = (r["queue_released"] - t0) * 1000
            got = released - r["queue_hold"]
            asked = (r["asked"] - t0) * 1000
            turn = asked + r["before"]
            print(f"    queue {got - r['queue_wait']:6.1f} -{got:6.1f} -{released:6.1f} ({r['queue_hold_cpu']:5.1f})"
                  f" | submit {asked:6.1f}, {turn:6.1f} -{turn + r['wait']:6.1f} -{turn + r['wait'] + r['hold']:6.1f}"
                  f" ({r['hold_cpu']:5.1f}), {asked + r['latency']:6.1f} | {r['cpu']:5.1f}")


def run(processes: int, judgments: int, folder: Path, pause_ms: float = 0.0, lock_wait: str = "queue",
        show_each: bool = False) -> dict[str, Any]:
    """Run the stress test in `folder`; print the figures; return them, with "ok": every check passed."""
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
    procs = [context.Process(target=worker, args=(str(spec.path), name, judgments, barrier, results, pause_ms,
                                                  lock_wait))
             for name in annotators]
    start = time.perf_counter()
    for proc in procs:
        proc.start()
    collected = [results.get(timeout=600) for _ in procs]
    for proc in procs:
        proc.join()
    wall = time.perf_counter() - start
    latencies = sorted(x for _, lat, *_ in collected for x in lat)
    firsts = sorted(lat[0] for _, lat, *_ in collected if lat)
    later = sorted(x for _, lat, *_ in collected for x in lat[1:])
    errors = [e for _, _, errs, *_ in collected for e in errs]
    opens = sorted(o for _, _, _, o, *_ in collected)
    starts = [st for *_, st, _, _, _ in collected]
    nav_events = sum(n for *_, n, _, _ in collected)
    cpu_s = sum(c for *_, c in collected)
    loop_process, loop_caller, loop_store = (sum(loop[i] for *_, loop, _ in collected) for i in range(3))
    with Store.open(spec.db) as store:
        stored = len(store.judgments())
        events = len(store.events())
        per_annotator = {name: len(store.judgments(name)) for name in annotators}
        integrity = store.db.execute("PRAGMA integrity_check").fetchone()[0]
    expected = processes * judgments
    expected_events = EVENTS_PER_SUBMIT * expected + nav_events
    p99 = percentile(latencies, 0.99)
    pace = f"reading for a mean {pause_ms:g} ms before each submit" if pause_ms else "no pause between submits"
    print(f"{processes} processes x {judgments} judgments on one file, all starting at once, {pace}; lock wait:"
          f" {lock_wait} ({wall:.1f} s wall, load average {os.getloadavg()[0]:.2f})")
    print(f"judgments stored {stored} of {expected} (every annotator {min(per_annotator.values())}"
          f"-{max(per_annotator.values())}); events stored {events} of {expected_events}")
    print(f"errors reaching a user: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    print(f"integrity_check: {integrity}")
    print(f"rows lost: {expected - stored} judgments, {expected_events - events} events")
    if latencies:
        print(f"write latency per submit (queued on the app's store thread until durable): "
              f"median {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, max {latencies[-1]:.1f} ms"
              f" (p90 {percentile(latencies, 0.9):.1f} ms, p999 {percentile(latencies, 0.999):.1f} ms)")
    if firsts and later:
        print(f"  each annotator's first submit (while the others start): median {statistics.median(firsts):.1f} ms,"
              f" max {firsts[-1]:.1f} ms; the submits after it: median {statistics.median(later):.1f} ms,"
              f" p99 {percentile(later, 0.99):.1f} ms, max {later[-1]:.1f} ms")
    if opens:
        print(f"open + queue at start: median {statistics.median(opens):.0f} ms, max {opens[-1]:.0f} ms")
    print_starts(starts, show_each)
    print(f"CPU time of the {processes} processes: {cpu_s:.1f} s ({cpu_s / max(1, expected) * 1000:.1f} ms a submit,"
          f" start-up included); {expected / wall:.0f} submits a second over the whole run")
    per = 1000 / max(1, expected)
    print(f"CPU a submit in the submit loop (start-up excluded; the item read, the events, the nav events included):"
          f" {loop_process * per:.2f} ms: the store thread {loop_store * per:.2f} ms, the caller"
          f" {loop_caller * per:.2f} ms, other threads {(loop_process - loop_store - loop_caller) * per:.2f} ms")
    ok = (stored == expected and set(per_annotator.values()) == {judgments} and events == expected_events
          and not errors and integrity == "ok")
    print("PASS" if ok else "FAIL")
    return {"ok": ok, "lock_wait": lock_wait, "latencies": latencies, "later": later,
            "lost": expected - stored + expected_events - events, "errors": len(errors), "wall": wall, "cpu": cpu_s,
            "loop_cpu_ms": loop_process * per, "load": os.getloadavg()[0],
            "open_max": opens[-1] if opens else float("nan"), "integrity": integrity}


def print_table(runs: list[dict[str, Any]], processes: int, lone: dict[str, Any]) -> None:
    """The runs side by side (markdown), for docs/scaling.md, under the lone writer's anchor."""
    alone = statistics.median(lone["latencies"])
    print(f"anchor, one writer alone: median {alone:.1f} ms, p99 {percentile(lone['latencies'], 0.99):.0f} ms"
          f" (load {lone['load']:.1f}); {processes} writers back to back cannot beat about {processes} x"
          f" {alone:.1f} = {processes * alone:.0f} ms at the median")
    print("| lock wait | p50 / p99 / max write latency | p99 after the first submits | lost rows | errors"
          " | slowest start | CPU | CPU a submit (loop) | wall | load |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        lat = r["latencies"]
        figures = (f"{statistics.median(lat):.1f} / {percentile(lat, 0.99):.0f} / {lat[-1]:.0f} ms" if lat
                   else "none")
        later = f"{percentile(r['later'], 0.99):.0f} ms" if r["later"] else "none"
        print(f"| {r['lock_wait']} | {figures} | {later} | {r['lost']} | {r['errors']} | {r['open_max'] / 1000:.1f} s"
              f" | {r['cpu']:.1f} s | {r['loop_cpu_ms']:.2f} ms | {r['wall']:.1f} s | {r['load']:.1f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=10)
    parser.add_argument("--judgments", type=int, default=100, help="per process")
    parser.add_argument("--pause-ms", type=float, default=0.0,
                        help="Mean time reading before each submit (default: none).")
    parser.add_argument("--lock-wait", choices=LOCK_WAITS, default="queue",
                        help="How a writer waits for the lock: queue (the app's), polls or sqlite (before).")
    parser.add_argument("--compare", action="store_true", help="Run each way of waiting in turn, and tabulate them.")
    parser.add_argument("--starts", action="store_true",
                        help="Print each process's start and first submit on the write lock's timeline.")
    parser.add_argument("--dir", type=Path, default=None, help="Where to put the session (default: a temp folder).")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="annotate-stress-"))
    waits = LOCK_WAITS if args.compare else (args.lock_wait,)
    lone = run(1, args.judgments, folder / "alone", args.pause_ms, "queue") if args.compare else None
    print()
    runs = []
    for wait in waits:
        runs.append(run(args.processes, args.judgments, folder / wait, args.pause_ms, wait, args.starts))
        print()
    if lone is not None:
        print_table(runs, args.processes, lone)
    return 0 if all(r["ok"] for r in [*runs, *([lone] if lone else [])]) else 1


if __name__ == "__main__":
    sys.exit(main())
