"""The biases' JSON past `JSON_MAX_RATERS` raters: the significant ones and those with most votes are listed,
the rest summed up, and the text says what the JSON holds (a crowd of 40,000 judges was 20 MB of JSON)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from annotate.report.build import build_report
from annotate.report.render import render
from annotate.report.sections import bias


@dataclass(frozen=True)
class _Share:
    rater: str
    k: int
    n: int


def test_small_tables_list_every_rater() -> None:
    raters = [_Share("a", 1, 2), _Share("b", 2, 3)]
    listed, left_out = bias._listed(raters, [0.5, 0.9])
    assert [p.rater for p, _ in listed] == ["a", "b"] and left_out is None


def test_past_the_cap_significant_raters_then_most_votes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bias, "JSON_MAX_RATERS", 2)
    raters = [_Share("few", 1, 3), _Share("many", 40, 50), _Share("biased", 9, 9), _Share("some", 5, 10),
              _Share("most", 60, 100)]
    holm = [0.9, 0.6, 0.01, 0.8, float("nan")]
    listed, left_out = bias._listed(raters, holm)
    # the significant one first, then the most votes up to the cap; in rater order as the table had them
    assert [p.rater for p, _ in listed] == ["biased", "most"]
    assert left_out is not None
    assert (left_out["n"], left_out["k"], left_out["n_votes"]) == (3, 46, 63)
    monkeypatch.setattr(bias, "JSON_MAX_RATERS", 0)  # every significant rater is kept whatever the cap
    assert [p.rater for p, _ in bias._listed(raters, holm)[0]] == ["biased"]


def test_report_sums_up_the_raters_left_out(session, monkeypatch: pytest.MonkeyPatch) -> None:
    spec, store = session
    full = build_report(spec, store, n_boot=50, seed=1).data["biases"]["length"]
    assert full["per_rater_left_out"] is None and full["n_raters"] == len(full["per_rater"])
    monkeypatch.setattr(bias, "JSON_MAX_RATERS", 2)
    report = build_report(spec, store, n_boot=50, seed=1)
    capped = report.data["biases"]["length"]
    assert capped["n_raters"] == full["n_raters"] > 2
    assert len(capped["per_rater"]) == 2
    left = capped["per_rater_left_out"]
    assert left["n"] == full["n_raters"] - 2
    assert left["n_votes"] + sum(p["n"] for p in capped["per_rater"]) == sum(p["n"] for p in full["per_rater"])
    assert capped["overall"] == full["overall"]
    text = render(report, "text")
    assert f"The JSON report lists 2 of the {full['n_raters']} raters" in text
    assert "0 more raters" not in text
