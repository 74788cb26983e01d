"""The issue's scenario, tried as a new user would: a lead plans three annotators with overlap 2
and a 10 % gold rate, the three annotate at once from their own processes on one file, and the
agreement figures fill in."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from annotate.cli import main
from annotate.session import load_session, open_store

DEMO_ITEMS = Path(__file__).resolve().parents[1] / "annotate" / "demo" / "items.jsonl"

ANNOTATOR = r"""
import random, sys, time
from annotate.model import Event, Judgment, Timings
from annotate.plan import ensure_queue
from annotate.spec import load_spec
from annotate.store import Store

spec_path, name = sys.argv[1], sys.argv[2]
spec = load_spec(spec_path)
with Store.open(spec.db) as store:
    queue = ensure_queue(store, spec, name)
    for assignment in queue:
        item = store.item(assignment.item_id)
        truth = random.Random(item.id).choice(["A", "A", "B", "tie"])
        rng = random.Random(f"{name}:{item.id}")
        label = item.gold or truth if rng.random() < 0.8 else rng.choice(["A", "B", "tie", "both_bad"])
        now = time.monotonic_ns()
        shown = Event("item.shown", now, "2025-01-01T00:00:00+00:00", {}, assignment.id, name)
        store.submit(
            Judgment(assignment.id, label, Timings("2025-01-01T00:00:00+00:00", 300, 4000, 3500)),
            [shown, Event("key.submit", now + 1, "2025-01-01T00:00:04+00:00", {}, assignment.id, name)],
        )
    print(len(queue))
"""


def test_three_annotators_overlap_two_gold_ten_percent(project: Path) -> None:
    cli = CliRunner()
    assert cli.invoke(main, ["init", "team", "--kind", "pairwise", "--seed", "7"]).exit_code == 0
    imported = cli.invoke(main, ["import", "team", str(DEMO_ITEMS)])
    assert imported.exit_code == 0, imported.output
    planned = cli.invoke(main, ["plan", "team", "--annotators", "alice,bob,carol", "--overlap", "2",
                                "--gold-rate", "0.1"])
    assert planned.exit_code == 0, planned.output
    spec = load_session("team")
    assert spec.plan.annotators == ("alice", "bob", "carol") and spec.plan.overlap == 2

    workers = [
        subprocess.Popen([sys.executable, "-c", ANNOTATOR, str(spec.path), name], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for name in ("alice", "bob", "carol")
    ]
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
        assert int(out) == 29

    with open_store(spec) as store:
        judgments = store.judgments()
        assert Counter(store.assignment(j.assignment_id).annotator for j in judgments) == {
            "alice": 29, "bob": 29, "carol": 29,
        }
        assert Counter(store.assignment(j.assignment_id).purpose for j in judgments) == {"main": 78, "gold": 9}
        assert len(store.events()) == 2 * 87
        plan_hash = store.get_meta("plan_hash")

    status = cli.invoke(main, ["status", "team"])
    assert status.exit_code == 0, status.output
    assert plan_hash and plan_hash in status.output
    for name in ("alice", "bob", "carol"):
        line = next(row for row in status.output.splitlines() if row.startswith(name))
        assert line.split()[2:5] == ["29", "0", "29"]
    assert "items judged by every annotator assigned:" in status.output
    full = status.output.split("items judged by every annotator assigned:")[1].split()
    assert full[0] == full[2]

    from annotate.analysis.agreement import agreement_table, ratings_matrix
    from annotate.store.frames import votes_frame

    with open_store(spec) as store:
        votes = votes_frame(store)
    votes = votes[(votes["source"] == "judgment") & votes["purpose"].isin(["main", "gold"])]
    matrix, units, raters, categories = ratings_matrix(votes, unit="item", rater="rater", label="label")
    table = agreement_table(matrix, "nominal", categories, raters, n_boot=50, seed=1)
    assert len(units) == 44 and set(raters) == {"alice", "bob", "carol"}
    assert 0.0 < table.krippendorff_alpha.estimate <= 1.0
    assert len(table.cohen_kappa) == 3 and all(pair.n_units >= 5 for pair in table.cohen_kappa)

    report = cli.invoke(main, ["report", "team", "--format", "json", "--bootstrap", "20"])
    assert report.exit_code == 0, report.output
    overall = json.loads(report.output)["agreement"]["overall"]
    assert overall["krippendorff_alpha"]["n_units"] >= 40 and overall["krippendorff_alpha"]["n_raters"] == 3
    assert len(overall["cohen_kappa"]) == 3
