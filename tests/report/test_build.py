"""`build_report` on the small session of conftest.py: each section's figures against hand counts."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest

from annotate.model import Assignment, Item, Judgment, Message, Response, Suggestion, Timings
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.session import create_session, open_store

from .conftest import EXPERT, ITEMS


@pytest.fixture
def data(session) -> dict:
    spec, store = session
    return build_report(spec, store, n_boot=200, seed=1).data


def by(rows: list[dict], key: str, value: object) -> dict:
    [found] = [r for r in rows if r[key] == value]
    return found


def test_session_facts(data: dict) -> None:
    s = data["session"]
    assert s["n_items"] == 6
    assert s["n_judgments"] == 19  # 3 experts x 6 + alice's repeat
    assert s["n_imported"] == 14  # crowd 2 x 4 + llm 6
    assert s["raters_per_cohort"] == {"crowd": 2, "expert": 3, "llm": 1}
    assert s["excluded"]["repeats_and_attention"] == 1


def test_expert_alpha_matches_the_krippendorff_package(data: dict) -> None:
    codes = {"A": 0, "B": 1, "tie": 2, "both_bad": 3}
    matrix = np.array([[codes[x] for x in labels] for labels in EXPERT.values()], dtype=float)
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    expert = by(data["agreement"]["per_cohort"], "cohort", "expert")
    assert expert["krippendorff_alpha"]["estimate"] == pytest.approx(expected)
    assert expert["krippendorff_alpha"]["n_units"] == 6
    assert expert["krippendorff_alpha"]["n_pairable"] == 18
    assert len(expert["cohen_kappa"]) == 3
    assert data["agreement"]["thresholds"] == {"reliable": 0.8, "tentative": 0.667}


def test_annotator_against_the_rest(data: dict) -> None:
    alice = by(data["agreement"]["per_annotator"], "rater", "alice")
    # the other humans' majority (the LLM judge is not one of them): A B A A B, i6 tied (both_bad vs A);
    # alice: A B A tie B (her repeat is not counted)
    assert alice["agreement"]["k"] == 4 and alice["agreement"]["n"] == 5
    assert alice["cohort"] == "expert"
    assert alice["kappa"]["n_units"] == 5
    assert "gpt" not in {r["rater"] for r in data["agreement"]["per_annotator"]}
    assert alice["alpha_without"] is not None


def test_per_category(data: dict) -> None:
    cats = {c["category"]: c for c in data["agreement"]["per_category"]}
    assert set(cats) == {"code", "chat"}
    assert cats["code"]["krippendorff_alpha"]["n_units"] == 3


def test_mt_bench_pairwise_agreement(data: dict) -> None:
    rows = data["pairwise"]["type_agreement"]
    expert = next(r for r in rows if r["type_x"] == "expert" and r["type_y"] == "expert")
    # pairs of experts per item: agreeing 3 1 3 1 3 1 of 3 each -> 12 / 18
    assert expert["with_ties"]["estimate"] == pytest.approx(12 / 18)
    assert expert["n_pairs_with_ties"] == 18
    # without ties: 3/3, 1/3, 3/3, none (only bob picked), 3/3, 1/1 -> 11 / 13
    assert expert["without_ties"]["estimate"] == pytest.approx(11 / 13)
    assert expert["n_pairs_without_ties"] == 13
    pairs = {(r["type_x"], r["type_y"]) for r in rows}
    # human cohorts only: the LLM judge is compared in its own section
    assert pairs == {("human", "human"), ("expert", "expert"), ("expert", "crowd"), ("crowd", "crowd")}
    majority = by(data["pairwise"]["majority"], "type_x", "expert")
    # expert majority A B A tie B A; crowd majority A B (tied) A: i1, i2, i4 kept, i3 dropped for a tied majority
    assert (majority["n_items"], majority["n_items_tied"], majority["rule"]) == (3, 1, "plurality")
    assert majority["with_ties"]["estimate"] == pytest.approx(2 / 3)


def test_llm_judge_against_each_human_cohort_and_the_human_majority(data: dict) -> None:
    rows = {r["against"]: r for r in data["judges"]["pairwise"] if r["judge"] == "gpt"}
    # gpt A B A tie B A against the experts' 3 votes per item: agreeing pairs 3 2 3 2 3 2 of 18
    assert rows["expert"]["with_ties"]["estimate"] == pytest.approx(15 / 18)
    assert rows["expert"]["n_pairs_with_ties"] == 18
    # human majority (experts and crowd): A B A A B A; gpt differs on i4 (tie), which has no pair without ties
    majority = rows["human majority"]
    assert majority["with_ties"]["estimate"] == pytest.approx(5 / 6) and majority["n_items"] == 6
    assert majority["without_ties"]["estimate"] == 1.0 and majority["n_pairs_without_ties"] == 5
    assert majority["n_items_tied"] == 0
    baseline = next(r for r in data["judges"]["pairwise"] if r["judge"] is None and r["against"] == "expert vs expert")
    assert baseline["with_ties"]["estimate"] == pytest.approx(12 / 18)


def test_confusion_between_cohorts(data: dict) -> None:
    matrix = next(c for c in data["pairwise"]["confusion"] if (c["x"], c["y"]) == ("expert", "crowd"))
    # i1 A/A, i2 B/B, i3 dropped (crowd split A/B), i4 expert tie / crowd A
    assert matrix["labels"] == ["A", "B", "tie"]
    assert matrix["counts"] == [[1, 0, 0], [0, 1, 0], [1, 0, 0]]
    assert matrix["n_items"] == 3


def test_biases(data: dict) -> None:
    position = data["biases"]["position"]
    alice = by(position["per_rater"], "rater", "alice")
    assert (alice["k"], alice["n"], alice["n_excluded"]) == (3, 6, 1)
    bob = by(position["per_rater"], "rater", "bob")
    assert (bob["k"], bob["n"]) == (3, 5)
    assert position["overall"]["n"] == 16 and position["overall"]["k"] == 9
    assert 0 <= position["overall"]["p_value"] <= 1
    length = data["biases"]["length"]
    # A is the longer response on every item: k = A votes among non-tie votes; humans pooled, the LLM judge apart
    assert length["overall"]["k"] == 15 and length["overall"]["n"] == 24
    assert length["llm"]["k"] == 3 and length["llm"]["n"] == 5
    assert length["overall"]["unit"] == "items" and length["overall"]["n_items"] == 6
    assert by(length["per_rater"], "rater", "bob")["unit"] == "votes"


def test_quality(data: dict) -> None:
    gold = data["quality"]["gold"]
    assert (gold[0]["k"], gold[0]["n"]) == (9, 11) and gold[0]["rater"] is None and gold[0]["pool"] == "human"
    assert (gold[1]["k"], gold[1]["n"], gold[1]["pool"]) == (2, 2, "llm")
    assert (by(gold, "rater", "alice")["k"], by(gold, "rater", "alice")["n"]) == (2, 3)
    assert (by(gold, "rater", "carol")["k"], by(gold, "rater", "carol")["n"]) == (1, 2)
    repeats = data["quality"]["repeats"]
    assert (by(repeats, "rater", "alice")["k"], by(repeats, "rater", "alice")["n"]) == (0, 1)
    timing = {t["rater"]: t for t in data["quality"]["timing"]}
    assert timing["alice"]["n"] == 7 and timing["alice"]["median_ms"] == 8000
    assert timing["alice"]["fast"]["k"] == 2
    assert timing["bob"]["fast"]["k"] == 0 and timing["bob"]["median_ms"] == 10_000
    assert data["quality"]["fast_threshold_ms"] == 3000


def test_ranking(data: dict) -> None:
    overall = data["ranking"]["overall"]
    assert data["ranking"]["overall_raters"] == "human"
    assert overall["n_battles"] == 26 and overall["n_items"] == 6 and overall["unit"] == "items"
    top = overall["models"][0]
    assert top["model"] == "m-a"
    assert (top["wins"], top["losses"], top["ties"]) == (15, 8, 3)
    assert top["win_rate"] == pytest.approx((15 + 1.5) / 26)
    # one verdict per item (plurality of the human votes): A B A A B A
    assert top["item_win_rate"] == pytest.approx(4 / 6) and top["items_dropped"] == 0
    assert top["rank"] == 1
    lo, hi = top["ci"]
    assert lo < top["rating"] < hi
    cohorts = {c["cohort"]: c for c in data["ranking"]["per_cohort"]}
    assert cohorts["expert"]["n_battles"] == 18 and cohorts["crowd"]["n_battles"] == 8
    assert cohorts["llm"]["n_battles"] == 6


def test_planted_judgments_are_left_out_unless_asked(session) -> None:
    spec, store = session
    [suggestion] = store.add_suggestions([Suggestion("i3", "secret-model", "B", planted=True)])
    [assignment] = store.add_assignments([Assignment(0, "dave", "i3", 0, condition="upfront",
                                                     suggestion_id=suggestion.id)])
    store.submit(Judgment(assignment.id, "B", Timings("2024-01-01T00:00:00+00:00", 1, 900, 800)))
    default = build_report(spec, store, n_boot=0).data
    assert default["session"]["excluded"]["planted"] == 1
    assert "dave" not in {r["rater"] for r in default["agreement"]["per_annotator"]}
    included = build_report(spec, store, n_boot=0, include_planted=True).data
    assert included["session"]["excluded"]["planted"] == 0
    assert included["session"]["n_judgments"] == default["session"]["n_judgments"] + 1
    for fmt in ("text", "md", "html", "json"):
        assert "secret-model" not in render(build_report(spec, store, n_boot=0), fmt)


def test_every_format_renders_and_json_round_trips(session) -> None:
    spec, store = session
    report = build_report(spec, store, n_boot=50)
    text = render(report, "text")
    for needle in ("AGREEMENT", "0.800", "tentative", "PAIRWISE", "human", "BIASES", "QUALITY", "RANKING", "m-a"):
        assert needle in text
    assert "\x1b" not in text
    md = render(report, "md")
    assert md.startswith("# ") and "| rater |" in md
    html = render(report, "html")
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html and "</html>" in html
    data = json.loads(render(report, "json"))
    assert set(data) == {"report_version", "session", "summary", "agreement", "judges", "pairwise", "biases",
                         "quality", "ranking", "rankings", "grades", "aspects",
                         "style_control", "judge_trust", "competence", "flags", "spans", "training"}
    assert data["spans"] is None  # the session has no [labels.spans]
    assert set(data["agreement"]) == {"level", "thresholds", "overall", "overall_raters", "per_cohort",
                                      "per_annotator", "per_category", "per_criterion", "collapsed"}


def test_an_empty_session_still_reports(pairwise_spec, store) -> None:
    report = build_report(pairwise_spec, store, n_boot=10)
    for fmt in ("text", "md", "html", "json"):
        assert render(report, fmt)
    assert report.data["ranking"]["overall"]["models"] == []


def test_items_listed_are_the_fixture_items() -> None:
    assert ITEMS == ["i1", "i2", "i3", "i4", "i5", "i6"]


def _single_item(item_id: str) -> Item:
    return Item(id=item_id, kind="single", conversation=(Message("user", "p"),),
                responses=(Response("A", "text", "m"),), category="c", gold="7" if item_id == "s1" else None)


def test_single_grade_session_is_ordinal(project) -> None:
    from .conftest import judge

    spec = create_session("grades", "single", seed=2, folder=project / "sessions")
    grades = {"ann": [7, 3, 9, 5], "ben": [8, 3, 9, 4], "cat": [7, 2, 10, 5]}
    with open_store(spec) as store:
        store.add_items([_single_item(f"s{n}") for n in range(1, 5)])
        for name, values in grades.items():
            for n, grade in enumerate(values):
                judge(store, name, f"s{n + 1}", str(grade), False, 4000, n)
        data = build_report(spec, store, n_boot=50).data
        for fmt in ("text", "md", "html", "json"):
            assert render(build_report(spec, store, n_boot=0), fmt)
    matrix = np.array([values for values in grades.values()], dtype=float)
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal",
                                  value_domain=list(range(1, 11)))
    overall = data["agreement"]["overall"]
    assert data["agreement"]["level"] == "ordinal"
    assert overall["krippendorff_alpha"]["estimate"] == pytest.approx(expected)
    assert overall["cohen_kappa"][0]["weighted_quadratic"] is not None
    assert data["ranking"]["overall"]["models"] == []
    gold = data["quality"]["gold"]
    assert (gold[0]["k"], gold[0]["n"]) == (2, 3)  # s1: 7, 8, 7 against gold 7


def test_rubric_session_reports_each_criterion(project) -> None:
    spec = create_session("rub", "rubric", seed=2, folder=project / "sessions")
    scores = {"ann": [(4, 3), (2, 2), (0, 1)], "ben": [(4, 2), (2, 2), (1, 1)]}
    with open_store(spec) as store:
        store.add_items([_single_item(f"s{n}") for n in range(1, 4)])
        for name, values in scores.items():
            assignments = store.add_assignments([Assignment(0, name, f"s{n + 1}", n) for n in range(3)])
            for a, (helpful, correct) in zip(assignments, values, strict=True):
                store.submit(Judgment(a.id, None, Timings("2024", 1, 3000, 2500),
                                      scores={"helpfulness": helpful, "correctness": correct}))
        report = build_report(spec, store, n_boot=20)
        for fmt in ("text", "md", "html", "json"):
            assert render(report, fmt)
    per = {c["criterion"]: c for c in report.data["agreement"]["per_criterion"]}
    assert set(per) == {"helpfulness", "correctness"}
    expected = krippendorff.alpha(reliability_data=np.array([[4, 2, 0], [4, 2, 1]], dtype=float),
                                  level_of_measurement="ordinal", value_domain=[0, 1, 2, 3, 4])
    assert per["helpfulness"]["krippendorff_alpha"]["estimate"] == pytest.approx(expected)
    assert report.data["quality"]["timing"][0]["n"] == 6
