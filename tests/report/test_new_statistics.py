"""The report's style-control, judge and competence sections on a session large enough for each
statistic, and on the small fixture session where they must say why there is not enough data."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

from annotate.analysis.alt_test import alt_test
from annotate.cli import main
from annotate.model import ExternalLabel, Item, Message, Response, Suggestion
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.session import create_session, open_store

from .conftest import judge

MODELS = ("terse-strong", "mid", "verbose-weak")
"""True strength falls along the tuple; answer length rises (20, 60, 180 words)."""


def _answer(model: str, rng: np.random.Generator) -> str:
    words = {"terse-strong": 20, "mid": 60, "verbose-weak": 180}[model]
    body = " ".join("word" for _ in range(int(words * rng.uniform(0.8, 1.2))))
    return body if model != "verbose-weak" else f"## Answer\n\n- **point** one\n- point two\n\n{body}"


def _raw(reported: str) -> str:
    return json.dumps({"request": {"model": "judge", "temperature": 0, "max_tokens": 1024},
                       "replies": [{"order": "AB", "model": reported}, {"order": "BA", "model": reported}]})


@pytest.fixture
def big(project):
    """60 items between the three models, 4 experts who follow strength (and mildly length), an LLM judge
    with two versions (the server answered with a newer model for the second half), crowd votes imported."""
    rng = np.random.default_rng(0)
    spec = create_session("big", "pairwise", seed=3, folder=project / "sessions")
    strength = {"terse-strong": 1.0, "mid": 0.0, "verbose-weak": -1.0}
    items, truth = [], {}
    for n in range(60):
        a, b = rng.choice(MODELS, 2, replace=False)
        items.append(Item(f"q{n}", "pairwise", (Message("user", f"question {n}"),),
                          (Response("A", _answer(a, rng), a), Response("B", _answer(b, rng), b)),
                          category="code" if n % 2 else "chat", gold="A" if strength[a] > strength[b] else "B"))
        truth[f"q{n}"] = "A" if strength[a] > strength[b] else "B"
    with open_store(spec) as store:
        store.add_items(items)
        for annotator, accuracy in (("ann", 0.9), ("ben", 0.85), ("cat", 0.9), ("dan", 0.55)):
            for position, item in enumerate(items):
                right = rng.random() < accuracy
                label = truth[item.id] if right else ("B" if truth[item.id] == "A" else "A")
                judge(store, annotator, item.id, label, bool(position % 2), 1500 if annotator == "dan" else 7000,
                      position)
        store.add_suggestions([
            Suggestion(item.id, "judge", truth[item.id] if rng.random() < 0.9 else "tie", prompt_hash="p1",
                       raw=_raw("judge-0501" if n < 30 else "judge-0901"))
            for n, item in enumerate(items)])
        store.add_external_labels([ExternalLabel("crowd.csv", "crowd1", "crowd", item.id, truth[item.id], raw="x")
                                   for item in items])
        yield spec, store


def test_each_new_statistic_reaches_the_report(big) -> None:
    spec, store = big
    report = build_report(spec, store, n_boot=100)
    data = json.loads(render(report, "json"))
    style = data["style_control"]["humans"]
    assert style["n_items"] == 60 and style["n_battles"] == 60 * 5 and style["unit"] == "items"
    assert [c["feature"] for c in style["coefficients"]] == ["tokens", "headers", "list_items", "bold"]
    assert {m["model"] for m in style["models"]} == set(MODELS)
    assert data["style_control"]["llm"] is None  # the judge's suggestions are not votes
    trust = data["judge_trust"]
    assert trust["epsilon"] == 0.1  # crowd present: the smallest of the paper's values
    [result] = trust["alt_test"]
    assert result["judge"] == "judge (prompt p1) (suggestions)"
    assert result["n_tested"] == 5 and result["passed"] is not None
    assert {c["category"] for c in result["per_category"]} == {"code", "chat"}
    assert len(trust["drift"]["versions"]) == 2 and trust["drift"]["pairs"][0]["n_shared"] == 0
    [agreement] = trust["with_human_majority"]
    assert agreement["agreement"]["n_units"] == 60 and agreement["agreement"]["ci"][0] is not None
    competence = data["competence"]
    flagged = competence["dawid_skene"]["flagged"]
    assert flagged == ["dan"]
    cells = competence["over_time"]["cells"]
    dan = [c for c in cells if c["rater"] == "dan"]
    assert [c["positions"] for c in dan] == [[1, 20], [21, 40], [41, 60]]
    assert all(c["fast"]["share"] == 1.0 for c in dan)
    summary = data["summary"]
    assert any("the alternative annotator test: it wins against" in line for line in summary["lines"])
    assert summary["alt_test"][0]["n_tested"] == 5
    dan_flags = next(f for f in summary["flagged"] if f["rater"] == "dan")
    assert "dawid_skene" in {r["check"] for r in dan_flags["reasons"]}
    assert any(line.startswith("Style control: length coefficient") for line in summary["lines"])
    text = render(report, "text") + render(report, "md") + render(report, "html")
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    assert "Ranking with and without style control" in text and "Dawid-Skene" in text


def test_the_report_runs_the_same_alt_test_as_the_analysis(big) -> None:
    """The section's figure is the analysis function on the human votes and the judge's suggestions."""
    spec, store = big
    data = json.loads(render(build_report(spec, store, n_boot=0), "json"))
    import pandas as pd

    votes = pd.DataFrame([(a.item_id, a.annotator, j.label) for a, j in store.current_votes()],
                         columns=["unit", "rater", "label"])
    crowd = pd.DataFrame([(e.item_id, e.rater, e.label) for e in store.external_labels()],
                         columns=["unit", "rater", "label"])
    suggestions = pd.DataFrame([(s.item_id, s.label) for s in store.suggestions()], columns=["unit", "label"])
    expected = alt_test(pd.concat([votes, crowd]), suggestions, epsilon=0.1)
    [result] = data["judge_trust"]["alt_test"]
    assert result["winning_rate"] == pytest.approx(expected.winning_rate)
    assert result["advantage_probability"] == pytest.approx(expected.advantage)


def test_alt_epsilon_is_an_option(big, project) -> None:
    _spec, store = big
    store.close()
    out = CliRunner().invoke(main, ["report", "big", "--format", "json", "--bootstrap", "0", "--alt-epsilon", "0.3"],
                             catch_exceptions=False)
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["judge_trust"]["epsilon"] == 0.3
    assert data["judge_trust"]["epsilon_rule"] == "given (--alt-epsilon)"


def test_small_session_says_not_enough_data_never_nan(session) -> None:
    spec, store = session
    report = build_report(spec, store, n_boot=20)
    for fmt in ("text", "md", "html"):
        out = render(report, fmt)
        assert not re.search(r"\bnan\b", out, re.IGNORECASE), fmt
        assert "not enough data (n = 6 items: no annotator has 30 items to test)" in out
        assert "fewer than 10 to judge" in out
    data = json.loads(render(report, "json"))
    assert data["judge_trust"]["alt_test"][0]["passed"] is None
    assert data["style_control"]["humans"]["n_items"] == 6
    tokens = data["style_control"]["humans"]["coefficients"][0]
    assert tokens["reason"].startswith("not enough data (n = ")  # every item: the same two answers


def test_ranking_sessions_say_the_judge_and_competence_sections_do_not_apply_yet(project) -> None:
    """Rankings are orders, not verdicts or classes: the sections say so instead of reporting zero humans."""
    import pandas as pd

    from annotate.report.context import Context
    from annotate.report.sections.competence import competence_section
    from annotate.report.sections.judge_trust import judge_trust_section

    spec = create_session("ranked", "ranking", seed=1, folder=project / "sessions")
    votes = pd.DataFrame({"item": ["r1"], "rater": ["ann"], "cohort": ["expert"], "label": ["B>A>C>D"]})
    ctx = Context(spec, votes, votes, spec.schema.level, (), 0, 1, 100)
    with open_store(spec) as store:
        trust, trust_payload = judge_trust_section(ctx, store)
        competence, competence_payload = competence_section(ctx, store)
    assert trust.notes[0].startswith("Ranking sessions: judges are not tested on rankings yet")
    assert competence.notes[0].startswith("Ranking sessions: competence is not estimated on rankings yet")
    assert trust_payload["alt_test"] == [] and competence_payload["dawid_skene"] is None


def test_a_crowds_dawid_skene_json_is_summarised_and_the_text_says_so(big, monkeypatch) -> None:
    import annotate.analysis.dawid_skene as ds

    spec, store = big
    store.add_external_labels([ExternalLabel("crowd.csv", f"walk-in{k}", "crowd", f"q{k}", "A", raw="x")
                               for k in range(3)])
    monkeypatch.setattr(ds, "JSON_MAX_ANNOTATORS", 5)
    report = build_report(spec, store, n_boot=0, max_rows=2)
    fit = json.loads(render(report, "json"))["competence"]["dawid_skene"]
    assert fit["n_annotators"] == 8 and len(fit["annotators"]) == 5
    assert {a["rater"] for a in fit["annotators"]} == {"ann", "ben", "cat", "dan", "crowd1"}  # the judged ones
    assert fit["annotators_left_out"]["n"] == 3 and fit["annotators_left_out"]["n_answers"] == 3
    assert fit["flagged"] == ["dan"]
    text = render(report, "text")
    assert "6 more raters; the JSON report lists 5 of the 8 annotators" in text
    assert "summarises the other 3." in text
