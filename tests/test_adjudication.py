"""Adjudication data path: which items are in disagreement, the adjudicator's queue, the labels."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.adjudication import (
    ADJUDICATION,
    Vote,
    adjudicated_labels,
    disagreements,
    ensure_adjudication_queue,
    reference_labels,
    vote_text,
)
from annotate.cli import main
from annotate.model import Assignment, Judgment, Timings
from annotate.plan import Rates, apply_plan, ensure_queue
from annotate.session import create_session, open_store
from annotate.store.frames import votes_frame
from tests.conftest import make_item


def timings() -> Timings:
    return Timings(shown_at="2025-01-01T00:00:00+00:00", first_input_ms=10, submit_ms=500, active_ms=400)


def answer(store, annotator: str, item_id: str, label: str | None, purpose: str = "main", **kw) -> None:
    (a,) = [x for x in store.assignments(annotator) if x.item_id == item_id and x.purpose == purpose]
    store.submit(Judgment(a.id, label, timings(), **kw))


@pytest.fixture
def team(tmp_path: Path):
    """Six items (q05 has gold), alice and bob on every item."""
    spec = create_session("adj", "pairwise", seed=4, folder=tmp_path / "sessions")
    store = open_store(spec)
    store.add_items([make_item(f"q{i:02d}", gold="A" if i == 5 else None) for i in range(6)])
    apply_plan(store, spec, ["alice", "bob"], 2, Rates(), 4)
    for i in range(6):
        answer(store, "alice", f"q{i:02d}", "A", rationale=f"alice on {i}")
    answer(store, "bob", "q00", "B", confidence=4)
    answer(store, "bob", "q01", "A")
    answer(store, "bob", "q02", "tie")
    answer(store, "bob", "q03", None, skip_reason="unclear")
    answer(store, "bob", "q05", "B")
    yield spec, store
    store.close()


def test_disagreements_leave_out_agreement_skips_and_gold(team) -> None:
    _spec, store = team
    found = disagreements(store)
    assert [d.item_id for d in found] == ["q00", "q02"]
    assert found[0].labels == ("A", "B")
    assert {v.annotator: (v.label, v.confidence) for v in found[0].votes} == {"alice": ("A", None), "bob": ("B", 4)}
    assert store.disagreements() == ["q00", "q02", "q05"]


def test_the_adjudication_queue_is_separate_and_grows(team) -> None:
    spec, store = team
    queue = ensure_adjudication_queue(store, spec, "carol")
    assert [a.item_id for a in queue] == ["q00", "q02"]
    assert all(a.purpose == ADJUDICATION for a in queue)
    assert sorted(a.swapped for a in queue) == [False, True]
    assert ensure_adjudication_queue(store, spec, "carol") == queue
    assert ensure_queue(store, spec, "carol") == []  # the plan does not name carol
    # alice is not given items she judged herself
    assert ensure_adjudication_queue(store, spec, "alice") == []
    # a new disagreement is appended; a revision that settles one keeps its assignment
    answer(store, "bob", "q04", "both_bad")
    answer(store, "bob", "q02", "A")
    grown = ensure_adjudication_queue(store, spec, "carol")
    assert [a.item_id for a in grown] == ["q00", "q02", "q04"]
    assert grown[2].position == queue[1].position + 1


def test_adjudicated_labels_are_gold_for_reports(team) -> None:
    spec, store = team
    queue = ensure_adjudication_queue(store, spec, "carol")
    store.submit(Judgment(queue[0].id, "B", timings()))
    store.submit(Judgment(queue[1].id, "tie", timings()))
    assert adjudicated_labels(store) == {"q00": "B", "q02": "tie"}
    assert reference_labels(store) == {"q00": "B", "q02": "tie", "q05": "A"}
    # a second adjudicator who disagrees leaves that item without an adjudicated label
    (dave,) = [a for a in ensure_adjudication_queue(store, spec, "dave") if a.item_id == "q00"]
    store.submit(Judgment(dave.id, "A", timings()))
    assert adjudicated_labels(store) == {"q02": "tie"}
    votes = votes_frame(store)
    assert set(votes.loc[votes["purpose"] == ADJUDICATION, "rater"]) == {"carol", "dave"}


def test_vote_text_uses_the_adjudicators_sides() -> None:
    vote = Vote("alice", "A", "", None, swapped=False)
    assert vote_text(vote, "pairwise", swapped=False) == "Left better"
    assert vote_text(vote, "pairwise", swapped=True) == "Right better"
    assert vote_text(Vote("bob", "tie", "", None, True), "pairwise", swapped=False) == "Tie"
    assert vote_text(Vote("bob", "7", "", None, False), "single", swapped=False) == "grade 7"


def test_rubric_sessions_cannot_be_adjudicated(tmp_path: Path) -> None:
    spec = create_session("rub", "rubric", seed=1, folder=tmp_path / "sessions")
    with open_store(spec) as store, pytest.raises(ValueError, match="not rubric"):
        ensure_adjudication_queue(store, spec, "carol")


def test_cli_lists_disagreements(team) -> None:
    spec, store = team
    queue = ensure_adjudication_queue(store, spec, "carol")
    store.submit(Judgment(queue[0].id, "B", timings()))
    result = CliRunner().invoke(main, ["adjudicate", str(spec.path), "--annotator", "carol", "--list"])
    assert result.exit_code == 0, result.output
    assert "q00: alice A, bob B  -> adjudicated B" in result.output
    assert "2 items in disagreement, 1 adjudicated" in result.output


def test_adjudication_assignments_never_count_as_plan(team) -> None:
    from annotate.plan import verify_plan

    spec, store = team
    ensure_adjudication_queue(store, spec, "carol")
    assert verify_plan(store) is True
    applied = apply_plan(store, spec, ["alice", "bob", "carol"], 2, Rates(), 4)
    assert not [a for a in applied.added if a.annotator == "carol" and a.item_id in {"q00", "q02"}]
    assert all(isinstance(a, Assignment) for a in applied.added)



def test_report_leaves_adjudications_out_of_votes_and_uses_them_as_gold(team) -> None:
    from annotate.report.build import build_report

    spec, store = team
    ensure_adjudication_queue(store, spec, "carol")
    answer(store, "carol", "q00", "B", purpose=ADJUDICATION)
    data = build_report(spec, store, n_boot=0).data
    assert data["session"]["excluded"]["adjudication"] == 1
    assert data["session"]["n_raters"] == 2
    assert data["agreement"]["overall"]["krippendorff_alpha"]["n_raters"] == 2
    gold = {row["rater"]: (row["k"], row["n"]) for row in data["quality"]["gold"]}
    # q05 carries its own gold (A): alice right, bob wrong; q00 is adjudicated B: alice wrong, bob right.
    assert gold["alice"] == (1, 2)
    assert gold["bob"] == (1, 2)


def test_items_export_carries_the_adjudicated_label(team) -> None:
    from annotate.formats.export import export_rows

    spec, store = team
    ensure_adjudication_queue(store, spec, "carol")
    answer(store, "carol", "q02", "tie", purpose=ADJUDICATION)
    columns, rows = export_rows(store, "items")
    assert "adjudicated" in columns
    assert {row["id"]: row["adjudicated"] for row in rows if row["adjudicated"]} == {"q02": "tie"}


def test_vote_text_of_a_graded_vote_reads_in_the_adjudicators_sides() -> None:
    from annotate.design import Graded, LabelSchema

    schema = LabelSchema.pairwise(Graded(points=5, both_bad=True))
    vote = Vote("amy", "+2", "", None, False)
    assert vote_text(vote, "pairwise", swapped=False, schema=schema) == "Left much better"
    assert vote_text(vote, "pairwise", swapped=True, schema=schema) == "Right much better"
    assert vote_text(Vote("bo", "both_bad", "", None, True), "pairwise", swapped=False, schema=schema) == "Both bad"
