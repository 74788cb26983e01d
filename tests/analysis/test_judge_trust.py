"""Judges against the human majority (items resampled), drift between judge versions, and how
versions are told apart from the stored suggestions."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from annotate.analysis.judge_trust import agreement_with_majority, human_majority, judge_drift, suggestion_versions


def humans_frame() -> pd.DataFrame:
    rows = {"i1": "AAB", "i2": "BBA", "i3": "AB", "i4": "tie tie A", "i5": "A"}
    return pd.DataFrame([(u, f"h{k}", label) for u, labels in rows.items()
                         for k, label in enumerate(labels.split() if " " in labels else list(labels))],
                        columns=["unit", "rater", "label"])


def test_majority_drops_and_counts_shared_top_counts() -> None:
    majority, tied = human_majority(humans_frame())
    assert majority.to_dict() == {"i1": "A", "i2": "B", "i4": "tie", "i5": "A"}
    assert tied == 1  # i3: one A, one B


def test_agreement_with_the_majority_by_hand_and_its_item_bootstrap() -> None:
    judge = pd.DataFrame({"unit": ["i1", "i2", "i3", "i4", "i9"], "label": ["A", "A", "A", "tie", "B"]})
    result = agreement_with_majority("judge", judge, humans_frame(), n_boot=200, seed=5)
    # compared: i1 (A = A), i2 (A != B), i4 (tie = tie); i3 has no majority; no human saw i9
    assert result.agreement.estimate == pytest.approx(2 / 3)
    assert (result.agreement.n_units, result.n_items_judged, result.n_no_majority, result.n_no_humans) == (3, 5, 1, 1)
    rng = np.random.default_rng(5)
    hits = np.array([1.0, 0.0, 1.0])
    resampled = hits[rng.integers(0, 3, size=(200, 3))].mean(axis=1)
    assert (result.agreement.ci_low, result.agreement.ci_high) == pytest.approx(tuple(np.quantile(resampled,
                                                                                                   [0.025, 0.975])))
    nothing = agreement_with_majority("judge", judge.iloc[4:], humans_frame(), n_boot=10)
    assert nothing.reason == "not enough data (n = 0 items: no item with a human majority)"


def raw(model: str, temperature: float = 0.0) -> str:
    return json.dumps({"request": {"model": "judge-x", "temperature": temperature, "max_tokens": 1024},
                       "prompt": {"hash": "abc123", "source": "prompts/strict.txt"},
                       "replies": [{"order": "AB", "model": model}, {"order": "BA", "model": model}]})


def test_versions_split_by_reported_model_and_settings_only_when_they_vary() -> None:
    suggestions = pd.DataFrame({
        "item": ["i1", "i2", "i3", "i1", "i2", "i1"],
        "source_model": ["judge-x"] * 4 + ["judge-y", "imported"],
        "prompt_hash": ["abc123"] * 4 + ["abc123", "import:votes.csv"],
        "label": ["A", "B", "A", "A", "B", "B"],
        "raw": [raw("judge-x-0501"), raw("judge-x-0501"), raw("judge-x-0801"), raw("judge-x-0801"),
                raw("judge-y-1", 0.7), json.dumps({"source": "votes.csv", "cell": "A"})],
    })
    labels, versions = suggestion_versions(suggestions)
    names = [v["version"] for v in versions]
    assert names == [
        "imported (prompt import:votes)",
        "judge-x (prompt abc123) [answered by judge-x-0501]",
        "judge-x (prompt abc123) [answered by judge-x-0801]",
        "judge-y (prompt abc123)",
    ]
    assert versions[1]["settings"] == 'max_tokens=1024, temperature=0.0'
    assert versions[1]["prompt_source"] == "prompts/strict.txt" and versions[0]["prompt_source"] == ""
    assert versions[1]["n_suggestions"] == 2
    assert labels.loc[labels["unit"] == "i3", "version"].tolist() == [names[2]]
    assert set(labels["judge"]) == {"imported (prompt import:votes)", "judge-x (prompt abc123)",
                                    "judge-y (prompt abc123)"}


def test_drift_between_versions_on_shared_items() -> None:
    labels = pd.DataFrame({
        "version": ["v1"] * 4 + ["v2"] * 3,
        "unit": ["i1", "i2", "i4", "i5", "i1", "i2", "i3"],
        "label": ["A", "B", "tie", "A", "A", "A", "B"],
    })
    drift = judge_drift(labels, humans_frame(), [{"version": "v1", "source_model": "m"}], n_boot=50)
    pair = drift.pairs[0]
    assert (pair.first, pair.second, pair.agreement.n_units, pair.n_differ) == ("v1", "v2", 2, 1)
    assert pair.agreement.estimate == 0.5
    first, second = drift.with_humans
    assert first.agreement.estimate == 1.0 and first.agreement.n_units == 4
    assert second.agreement.estimate == 0.5 and second.n_no_majority == 1
    assert [v["version"] for v in drift.versions] == ["v1", "v2"]
    json.dumps(drift.to_json(), allow_nan=False)


def test_the_mean_rule_gives_a_majority_where_plurality_has_none() -> None:
    """Votes A, tie, tie: plurality says tie, the mean score (+1, 0, 0) says A; A, B: plurality none, mean tie."""
    humans = pd.DataFrame({"unit": ["x", "x", "x", "y", "y"], "label": ["A", "tie", "tie", "A", "B"]})
    plurality, tied = human_majority(humans)
    assert plurality.to_dict() == {"x": "tie"} and tied == 1
    mean, none = human_majority(humans, "mean")
    assert mean.to_dict() == {"x": "A", "y": "tie"} and none == 0
    with pytest.raises(ValueError, match="takes the labels A, B and tie"):
        human_majority(pd.DataFrame({"unit": ["z"], "label": ["both_bad"]}), "mean")
