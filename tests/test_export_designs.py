"""Exports for the next step: preference pairs (chosen / rejected with the agreement behind them)
and answers per question, long and wide, in slot space with the side shown."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.cli import main
from annotate.formats import export
from annotate.formats.export_designs import DesignExportError, answer_rows, preference_rows
from annotate.model import Assignment, ExternalLabel, Judgment, Timings
from annotate.session import create_session, open_store
from tests.conftest import make_item

T = Timings("2024-01-01T00:00:00+00:00", 100, 5000, 5000)


def _judge(store, name: str, item: str, position: int, swapped: bool, label: str | None,
           scores: dict | None = None, purpose: str = "main") -> None:
    [a] = store.add_assignments([Assignment(0, name, item, position, swapped=swapped, purpose=purpose)])
    store.submit(Judgment(a.id, label, T, scores=scores or {}))


@pytest.fixture
def graded(tmp_path: Path):
    spec = create_session("gx", "pairwise", seed=1, folder=tmp_path / "sessions", design="graded-5")
    store = open_store(spec)
    store.add_items([make_item("q1", gold="B"), make_item("q2"), make_item("q3"), make_item("q4"), make_item("q5")])
    votes = {  # item: (alice, bob, carol) in slot space
        "q1": ("+1", "+2", "+1"),       # gold B wins over the majority
        "q2": ("+2", "+1", "-1"),       # majority A, 2 of 3
        "q3": ("0", "+1", "-1"),        # tie, A, B: no majority, no pair
        "q4": ("-2", "-2", "both_bad"),  # majority B
        "q5": ("0", "0", "+1"),         # majority tie: no pair
    }
    for n, (item, labels) in enumerate(votes.items()):
        for k, (name, label) in enumerate(zip(("alice", "bob", "carol"), labels, strict=True)):
            _judge(store, name, item, n, (n + k) % 2 == 0, label)
    # an LLM judge's votes never make the majority
    store.add_external_labels([ExternalLabel("judge.csv", "gpt", "llm", "q3", "+2")] * 1)
    yield spec, store
    store.close()


def test_preferences_chosen_rejected_with_agreement(graded) -> None:
    spec, store = graded
    rows = preference_rows(store, spec.schema)
    assert isinstance(rows, Iterator)  # a stream, one item at a time
    got = {r["item"]: r for r in rows}
    assert set(got) == {"q1", "q2", "q4"}
    q1, q2, q4 = got["q1"], got["q2"], got["q4"]
    assert (q1["label_source"], q1["chosen_slot"], q1["n_votes"], q1["n_agree"], q1["agreement"]) == \
        ("gold", "B", 3, 0, 0.0)
    assert q1["chosen"] == "right text" and q1["rejected"] == "left text" and q1["chosen_model"] == "m-b"
    assert (q2["label_source"], q2["chosen_slot"], q2["n_agree"]) == ("majority", "A", 2)
    assert q2["agreement"] == pytest.approx(2 / 3)
    assert q2["mean_strength"] == pytest.approx((2 + 1 - 1) / 3)
    assert (q4["chosen_slot"], q4["n_votes"], q4["n_agree"], q4["mean_strength"]) == ("B", 3, 2, 2.0)
    assert q2["prompt"] == "prompt q2" and q2["conversation"] == [{"role": "user", "content": "prompt q2"}]


def test_adjudicated_label_makes_the_pair(graded) -> None:
    spec, store = graded
    _judge(store, "dave", "q3", 0, True, "-2", purpose="adjudication")
    got = {r["item"]: r for r in preference_rows(store, spec.schema)}
    assert (got["q3"]["label_source"], got["q3"]["chosen_slot"]) == ("adjudicated", "B")


def test_answers_long_and_wide_in_slot_space_with_the_side_shown(graded) -> None:
    spec, store = graded
    long = list(answer_rows(store, spec.schema, layout="long"))
    assert len(long) == 15 and {r["question"] for r in long} == {"preference"}
    for r in long:
        if r["value"] == "both_bad":
            assert r["value_side"] == "both_bad" and r["number"] is None
            continue
        flipped = -int(r["value"]) if r["swapped"] else int(r["value"])
        assert int(r["value_side"]) == flipped
        assert r["preference"] == ("A" if int(r["value"]) > 0 else "B" if int(r["value"]) < 0 else "tie")
    wide = list(answer_rows(store, spec.schema, layout="wide"))
    assert len(wide) == 15 and {"preference", "preference_side"} <= set(wide[0])


@pytest.fixture
def aspects(tmp_path: Path):
    spec = create_session("ax", "pairwise", seed=1, folder=tmp_path / "sessions", design="aspects")
    store = open_store(spec)
    store.add_items([make_item("p1"), make_item("p2")])
    answers = [
        ("alice", "p1", False, {"correctness": "A", "helpfulness": "B", "safety": "tie", "overall": "+1"}),
        ("alice", "p2", True, {"correctness": "B", "helpfulness": "B", "safety": "A", "overall": "-2"}),
        ("bob", "p1", True, {"correctness": "A", "helpfulness": "A", "safety": "tie", "overall": "+2"}),
    ]
    for n, (name, item, swapped, scores) in enumerate(answers):
        _judge(store, name, item, n, swapped, scores["overall"], scores)
    yield spec, store, answers
    store.close()


def test_aspect_answers_wide_one_column_per_aspect(aspects) -> None:
    spec, store, answers = aspects
    wide = list(answer_rows(store, spec.schema, layout="wide"))
    assert [{k: r[k] for k in ("correctness", "helpfulness", "safety", "overall")} for r in wide] == \
        [a[3] for a in answers]
    second = wide[1]  # swapped: slot B on the left
    assert (second["correctness_side"], second["safety_side"], second["overall_side"]) == ("left", "right", "+2")
    long = list(answer_rows(store, spec.schema, layout="long"))
    assert len(long) == 12


def test_preferences_of_one_aspect(aspects) -> None:
    spec, store, _ = aspects
    helpful = {r["item"]: r for r in preference_rows(store, spec.schema, aspect="helpfulness")}
    assert helpful["p2"]["chosen_slot"] == "B" and "p1" not in helpful  # p1: A and B, no majority
    overall = {r["item"]: r for r in preference_rows(store, spec.schema)}
    assert overall["p1"]["chosen_slot"] == "A" and overall["p1"]["n_agree"] == 2
    with pytest.raises(DesignExportError, match="the session asks correctness, helpfulness, safety, overall"):
        preference_rows(store, spec.schema, aspect="tone")


def test_export_writes_preferences_as_jsonl_and_csv(graded, tmp_path: Path) -> None:
    spec, store = graded
    out = tmp_path / "pairs.jsonl"
    assert export(store, "preferences", "jsonl", output=out, schema=spec.schema) == 3
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {"prompt", "chosen", "rejected", "n_votes", "agreement", "label_source"} <= set(rows[0])
    buffer = io.StringIO()
    assert export(store, "answers", "csv", stream=buffer, schema=spec.schema, layout="wide") == 15
    assert next(csv.reader(io.StringIO(buffer.getvalue())))[-2:] == ["preference", "preference_side"]


def test_cli_bad_aspect_is_an_error_before_any_output(project: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["init", "ev", "--kind", "pairwise", "--design", "aspects"]).exit_code == 0
    result = runner.invoke(main, ["export", "ev", "--what", "preferences", "--aspect", "tone"])
    assert result.exit_code != 0 and "--aspect 'tone'" in result.output
    assert "item,prompt" not in result.output
    result = runner.invoke(main, ["init", "s", "--kind", "single", "--design", "graded-5"])
    assert result.exit_code != 0 and "designs are for --kind pairwise" in result.output
