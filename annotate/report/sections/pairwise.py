"""Pairwise agreement as in MT-Bench (with and without ties) and majority against majority."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any

from annotate.report.context import COHORT_ORDER, Context
from annotate.report.model import Chart, Column, Section, Table
from annotate.report.tables import (
    ci,
)
from annotate.text import plural

if TYPE_CHECKING:
    from annotate.store import Store


_TYPE_PAIRS = (
    ("human", "human", True), ("human", "llm", True), ("crowd", "expert", True), ("llm", "llm", True),
    ("expert", "expert", False), ("crowd", "crowd", False), ("expert", "llm", False), ("crowd", "llm", False),
)
"""(type x, type y, always shown): "human" is the expert and crowd cohorts together."""

_PAIR_COLUMNS = (
    Column("raters x"), Column("raters y"), Column("with ties", "num"), Column("with ties 95 % CI", "ci"),
    Column("pairs", "int"), Column("without ties", "num"), Column("without ties 95 % CI", "ci"),
    Column("pairs w/o ties", "int"), Column("items", "int"),
)


def _pair_row(result: Any) -> tuple[Any, ...]:
    w, wo = result.with_ties, result.without_ties
    return (result.type_x, result.type_y, w.estimate, ci(w), result.n_pairs_with_ties, wo.estimate, ci(wo),
            result.n_pairs_without_ties, result.n_items)


def pairwise_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.cohorts import cohort_confusion
    from annotate.analysis.pairwise import majority_agreement, type_agreement

    payload: dict[str, Any] = {"type_agreement": [], "majority": [], "confusion": []}
    if not ctx.pairwise:
        return Section("pairwise", "Pairwise agreement (MT-Bench)",
                       notes=("Applies to pairwise sessions only.",)), payload
    votes = ctx.unique.assign(rater_type=ctx.unique["cohort"])
    human = votes.assign(rater_type=votes["cohort"].map(lambda c: "llm" if c == "llm" else "human"))
    rows = []
    for x, y, always in _TYPE_PAIRS:
        source = human if "human" in (x, y) else votes
        result = type_agreement(source, x, y, n_boot=ctx.n_boot, seed=ctx.seed)
        if always or result.n_pairs_with_ties:
            rows.append(_pair_row(result))
            payload["type_agreement"].append(result.to_json())
    notes = (
        "Probability that two different raters of the two types agree on a random item, pooled over all vote "
        "pairs (Zheng et al. 2023, MT-Bench, section 4.2): with ties, tie / both bad / inconsistent are one "
        "answer; without ties, only pairs where both picked A or B. human = expert + crowd.",
        ctx.ci_note.replace("units", "items"),
    )
    tables = [Table("pairwise_types", "Agreement between rater types", _PAIR_COLUMNS, tuple(rows), notes)]
    cohorts = [c for c in COHORT_ORDER if c in set(votes["cohort"])]
    rows = []
    majority_pairs = [*combinations(cohorts, 2)]
    if "llm" in cohorts and len(cohorts) == 3:
        majority_pairs.append(("human", "llm"))
    for x, y in majority_pairs:
        source = human if x == "human" else votes
        result = majority_agreement(source, x, y, n_boot=ctx.n_boot, seed=ctx.seed)
        rows.append(_pair_row(result))
        payload["majority"].append(result.to_json())
    tables.append(Table(
        "pairwise_majority", "Cohort majority against cohort majority", _PAIR_COLUMNS, tuple(rows),
        ("Per item, each cohort's most frequent answer (A, B or tie); items where a cohort's top count is shared "
         "or a cohort did not vote are left out; pairs = items.",),
    ))
    classes = ("A", "B", "tie")
    merged = votes.assign(label=votes["label"].replace({"both_bad": "tie"}))
    for x, y in combinations(cohorts, 2):
        matrix = cohort_confusion(merged, x, y, classes)
        total = int(matrix.to_numpy().sum())
        payload["confusion"].append({
            "x": x, "y": y, "labels": list(classes), "counts": matrix.to_numpy().tolist(), "n_items": total,
        })
        rows = tuple((f"{x}: {label}", *(int(v) for v in matrix.loc[label]), int(matrix.loc[label].sum()))
                     for label in classes)
        columns = (Column(f"{x} majority \\ {y} majority"), *(Column(f"{y}: {c}", "int") for c in classes),
                   Column("items", "int"))
        tables.append(Table(
            f"confusion_{x}_{y}", f"Confusion matrix: {x} majority (rows) by {y} majority (columns)", columns, rows,
            (f"{plural(total, 'item')} with a majority in both cohorts; diagonal = the cohorts agree.",),
            Chart("heat", label=0, cells=tuple(range(1, 1 + len(classes))), title=f"{x} vs {y}"),
        ))
    return Section("pairwise", "Pairwise agreement (MT-Bench)", tuple(tables)), payload


