"""Judgments on items without gold: the suggestion's correctness is unknown, so they stay out of over-
and under-reliance, the anchoring effect, susceptibility and the debrief's wrong / right counts, but
still count in agreement with the suggestion. A real session: items with and without gold,
suggestions imported from a file, judgments submitted through the Store."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from annotate.cli import main
from annotate.model import Assignment, Judgment, Timings
from annotate.report.build import build_report
from annotate.session import create_session, load_session, open_store
from annotate.store.suggestion_frames import anchoring_frame

GOLD = {"g1": "A", "g2": "A", "g3": "A", "g4": "A"}
SUGGESTED = {"g1": "A", "g2": "A", "g3": "B", "g4": "B", "n1": "A", "n2": "A", "n3": "B", "n4": "B"}
"""g1, g2: right; g3, g4: wrong; n1..n4: no gold, so neither."""


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _session(project: Path) -> str:
    spec = create_session("nogold", "pairwise", seed=5, folder=project / "sessions")
    with (project / "items.jsonl").open("w", encoding="utf-8") as out:
        for item_id in SUGGESTED:
            record = {"id": item_id, "prompt": f"question {item_id}",
                      "responses": {"A": {"text": f"a {item_id}", "model": "m-a"},
                                    "B": {"text": f"b {item_id}", "model": "m-b"}}}
            if item_id in GOLD:
                record["gold"] = GOLD[item_id]
            out.write(json.dumps(record) + "\n")
    cli("import", "nogold", "items.jsonl")
    (project / "judge.csv").write_text("item,rater,label\n" + "".join(
        f"{item},judge,{label}\n" for item, label in SUGGESTED.items()))
    cli("labels", "import", "nogold", "judge.csv", "--as-suggestions")
    now = datetime.now(UTC).isoformat()
    with open_store(spec) as store:
        by_item = {s.item_id: s for s in store.suggestions()}
        for annotator, condition in (("alice", "upfront"), ("bob", "none")):
            for position, item_id in enumerate(SUGGESTED):
                [a] = store.add_assignments([Assignment(0, annotator, item_id, position, condition=condition,
                                                        suggestion_id=by_item[item_id].id)])
                shown = condition == "upfront"
                # alice follows every shown suggestion; bob always answers A
                label = by_item[item_id].label if shown else "A"
                store.submit(Judgment(a.id, label, Timings(now, 300, 6000, 5000,
                                                           suggestion_ms=4000 if shown else None)))
    return "nogold"


def test_items_without_gold_have_unknown_correctness(project: Path) -> None:
    name = _session(project)
    spec = load_session(name)
    with open_store(spec) as store:
        frame = anchoring_frame(store)
        data = build_report(spec, store, n_boot=50).data["suggestions"]
    no_gold = frame[frame["item"].str.startswith("n")]
    assert len(no_gold) == 8 and no_gold["suggestion_correct"].isna().all()
    with_gold = frame[frame["item"].str.startswith("g")].set_index(["annotator", "item"])
    assert with_gold.loc[("bob", "g3"), "suggestion_correct"] is False
    assert with_gold.loc[("bob", "g1"), "suggestion_correct"] is True

    by = {c["condition"]: c for c in data["conditions"]}
    # the reliance table: two wrong and two right suggestions per condition, never the eight without gold
    assert (by["upfront"]["n_wrong"], by["upfront"]["n_right"]) == (2, 2)
    assert (by["none"]["n_wrong"], by["none"]["n_right"]) == (2, 2)
    assert by["upfront"]["over_reliance"]["estimate"] == 1.0
    assert by["none"]["over_reliance"]["estimate"] == 0.0  # bob answered A where the judge said B
    assert by["none"]["over_reliance"]["n_pairable"] == 2
    # agreement with the suggestion counts every judgment that had one
    assert by["upfront"]["n"] == 8 and by["upfront"]["agree"]["estimate"] == 1.0
    assert by["none"]["agree"]["estimate"] == 0.5  # bob's A matches g1, g2, n1, n2
    [effect] = data["effects"]
    assert effect["delta"]["estimate"] == 1.0 and effect["delta"]["n_pairable"] == 4
    suscept = {a["annotator"]: a for a in data["annotators"]}
    assert suscept["alice"]["n_wrong_shown"] == 2 and suscept["alice"]["susceptibility"] == 1.0

    out = cli("debrief", name, "--annotator", "alice")
    assert "Suggestions you saw: 8 (of 8 judgments)." in out
    assert "(planted or the AI's own mistakes): 2; you went along with 2 (100 %)" in out
    assert "Right suggestions you saw: 2; you disagreed with 0 (0 %)" in out
