"""The alternative annotator test: a small example worked by hand, a plain loop over items on random
data (both scorings), the t distribution against closed forms, and Benjamini-Yekutieli by hand.

The paper's own data and published winning rates are checked by ``bench/bench_alt_test.py``."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from annotate.analysis.alt_test import alt_test, benjamini_yekutieli, default_epsilon, one_sided_t_test
from annotate.analysis.student_t import t_cdf


def frame(rows: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame([(unit, rater, label) for unit, labels in rows.items()
                         for rater, label in zip(("h1", "h2", "h3"), labels, strict=True)],
                        columns=["unit", "rater", "label"])


def t3_cdf(t: float) -> float:
    """Student t with 3 degrees of freedom in closed form."""
    u = t / math.sqrt(3)
    return 0.5 + (u / (1 + u * u) + math.atan(u)) / math.pi


def test_a_small_example_worked_by_hand() -> None:
    """Three annotators, four items, judge J (labels per item: h1 h2 h3 / J):

    i1 AAA / A, i2 ABB / B, i3 BBA / B, i4 ABA / B.

    Leaving h1 out: W^J = 1 1 1 1, W^h1 = 1 0 1 1 (on i2 the others say B, B), so d = 0 -1 0 0,
    mean -0.25, sd 0.5, t = (-0.25 - 0.2) / (0.5 / 2) = -1.8 on 3 df: p = 0.0848.  h3 is the mirror
    image (d = -1 on i3).  Leaving h2 out, every d is 0: no spread, mean below epsilon, p = 0.
    Benjamini-Yekutieli at 0.05 over 3 tests (c_3 = 11/6) rejects p <= k 0.05 / 5.5: only h2's.
    omega = 1/3 < 0.5: the judge fails; rho = mean(1, 1, 1) = 1."""
    humans = frame({"i1": "AAA", "i2": "ABB", "i3": "BBA", "i4": "ABA"})
    judge = pd.DataFrame({"unit": ["i1", "i2", "i3", "i4"], "label": ["A", "B", "B", "B"]})
    result = alt_test(humans, judge, epsilon=0.2, min_items=4)
    by = {t.rater: t for t in result.trials}
    assert (by["h1"].rho_judge, by["h1"].rho_human) == (1.0, 0.75)
    assert by["h1"].t == pytest.approx(-1.8)
    assert by["h1"].p_value == pytest.approx(t3_cdf(-1.8), abs=1e-12)
    assert by["h1"].p_value == pytest.approx(0.0848, abs=5e-5)
    assert by["h3"].p_value == pytest.approx(by["h1"].p_value)
    assert (by["h2"].t, by["h2"].p_value) == (-math.inf, 0.0)
    assert [by[r].rejected for r in ("h1", "h2", "h3")] == [False, True, False]
    assert result.winning_rate == pytest.approx(1 / 3)
    assert result.passed is False
    assert result.advantage == 1.0
    # A generous epsilon (0.6) makes all three tests reject: mean d - 0.6 is far below 0.
    assert alt_test(humans, judge, epsilon=0.6, min_items=4).passed is True


def loop_alt_test(humans: pd.DataFrame, judge: dict, epsilon: float, scoring: str, min_items: int
                  ) -> dict[str, tuple[float, float, float]]:
    """rho_judge, rho_human and p per annotator, one item at a time."""
    labels: dict[str, dict[str, object]] = {}
    for unit, rater, label in humans.itertuples(index=False):
        labels.setdefault(unit, {})[rater] = label

    def score(x, others):
        if scoring == "accuracy":
            return sum(o == x for o in others) / len(others)
        return -math.sqrt(sum((float(o) - float(x)) ** 2 for o in others) / len(others))

    out = {}
    for rater in sorted(humans["rater"].unique()):
        wj, wh = [], []
        for unit, answers in labels.items():
            if rater not in answers or unit not in judge or len(answers) < 2:
                continue
            others = [v for r, v in answers.items() if r != rater]
            sj, sh = score(judge[unit], others), score(answers[rater], others)
            wj.append(float(sj >= sh))
            wh.append(float(sh >= sj))
        if len(wj) >= min_items:
            d = np.array(wh) - np.array(wj)
            out[rater] = (float(np.mean(wj)), float(np.mean(wh)), one_sided_t_test(d, epsilon)[1])
    return out


@pytest.mark.parametrize("scoring", ["accuracy", "neg_rmse"])
def test_matches_a_loop_over_items(scoring: str) -> None:
    rng = np.random.default_rng(7 if scoring == "accuracy" else 8)
    n_items, n_raters = 120, 5
    truth = rng.integers(1, 6, n_items)
    rows = []
    for r in range(n_raters):
        for i in range(n_items):
            if rng.random() < 0.35:
                continue
            noise = rng.integers(-1, 2) if rng.random() < 0.4 else 0
            rows.append((f"u{i}", f"r{r}", int(np.clip(truth[i] + noise, 1, 5))))
    humans = pd.DataFrame(rows, columns=["unit", "rater", "label"])
    judge = {f"u{i}": int(np.clip(truth[i] + (rng.integers(-1, 2) if rng.random() < 0.3 else 0), 1, 5))
             for i in range(n_items) if rng.random() < 0.9}
    result = alt_test(humans, pd.DataFrame(list(judge.items()), columns=["unit", "label"]), epsilon=0.15,
                      scoring=scoring, min_items=30)
    expected = loop_alt_test(humans, judge, 0.15, scoring, 30)
    tested = {t.rater: t for t in result.trials if t.rejected is not None}
    assert set(tested) == set(expected)
    for rater, (rho_j, rho_h, p) in expected.items():
        assert tested[rater].rho_judge == pytest.approx(rho_j)
        assert tested[rater].rho_human == pytest.approx(rho_h)
        assert tested[rater].p_value == pytest.approx(p, nan_ok=True)


def test_t_distribution_against_closed_forms() -> None:
    for t in (-4.0, -1.3, -0.2, 0.0, 0.7, 2.5):
        assert t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-12)
        assert t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), abs=1e-12)
        assert t_cdf(t, 3) == pytest.approx(t3_cdf(t), abs=1e-12)
    assert t_cdf(-2.228138851986, 10) == pytest.approx(0.025, abs=1e-9)  # the familiar table value
    assert t_cdf(-1.959963984540, 1e7) == pytest.approx(0.025, abs=1e-6)  # the normal limit


def test_benjamini_yekutieli_by_hand() -> None:
    """m = 4, c_4 = 25/12, thresholds k 0.05 / (4 c_4) = 0.006, 0.012, 0.018, 0.024: the step-up rule
    rejects up to the largest k whose sorted p is below its threshold (k = 3 here, though p_(2) is not)."""
    p = [0.017, 0.001, 0.013, 0.2]
    assert benjamini_yekutieli(p, 0.05).tolist() == [True, True, True, False]
    assert benjamini_yekutieli([0.001, float("nan")], 0.05).tolist() == [True, False]
    assert benjamini_yekutieli([], 0.05).tolist() == []


def test_epsilon_follows_the_papers_rule_of_thumb() -> None:
    assert default_epsilon(["expert"]) == 0.2
    assert default_epsilon(["crowd"]) == 0.1
    assert default_epsilon(["expert", "crowd"]) == 0.1


def test_too_few_items_give_reasons_never_nan() -> None:
    humans = frame({"i1": "AAA", "i2": "ABB"})
    judge = pd.DataFrame({"unit": ["i1", "i2"], "label": ["A", "B"]})
    result = alt_test(humans, judge, epsilon=0.2)
    assert result.passed is None and result.n_tested == 0
    assert result.reason == "not enough data (n = 2 items: no annotator has 30 items to test)"
    assert result.trials[0].reason == "not enough data (n = 2 items: fewer than 30 items to test)"
    assert "NaN" not in json.dumps(result.to_json(), allow_nan=False)
    lonely = alt_test(humans.loc[humans["rater"] == "h1"], judge, epsilon=0.2)
    assert lonely.reason == "not enough data (n = 0 items: no item to compare)"


def test_grades_must_be_numbers_for_rmse() -> None:
    humans = frame({"i1": "AAB"})
    with pytest.raises(ValueError, match="numeric labels"):
        alt_test(humans, pd.DataFrame({"unit": ["i1"], "label": ["A"]}), epsilon=0.2, scoring="neg_rmse")
