"""A newcomer's first start on a large session: the default queue written in one transaction (the code
before, kept here as `old_first_queue`) against a chunk a transaction (`DefaultQueueWriter`), while
another annotator submits judgments nonstop through its own Store in another process. "new" is always
chunked here (`--chunk-rows`, default CHUNK_ROWS), also below `WHOLE_QUEUE_ROWS`, where the app writes a
queue in one transaction, as the old code did.

For each size it builds a session of N short items (`store.add_items`, as bench/stress_concurrent.py
does), gives the submitting annotator a queue, starts the submitter, then runs the newcomer's start
`--rounds` times alternately old, new, old, new... (a fresh annotator each time) and prints, per start:
the time to the first chunk stored (the whole queue for the old code), to the complete queue, the
longest hold of the write lock (wall, and the newcomer's CPU while it held it), the newcomer's CPU
in all, and the other writer's submit latency meanwhile (p50 / p99 / max over the submits asked
between the newcomer's start and its complete queue), beside the host's load.

    python bench/bench_first_queue.py [--sizes 10k,100k] [--rounds 2] [--chunk-rows 1000] [--dir FOLDER]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from annotate.model import Item, Judgment, Message, Response, Timings
from annotate.plan import PLAN_META_KEY, ensure_queue
from annotate.plan.default import CHUNK_ROWS, DEFAULT_QUEUE_META, DefaultQueueWriter, _new_part
from annotate.session import create_session, load_session
from annotate.spec import SessionSpec
from annotate.store import Store, utc_now

SUBMITTER = "reader"


def old_first_queue(store: Store, spec: SessionSpec, annotator: str) -> None:
    """`ensure_default_queue` as it was before chunks (commit e28079b): the whole queue in one transaction."""
    if store.get_meta(PLAN_META_KEY):
        return
    newest = store.newest_item_rowid()
    key = DEFAULT_QUEUE_META + annotator
    covered = store.get_meta(key)
    if covered is not None and int(covered) >= newest:
        return
    existing = store.assignments(annotator)
    items = store.count_items(), store.newest_item_rowid()
    drawn = list(_new_part(spec, annotator, existing, store.item_ids()))  # every Assignment made, as then
    store.prepare_assignment_writes()
    with store.transaction():
        if store.get_meta(PLAN_META_KEY):
            return
        now = store.assignments(annotator)
        if now != existing or (store.count_items(), store.newest_item_rowid()) != items:
            drawn = list(_new_part(spec, annotator, now, store.item_ids()))
        if drawn:
            store.insert_assignments(drawn)
        store.set_meta(key, str(newest))


@contextmanager
def lock_holds(store: Store, holds: list[tuple[float, float]]) -> Iterator[None]:
    """Log (wall, CPU of this thread) of every outermost transaction `store` runs meanwhile in `holds`."""
    original = store.transaction
    depth = [0]

    @contextmanager
    def timed() -> Iterator[Any]:
        with original() as db:
            depth[0] += 1
            began, cpu = time.perf_counter(), time.thread_time()
            try:
                yield db
            finally:
                depth[0] -= 1
                if not depth[0]:
                    holds.append((time.perf_counter() - began, time.thread_time() - cpu))

    store.transaction = timed  # type: ignore[method-assign]
    try:
        yield
    finally:
        store.transaction = original  # type: ignore[method-assign]


def submitter(spec_path: str, ready: Any, stop: Any, results: Any, pause_ms: float) -> None:
    """Submit a judgment after another on SUBMITTER's queue until `stop`; put (asked, latency s) of each."""
    spec = load_session(spec_path)
    store = Store.open(spec.db)
    queue = ensure_queue(store, spec, SUBMITTER)
    store.db.load()
    samples: list[tuple[float, float]] = []
    ready.set()
    k = 0
    while not stop.is_set():
        assignment = queue[k % len(queue)]
        k += 1
        judgment = Judgment(assignment.id, "A" if k % 2 else "B", Timings(utc_now(), 500, 2000, 1900))
        asked = time.perf_counter()
        store.submit(judgment, [])
        samples.append((asked, time.perf_counter() - asked))
        if pause_ms:
            time.sleep(pause_ms / 1000)
    store.close()
    results.put(samples)


def newcomer(store: Store, spec: SessionSpec, name: str, mode: str, chunk_rows: int) -> dict[str, Any]:
    """One newcomer's start; its figures."""
    holds: list[tuple[float, float]] = []
    began, cpu = time.perf_counter(), time.process_time()
    with lock_holds(store, holds):
        if mode == "old":
            old_first_queue(store, spec, name)
            first = time.perf_counter()
        else:
            writer = DefaultQueueWriter(store, spec, name, chunk_rows=chunk_rows)
            more = writer.write_chunk()
            first = time.perf_counter()
            while more:
                more = writer.write_chunk()
    done = time.perf_counter()
    return {"mode": mode, "began": began, "done": done, "first_s": first - began, "complete_s": done - began,
            "cpu_s": time.process_time() - cpu, "holds": len(holds), "hold_s": max(h[0] for h in holds),
            "hold_cpu_s": max(h[1] for h in holds), "rows": len(store.assignments(name))}


def percentile(ordered: Sequence[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_size(n: int, folder: Path, rounds: int, chunk_rows: int, pause_ms: float) -> bool:
    spec = create_session(f"first{n}", "pairwise", seed=1, folder=folder / "sessions")
    with Store.open(spec.db) as store:
        store.add_items([
            Item(f"item{i:07d}", "pairwise", (Message("user", f"prompt {i}"),),
                 (Response("A", f"a{i}", "m1"), Response("B", f"b{i}", "m2")))
            for i in range(n)
        ])
    context = mp.get_context("spawn")
    ready, stop, results = context.Event(), context.Event(), context.Queue()
    proc = context.Process(target=submitter, args=(str(spec.path), ready, stop, results, pause_ms))
    proc.start()
    ready.wait(600)
    store = Store.open(spec.db)
    store.db.load()  # the app makes it after the first paint; not part of the start measured here
    time.sleep(1.0)  # submits before any start: the baseline
    runs = []
    for r in range(rounds):
        for mode in ("old", "new"):
            runs.append(newcomer(store, spec, f"new-{mode}-{r}", mode, chunk_rows) | {"load": os.getloadavg()[0]})
            time.sleep(0.5)
    stop.set()
    samples = results.get(timeout=600)
    proc.join()
    store.close()
    first_start = runs[0]["began"]
    base = sorted(lat for asked, lat in samples if asked < first_start)
    print(f"\n{n} items, chunk {chunk_rows} rows; the other writer alone before: {len(base)} submits, "
          f"p50 {statistics.median(base) * 1000:.1f} / p99 {percentile(base, 0.99) * 1000:.1f} ms")
    print("| start | first chunk | complete queue | longest lock hold (CPU) | transactions | newcomer CPU |"
          " other's submits meanwhile: n, p50 / p99 / max | load |")
    print("|---|---|---|---|---|---|---|---|")
    ok = True
    for run in runs:
        during = sorted(lat for asked, lat in samples if run["began"] <= asked <= run["done"])
        ok = ok and run["rows"] == n
        figures = (f"{len(during)}, {statistics.median(during) * 1000:.1f} / {percentile(during, 0.99) * 1000:.1f}"
                   f" / {during[-1] * 1000:.1f} ms" if during else "0")
        print(f"| {run['mode']} | {run['first_s'] * 1000:.0f} ms | {run['complete_s'] * 1000:.0f} ms |"
              f" {run['hold_s'] * 1000:.1f} ms ({run['hold_cpu_s'] * 1000:.1f} ms) | {run['holds']} |"
              f" {run['cpu_s']:.2f} s | {figures} | {run['load']:.1f} |")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10k,100k")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--chunk-rows", type=int, default=CHUNK_ROWS)
    parser.add_argument("--pause-ms", type=float, default=0.0, help="the other writer's pause between submits")
    parser.add_argument("--dir", type=Path)
    args = parser.parse_args()
    sizes = [int(s.lower().replace("k", "000").replace("m", "000000")) for s in args.sizes.split(",")]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            folder = (args.dir or Path(tmp)) / f"n{n}"
            folder.mkdir(parents=True, exist_ok=True)
            ok = run_size(n, folder, args.rounds, args.chunk_rows, args.pause_ms) and ok
    print("every queue complete" if ok else "INCOMPLETE QUEUE")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
