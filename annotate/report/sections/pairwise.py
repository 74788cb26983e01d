"""Pairwise agreement as in MT-Bench (with and without ties) between human cohorts, per turn when the
items have turns, and cohort majority against cohort majority."""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement
from typing import TYPE_CHECKING, Any

from annotate.report.cells import NO_PAIR, NO_PAIR_NT, estimate_cell, interval_cell
from annotate.report.context import Context, cohorts_of, not_enough
from annotate.report.model import Chart, Column, Section, Table
from annotate.text import plural

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store import Store

KEY, TITLE = "pairwise", "Pairwise agreement (MT-Bench)"
HUMAN = "human"

_PAIR_COLUMNS = (
    Column("raters x"), Column("raters y"), Column("with ties", "num"), Column("with ties 95 % CI", "ci"),
    Column("pairs", "int"), Column("without ties", "num"), Column("without ties 95 % CI", "ci"),
    Column("pairs w/o ties", "int"), Column("items", "int"),
)
_MAJORITY_COLUMNS = (*_PAIR_COLUMNS, Column("items dropped (tied majority)", "int"))
_TURN_COLUMNS = (Column("comparison"), Column("turn"), *_PAIR_COLUMNS[2:])

_DEFINITION = (
    "Probability that two different raters agree on a random item, pooled over all vote pairs (Zheng et al. "
    "2023, MT-Bench, section 4.2; FastChat compute_agreement.py): with ties, tie / both bad / inconsistent are "
    "one answer; without ties, only pairs where both picked A or B."
)


def _pair_row(result: Any, majority: bool = False) -> tuple[Any, ...]:
    w, wo = result.with_ties, result.without_ties
    row = (result.type_x, result.type_y, estimate_cell(w, "pairs", NO_PAIR), interval_cell(w),
           result.n_pairs_with_ties, estimate_cell(wo, "pairs", NO_PAIR_NT), interval_cell(wo),
           result.n_pairs_without_ties, result.n_items)
    return (*row, result.n_items_tied) if majority else row


def pairwise_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.cohorts import cohort_confusion
    from annotate.analysis.majority import describe_rule
    from annotate.analysis.pairwise import majority_agreement, type_agreement

    payload: dict[str, Any] = {"type_agreement": [], "per_turn": [], "majority": [], "confusion": [],
                               "majority_rule": ctx.majority, "mtbench_human": list(ctx.mtbench_human)}
    if not ctx.pairwise:
        return Section(KEY, TITLE, notes=("Applies to pairwise sessions only.",)), payload
    humans = ctx.humans.assign(rater_type=ctx.humans["cohort"])
    cohorts = cohorts_of(humans)
    rows = []
    if len(cohorts) > 1:
        pooled = humans.assign(rater_type=HUMAN)
        result = type_agreement(pooled, HUMAN, HUMAN, n_boot=ctx.n_boot, seed=ctx.seed)
        rows.append(_pair_row(result))
        payload["type_agreement"].append(result.to_json())
    for x, y in combinations_with_replacement(cohorts, 2):
        result = type_agreement(humans, x, y, n_boot=ctx.n_boot, seed=ctx.seed)
        if x == y or result.n_pairs_with_ties:
            rows.append(_pair_row(result))
            payload["type_agreement"].append(result.to_json())
    notes = (
        _DEFINITION + " Human cohorts only: human = " + " + ".join(cohorts or ["(none)"])
        + "; LLM judges are compared with them in section \"LLM judges against humans\".",
        ctx.ci_note,
        *((f"Graded answers collapsed to a preference: {ctx.collapse_rule}.",) if ctx.collapse_rule else ()),
    )
    tables = [Table("pairwise_types", "Agreement between human raters", _PAIR_COLUMNS, tuple(rows), notes)]
    turn_table = _turn_table(ctx, payload)
    if turn_table is not None:
        tables.append(turn_table)
    rows = []
    for x, y in combinations(cohorts, 2):
        result = majority_agreement(humans, x, y, n_boot=ctx.n_boot, seed=ctx.seed, rule=ctx.majority)
        rows.append(_pair_row(result, majority=True))
        payload["majority"].append(result.to_json())
    tables.append(Table(
        "pairwise_majority", "Cohort majority against cohort majority", _MAJORITY_COLUMNS, tuple(rows),
        empty=not_enough(len(cohorts), "human cohorts", "majorities need two cohorts to compare"),
        notes=(f"Per item, each cohort's verdict by the rule {describe_rule(ctx.majority)} (--majority); items a "
         "cohort did not vote on are left out, items where a cohort's majority is tied are dropped and counted; "
         "pairs = items.",),
    ))
    classes = ("A", "B", "tie")
    merged = humans.assign(label=humans["label"].replace({"both_bad": "tie"}))
    for x, y in combinations(cohorts, 2):
        matrix = cohort_confusion(merged, x, y, classes, rule=ctx.majority)
        total = int(matrix.to_numpy().sum())
        payload["confusion"].append({
            "x": x, "y": y, "labels": list(classes), "counts": matrix.to_numpy().tolist(), "n_items": total,
            "rule": ctx.majority,
        })
        cells = tuple((f"{x}: {label}", *(int(v) for v in matrix.loc[label]), int(matrix.loc[label].sum()))
                      for label in classes)
        columns = (Column(f"{x} majority \\ {y} majority"), *(Column(f"{y}: {c}", "int") for c in classes),
                   Column("items", "int"))
        tables.append(Table(
            f"confusion_{x}_{y}", f"Confusion matrix: {x} majority (rows) by {y} majority (columns)", columns, cells,
            (f"{plural(total, 'item')} with a majority in both cohorts (rule: {describe_rule(ctx.majority)}); "
             "diagonal = the cohorts agree.",),
            Chart("heat", label=0, cells=tuple(range(1, 1 + len(classes))), title=f"{x} vs {y}"),
        ))
    return Section(KEY, TITLE, tuple(tables)), payload


def _turns(votes: pd.DataFrame) -> list[int]:
    """The whole-number turns of the items voted on (MT-Bench items carry 1 or 2)."""
    import pandas as pd

    if "turn" not in votes.columns:
        return []
    turns = pd.to_numeric(votes["turn"], errors="coerce").dropna()
    return sorted(int(t) for t in turns.unique())


def _turn_table(ctx: Context, payload: dict[str, Any]) -> Table | None:
    """MT-Bench's table: each LLM judge against the "human" cohorts, and human against human, per turn
    and over both turns, on the items that carry a turn."""
    import pandas as pd

    from annotate.analysis.pairwise import type_agreement

    turns = _turns(ctx.unique)
    if not turns:
        return None
    votes = ctx.unique.assign(turn=pd.to_numeric(ctx.unique["turn"], errors="coerce"))
    votes = votes.loc[votes["turn"].notna()]
    human = votes["cohort"].isin(ctx.mtbench_human)
    named = " + ".join(ctx.mtbench_human)
    comparisons = [(judge, votes.loc[(votes["rater"] == judge) & votes["cohort"].eq("llm")].assign(rater_type="judge"))
                   for judge in sorted(ctx.judges["rater"].unique())]
    rows = []
    scopes: list[tuple[str, int | None]] = [(str(t), t) for t in turns] + ([("all", None)] if len(turns) > 1 else [])
    humans = votes.loc[human].assign(rater_type=HUMAN)

    def scoped(frame: pd.DataFrame, turn: int | None) -> pd.DataFrame:
        return frame if turn is None else frame.loc[frame["turn"] == turn]

    for judge, mine in comparisons:
        for label, turn in scopes:
            part = pd.concat([scoped(mine, turn), scoped(humans, turn)])
            result = type_agreement(part, "judge", HUMAN, n_boot=ctx.n_boot, seed=ctx.seed)
            rows.append((f"{judge} vs {named}", label, *_pair_row(result)[2:]))
            payload["per_turn"].append({"comparison": "judge", "judge": judge, "human": list(ctx.mtbench_human),
                                        "turn": label, **result.to_json()})
    for label, turn in scopes:
        result = type_agreement(scoped(humans, turn), HUMAN, HUMAN, n_boot=ctx.n_boot, seed=ctx.seed)
        rows.append((f"{named} vs {named}", label, *_pair_row(result)[2:]))
        payload["per_turn"].append({"comparison": "human", "judge": None, "human": list(ctx.mtbench_human),
                                    "turn": label, **result.to_json()})
    notes = (
        f"As in MT-Bench's agreement table (Zheng et al. 2023, section 4.2), per turn judged and over all turns: "
        f"human = the {named} cohort{'s' if len(ctx.mtbench_human) > 1 else ''} (--mtbench-human; the MT-Bench "
        "authors' own votes are cohort author, not expert). " + _DEFINITION,
        ctx.ci_note,
    )
    return Table("pairwise_per_turn", "MT-Bench agreement per turn", _TURN_COLUMNS, tuple(rows), notes)
