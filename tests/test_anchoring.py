"""The anchoring measures on small hand-made frames, where every number can be worked out."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from annotate.analysis.anchoring import analyse_anchoring, infer_design, two_way_bootstrap_sums


def row(annotator: str, item: str, condition: str, suggestion: str | None, final: str, gold: str | None,
        initial: str | None = None, planted: bool = False, time_ms: float = 5000) -> dict:
    correct = None if gold is None or suggestion is None else suggestion == gold
    return {
        "annotator": annotator, "item": item, "condition": condition, "suggestion": suggestion,
        "suggestion_correct": correct, "planted": planted, "initial_label": initial, "final_label": final,
        "gold": gold, "time_ms": time_ms,
    }


@pytest.fixture
def frame() -> pd.DataFrame:
    rows = [
        # none: 2 wrong suggestions (1 agreed), 2 right ones (both agreed)
        row("ann1", "w1", "none", "B", "B", "A"),
        row("ann2", "w2", "none", "B", "A", "A"),
        row("ann1", "r1", "none", "A", "A", "A", time_ms=1000),
        row("ann2", "r2", "none", "A", "A", "A"),
        # upfront: 2 wrong (both agreed, one fast), 2 right (one disagreed)
        row("ann1", "w2", "upfront", "B", "B", "A", time_ms=1200, planted=True),
        row("ann2", "w1", "upfront", "B", "B", "A"),
        row("ann1", "r2", "upfront", "A", "A", "A"),
        row("ann2", "r1", "upfront", "A", "tie", "A"),
        # after: initial then final
        row("ann1", "w3", "after", "B", "B", "A", initial="A"),     # harmful switch to the suggestion
        row("ann2", "r3", "after", "A", "A", "A", initial="B"),     # beneficial switch to the suggestion
        row("ann1", "r4", "after", "A", "A", "A", initial="A"),     # no switch
        row("ann2", "x1", "after", "A", "B", None, initial="tie"),  # switch, not to it, no gold
        # no suggestion: left out of the reliance measures
        row("ann1", "n1", "upfront", None, "A", "A"),
    ]
    return pd.DataFrame(rows)


def test_rates_per_condition(frame: pd.DataFrame) -> None:
    result = analyse_anchoring(frame, n_boot=50, n_perm=50)
    by = {c.condition: c for c in result.conditions}
    assert [c.condition for c in result.conditions] == ["none", "upfront", "after"]
    assert by["none"].agree.estimate == 0.75
    assert by["none"].over_reliance.estimate == 0.5
    assert by["none"].under_reliance.estimate == 0.0
    assert by["upfront"].over_reliance.estimate == 1.0
    assert by["upfront"].under_reliance.estimate == 0.5
    assert by["upfront"].n == 4 and by["upfront"].n_planted == 1
    assert by["upfront"].accuracy.estimate == 0.25
    assert by["upfront"].over_reliance.n_pairable == 2  # judgments in the denominator
    assert by["none"].fast_accepts == 1 and by["upfront"].fast_accepts == 1
    assert by["after"].n == 4 and by["after"].n_wrong == 1
    assert by["upfront"].reveal_rate is None


def test_effect_against_none(frame: pd.DataFrame) -> None:
    result = analyse_anchoring(frame, n_boot=200, n_perm=100, seed=3)
    effects = {e.mode: e for e in result.effects}
    assert effects["upfront"].delta.estimate == pytest.approx(0.5)
    assert effects["upfront"].delta_accuracy.estimate == pytest.approx(0.25 - 0.75)
    assert effects["upfront"].design == "within"
    lo, hi = effects["upfront"].delta.ci
    assert -1.0 <= lo <= hi <= 1.0
    assert 0 < effects["upfront"].p_value <= 1


def test_switches_in_after(frame: pd.DataFrame) -> None:
    s = analyse_anchoring(frame, n_boot=0, n_perm=0).switches
    assert s is not None
    assert (s.n, s.switches, s.initial_disagreed, s.to_suggestion) == (4, 3, 3, 2)
    assert s.switch_rate == 0.75 and s.to_suggestion_rate == pytest.approx(2 / 3)
    assert (s.n_gold, s.harmful, s.beneficial) == (2, 1, 1)


def test_susceptibility_label_shift_and_llm_accuracy(frame: pd.DataFrame) -> None:
    result = analyse_anchoring(frame, n_boot=20, n_perm=0)
    ann = {a.annotator: a for a in result.annotators}
    assert ann["ann1"].agree_wrong_none == 1.0 and ann["ann1"].baseline == "own"
    assert ann["ann1"].agree_wrong_shown == 1.0 and ann["ann1"].susceptibility == 0.0
    assert ann["ann2"].agree_wrong_none == 0.0 and ann["ann2"].susceptibility == 1.0
    shift = {s.condition: s for s in result.label_shift}
    assert math.isnan(shift["none"].tvd)
    assert dict(shift["none"].shares) == {"A": 0.75, "B": 0.25, "tie": 0.0}
    # upfront labels (the row without a suggestion counts here): A 2, B 2, tie 1
    assert shift["upfront"].n == 5
    assert shift["upfront"].tvd == pytest.approx(0.5 * (abs(0.4 - 0.75) + abs(0.4 - 0.25) + abs(0.2 - 0.0)))
    llm = {a.reference: a.accuracy for a in result.llm_accuracy}
    # the LLM against gold, once per item, planted left out: w1 wrong, w2 (planted row aside, the
    # none row is real) wrong, w3 wrong, r1..r4 right
    assert llm["gold"].estimate == pytest.approx(4 / 7)
    assert llm["labels under none"].estimate == 0.75
    assert llm["labels under upfront"].estimate == pytest.approx(2 / 3)  # planted row left out


def test_json_and_errors(frame: pd.DataFrame) -> None:
    result = analyse_anchoring(frame, n_boot=20, n_perm=20)
    text = json.dumps(result.to_json(), allow_nan=False)
    assert '"over_reliance"' in text
    with pytest.raises(ValueError, match="lacks columns: gold"):
        analyse_anchoring(frame.drop(columns=["gold"]))
    with pytest.raises(ValueError, match="design must be"):
        analyse_anchoring(frame, design="crossed")


def test_no_baseline_and_between_inference(frame: pd.DataFrame) -> None:
    only_shown = frame[frame["condition"] != "none"]
    result = analyse_anchoring(only_shown, n_boot=10, n_perm=10)
    assert result.effects == ()
    assert any("baseline" in note for note in result.notes)
    between = frame.assign(condition=frame["annotator"].map({"ann1": "none", "ann2": "upfront"}))
    assert infer_design(between) == "between"
    assert infer_design(frame) == "within"
    result = analyse_anchoring(between, n_boot=10, n_perm=10)
    assert result.effects[0].design == "between"
    assert any("few" in note for note in result.notes)


def test_two_way_weights_are_products_of_cluster_counts() -> None:
    import numpy as np

    features = np.ones((4, 1))
    a_idx = np.array([0, 0, 1, 1])
    i_idx = np.array([0, 1, 0, 1])
    sums = two_way_bootstrap_sums(features, a_idx, i_idx, 500, seed=0)
    # each resample draws 2 annotators and 2 items: the total weight is always 2 * 2
    assert np.all(sums[:, 0] == 4)
