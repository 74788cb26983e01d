"""Pull the power cord: SIGKILL an annotating process at random moments, over and over.

A scripted annotator process resumes at its first unfinished item, submits judgments through the
same Store.submit the app uses, and prints each assignment id once its submit has returned. The
test kills it at random moments at least 20 times; after every kill each reported judgment must be
there, the file must pass `PRAGMA integrity_check`, and the next start must resume at the first
assignment without a judgment.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

from conftest import make_item

from annotate.model import Assignment
from annotate.store import Store

ANNOTATOR = r"""
import sys, time
from annotate.model import Event, Judgment, Timings
from annotate.store import Store, utc_now
store = Store.open(sys.argv[1])
queue = store.assignments("alice")
print("ready", flush=True)
while True:
    position = store.progress("alice").next_position
    if position is None:
        break
    assignment = queue[position]
    events = [Event("key.label", time.monotonic_ns(), utc_now(), {"side": "left"}, assignment.id, "alice")]
    store.submit(Judgment(assignment.id, "A", Timings(utc_now(), 10, 20, 20)), events)
    print(assignment.id, flush=True)
print("done", flush=True)
"""


def test_sigkill_never_loses_a_submitted_judgment(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    n_items = 3000
    with Store.open(path, create=True) as store:
        store.add_items([make_item(f"i{k:03d}") for k in range(n_items)])
        store.add_assignments([Assignment(0, "alice", f"i{k:03d}", k, bool(k % 2)) for k in range(n_items)])
    rng = random.Random(20261130)
    reported: set[int] = set()
    kills = 0
    finished = False
    while kills < 25 and not finished:
        proc = subprocess.Popen([sys.executable, "-c", ANNOTATOR, str(path)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"  # start-up time varies with load; kill mid-work
        time.sleep(rng.uniform(0.0, 0.4))
        proc.kill()
        out, _ = proc.communicate()
        kills += 1
        lines = out.split()
        finished = "done" in lines
        reported.update(int(x) for x in lines if x.isdigit())
        with Store.open(path) as store:
            assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            judged = {j.assignment_id for j in store.judgments("alice")}
            assert reported <= judged, f"lost after kill {kills}: {sorted(reported - judged)[:5]}"
            progress = store.progress("alice")
            expected_next = next((a.position for a in store.assignments("alice") if a.id not in judged), None)
            assert progress.next_position == expected_next
            assert len(store.judgments("alice", include_superseded=True)) == len(judged)
    assert kills >= 20, f"only {kills} kills before the queue was finished"
    assert reported, "the annotator never got to submit anything"
