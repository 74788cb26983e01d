"""Section Ranking: a cohort whose battles are the headline's, row for row, is ranked once."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.analysis import ranking
from annotate.report.build import build_report
from annotate.session import create_session, open_store

from .conftest import EXPERT, judge, make_items


def _calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    fit = ranking.rank_models

    def counted(battles, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(len(battles))
        return fit(battles, *args, **kwargs)

    monkeypatch.setattr(ranking, "rank_models", counted)
    return calls


def test_one_cohort_is_fitted_once_and_reported_as_the_headline(project: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    spec = create_session("one", "pairwise", seed=5, folder=project / "sessions")
    with open_store(spec) as store:
        items = make_items()
        store.add_items(items)
        for name, labels in EXPERT.items():
            for n, label in enumerate(labels):
                judge(store, name, items[n].id, label, swapped=n % 2 == 0, active_ms=5000, position=n)
        calls = _calls(monkeypatch)
        data = build_report(spec, store, n_boot=40, seed=2).data["ranking"]
    assert len(calls) == 1
    [cohort] = data["per_cohort"]
    assert cohort["cohort"] == "expert"
    assert {k: v for k, v in cohort.items() if k != "cohort"} == data["overall"]


def test_cohorts_that_differ_from_the_headline_are_fitted_apart(session, monkeypatch: pytest.MonkeyPatch) -> None:
    spec, store = session
    calls = _calls(monkeypatch)
    data = build_report(spec, store, n_boot=40, seed=2).data["ranking"]
    # the headline (experts and crowd), then each cohort: expert, crowd, llm
    assert len(calls) == 1 + len(data["per_cohort"]) == 4

