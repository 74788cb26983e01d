"""Reports on sessions too small for a statistic say "not enough data (n = ...: why)", never NaN."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from annotate.model import Assignment, ExternalLabel, Item, Judgment, Message, Response, Timings
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.session import create_session, open_store
from annotate.store import Store

from .conftest import judge, make_items

NAN = re.compile(r"(?i)(?<![\w-])(nan|inf|infinity)(?![\w-])")


def one_vote(store: Store) -> None:
    store.add_items(make_items()[:1])
    judge(store, "alice", "i1", "A", False, 4000, 0)


def two_raters_one_item(store: Store) -> None:
    store.add_items(make_items()[:1])
    judge(store, "alice", "i1", "A", False, 4000, 0)
    judge(store, "bob", "i1", "A", True, 4000, 0)


def only_ties(store: Store) -> None:
    store.add_items(make_items()[:3])
    for n, item in enumerate(["i1", "i2", "i3"]):
        judge(store, "alice", item, "tie", False, 4000, n)
        judge(store, "bob", item, "both_bad", True, 4000, n)


def only_an_llm_judge(store: Store) -> None:
    store.add_items(make_items()[:3])
    store.add_external_labels([ExternalLabel("j.csv", "gpt", "llm", i, "A", raw="A") for i in ("i1", "i2", "i3")])


def one_model(store: Store) -> None:
    store.add_items(make_items(models=("m", "m"))[:2])
    for n, item in enumerate(["i1", "i2"]):
        judge(store, "alice", item, "A", False, 4000, n)
        judge(store, "bob", item, "B", False, 4000, n)


def same_label_everywhere(store: Store) -> None:
    store.add_items(make_items()[:4])
    for n, item in enumerate(["i1", "i2", "i3", "i4"]):
        for rater in ("alice", "bob", "carol"):
            judge(store, rater, item, "A", n % 2 == 0, 4000, n)


CASES: dict[str, Callable[[Store], None]] = {
    "one vote": one_vote, "two raters, one item": two_raters_one_item, "only ties": only_ties,
    "only an LLM judge": only_an_llm_judge, "one model": one_model, "no variation": same_label_everywhere,
}


@pytest.mark.parametrize("case", list(CASES))
def test_tiny_pairwise_sessions_never_print_nan(project: Path, case: str) -> None:
    spec = create_session("tiny", "pairwise", seed=3, folder=project / "sessions")
    with open_store(spec) as store:
        CASES[case](store)
        report = build_report(spec, store, n_boot=30, seed=1)
    for fmt in ("text", "md", "html"):
        out = render(report, fmt, width=100)
        assert not NAN.search(out), (fmt, NAN.search(out).group(0))
        assert "not enough data (n = " in out, fmt
    data = json.loads(render(report, "json"))
    assert "NaN" not in render(report, "json")
    assert _reasons(data), "every null estimate carries a reason"
    if case != "one model":  # alice A, bob B on both items: every figure is defined
        assert _null_count(data) > 0


def _nulls(node: object) -> list[bool]:
    """For each estimate or share object that is null: whether it has a reason."""
    found: list[bool] = []

    def walk(n: object) -> None:
        if isinstance(n, dict):
            if "estimate" in n and "n_units" in n and n["estimate"] is None:
                found.append("reason" in n)
            if "share" in n and "n" in n and n["share"] is None:
                found.append("reason" in n)
            for v in n.values():
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)

    walk(node)
    return found


def _reasons(node: object) -> bool:
    return all(_nulls(node))


def _null_count(node: object) -> int:
    return len(_nulls(node))


def test_specific_reasons(project: Path) -> None:
    spec = create_session("tiny", "pairwise", seed=3, folder=project / "sessions")
    with open_store(spec) as store:
        only_ties(store)
        text = render(build_report(spec, store, n_boot=30, seed=1), "text", width=200)
    assert "without ties: not enough data (n = 0 pairs: no pair of votes where both picked A or B)" in text \
        or "not enough data (n = 0 pairs: no pair of votes where both picked A or B)" in text
    assert "not enough data (n = 0 votes: no non-tie judgment with a side)" in text
    assert "not enough data (n = 1 human cohort: majorities need two cohorts to compare)" in text
    assert "No rater judged an item twice" in text


def test_one_rater_and_one_model(project: Path) -> None:
    spec = create_session("tiny", "pairwise", seed=3, folder=project / "sessions")
    with open_store(spec) as store:
        one_vote(store)
        report = build_report(spec, store, n_boot=30, seed=1)
    text = render(report, "text", width=200)
    assert "Agreement among human raters: not enough data (n = 1 rater: agreement needs two raters" in text
    assert "not enough data (n = 1 item: at least 10 items are needed to judge its stability)" in text
    assert report.data["summary"]["agreement"]["estimate"] is None
    spec = create_session("one-model", "pairwise", seed=3, folder=project / "sessions")
    with open_store(spec) as store:
        one_model(store)
        text = render(build_report(spec, store, n_boot=30, seed=1), "text", width=200)
    assert "No battles" in text  # both slots hold the same model: nothing to rank


def test_tiny_single_and_rubric_sessions(project: Path) -> None:
    for kind in ("single", "rubric"):
        spec = create_session(f"tiny-{kind}", kind, seed=3, folder=project / "sessions")
        with open_store(spec) as store:
            store.add_items([Item(id="s1", kind="single", conversation=(Message("user", "p"),),
                                  responses=(Response("A", "text", "m"),))])
            [a] = store.add_assignments([Assignment(0, "ann", "s1", 0)])
            scores = {"helpfulness": 3} if kind == "rubric" else {}
            store.submit(Judgment(a.id, None if kind == "rubric" else "7", Timings("2024", 1, 3000, 2500),
                                  scores=scores))
            report = build_report(spec, store, n_boot=30, seed=1)
        for fmt in ("text", "md", "html"):
            out = render(report, fmt, width=100)
            assert not NAN.search(out), (kind, fmt)
            assert "not enough data (n = " in out, (kind, fmt)
