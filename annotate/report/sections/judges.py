"""LLM judges against humans: each judge with each human cohort and with the human majority, apart
from the headline figures (which are the human cohorts' unless --pool-llm)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.cells import NO_PAIR, NO_PAIR_NT, estimate_cell, interval_cell, share_cell
from annotate.report.context import Context, cohorts_of, long_votes, not_enough
from annotate.report.model import Chart, Column, Section, Table
from annotate.text import plural

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store import Store

KEY, TITLE = "judges", "LLM judges against humans"
HUMAN = "human"
"""The rater type of every human vote in the judge-vs-human-majority comparison."""
JUDGE = "llm"
"""The rater type of one judge's votes."""
BASELINE = "(human baseline)"

_PAIR_COLUMNS = (
    Column("judge"), Column("against"), Column("with ties", "num"), Column("with ties 95 % CI", "ci"),
    Column("pairs", "int"), Column("without ties", "num"), Column("without ties 95 % CI", "ci"),
    Column("pairs w/o ties", "int"), Column("items", "int"), Column("items dropped (tied majority)", "int"),
)


def pair_row(name: str, against: str, result: Any) -> tuple[Any, ...]:
    """One row of `_PAIR_COLUMNS` from a `PairAgreement`."""
    w, wo = result.with_ties, result.without_ties
    return (name, against, estimate_cell(w, "pairs", NO_PAIR), interval_cell(w), result.n_pairs_with_ties,
            estimate_cell(wo, "pairs", NO_PAIR_NT), interval_cell(wo), result.n_pairs_without_ties, result.n_items,
            result.n_items_tied if result.rule else None)


def judges_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    payload: dict[str, Any] = {"majority_rule": ctx.majority, "pairwise": [], "consensus": [], "confusion": []}
    judges, humans = ctx.judges, ctx.humans
    if judges.empty:
        return Section(KEY, TITLE, notes=("No LLM judges in this session (cohort llm): nothing to compare.",)), payload
    if humans.empty:
        return Section(KEY, TITLE, notes=(not_enough(0, "human votes", "no human rater voted, so the judges "
                                                     "cannot be compared with humans"),)), payload
    notes = [
        f"{plural(judges['rater'].nunique(), 'LLM judge')} ({plural(len(judges), 'vote')}) against "
        f"{plural(humans['rater'].nunique(), 'human rater')} ({plural(len(humans), 'vote')}). "
        + ("They are pooled with the humans in the headline figures (--pool-llm)." if ctx.pool_llm else
           "They are not part of the headline figures; pass --pool-llm to pool them (the report then says so)."),
    ]
    if ctx.pairwise:
        tables = _pairwise_tables(ctx, judges, humans, payload)
    elif ctx.spec.kind == "single":
        tables = [_consensus_table(ctx, judges, humans, payload)]
    else:
        tables = []
        notes.append("Rubric sessions: judges are not compared per criterion yet.")
    return Section(KEY, TITLE, tuple(tables), tuple(notes)), payload


def _pairwise_tables(ctx: Context, judges: pd.DataFrame, humans: pd.DataFrame, payload: dict[str, Any]) -> list[Table]:
    import pandas as pd

    from annotate.analysis.cohorts import cohort_confusion
    from annotate.analysis.majority import describe_rule
    from annotate.analysis.pairwise import majority_agreement, type_agreement

    rows = []
    human_cohorts = cohorts_of(humans)
    for judge in sorted(judges["rater"].unique()):
        mine = judges.loc[judges["rater"] == judge].assign(rater_type=JUDGE)
        for cohort in human_cohorts:
            theirs = humans.loc[humans["cohort"] == cohort].assign(rater_type=cohort)
            result = type_agreement(pd.concat([mine, theirs]), JUDGE, cohort, n_boot=ctx.n_boot, seed=ctx.seed)
            rows.append(pair_row(judge, f"{cohort} votes", result))
            payload["pairwise"].append({"judge": judge, "against": cohort, **result.to_json()})
        everyone = humans.assign(rater_type=HUMAN)
        result = majority_agreement(pd.concat([mine, everyone]), JUDGE, HUMAN, n_boot=ctx.n_boot, seed=ctx.seed,
                                    rule=ctx.majority)
        rows.append(pair_row(judge, "human majority", result))
        payload["pairwise"].append({"judge": judge, "against": "human majority", **result.to_json()})
    for cohort in human_cohorts:  # how often two humans of a cohort agree: what a judge is measured against
        theirs = humans.loc[humans["cohort"] == cohort].assign(rater_type=cohort)
        result = type_agreement(theirs, cohort, cohort, n_boot=ctx.n_boot, seed=ctx.seed)
        if result.n_pairs_with_ties:
            rows.append(pair_row(BASELINE, f"{cohort} vs {cohort}", result))
            payload["pairwise"].append({"judge": None, "against": f"{cohort} vs {cohort}", **result.to_json()})
    notes = (
        "Against a cohort's votes: the probability that the judge and a rater of that cohort agree on a random "
        "item, pooled over (judge vote, human vote) pairs (Zheng et al. 2023, MT-Bench, section 4.2); with ties, "
        "tie / both bad / inconsistent are one answer; without ties, only pairs where both picked A or B.",
        f"Against the human majority: one verdict per item from all human votes, rule {describe_rule(ctx.majority)} "
        "(--majority); pairs = items; items dropped = items where the majority was tied.",
        f"{BASELINE}: two different raters of one cohort, for comparison.",
        ctx.ci_note,
    )
    tables = [Table("judges_pairwise", "Each LLM judge against each human cohort and the human majority",
                    _PAIR_COLUMNS, tuple(rows), notes,
                    Chart("interval", label=0, value=2, ci=3, domain=(0.0, 1.0), title="agreement with ties",
                          sublabel=1))]
    classes = ("A", "B", "tie")
    merged = pd.concat([judges.assign(cohort=JUDGE), humans.assign(cohort=HUMAN)])
    merged = merged.assign(label=merged["label"].replace({"both_bad": "tie"}))
    matrix = cohort_confusion(merged, JUDGE, HUMAN, classes, rule=ctx.majority)
    total = int(matrix.to_numpy().sum())
    payload["confusion"].append({"x": JUDGE, "y": HUMAN, "labels": list(classes),
                                 "counts": matrix.to_numpy().tolist(), "n_items": total, "rule": ctx.majority})
    cells = tuple((f"LLM: {label}", *(int(v) for v in matrix.loc[label]), int(matrix.loc[label].sum()))
                  for label in classes)
    columns = (Column("LLM majority \\ human majority"), *(Column(f"human: {c}", "int") for c in classes),
               Column("items", "int"))
    tables.append(Table(
        "judges_confusion", "Confusion matrix: LLM judges' majority (rows) by the human majority (columns)", columns,
        cells, (f"{plural(total, 'item')} with a majority on both sides (rule: {describe_rule(ctx.majority)}); "
                "diagonal = they agree.",),
        Chart("heat", label=0, cells=(1, 2, 3), title="LLM vs human"),
    ))
    return tables


def _consensus_table(ctx: Context, judges: pd.DataFrame, humans: pd.DataFrame, payload: dict[str, Any]) -> Table:
    import pandas as pd

    from annotate.analysis.cohorts import rest_agreement

    rows = []
    groups = [(f"{c} consensus", humans.loc[humans["cohort"] == c]) for c in cohorts_of(humans)]
    groups.append(("human consensus", humans))
    for judge in sorted(judges["rater"].unique()):
        mine = judges.loc[judges["rater"] == judge]
        for against, theirs in groups:
            ratings = long_votes(pd.concat([mine, theirs]))
            found = rest_agreement(ratings, ctx.level, list(ctx.categories), n_boot=ctx.n_boot, seed=ctx.seed,
                                   alpha_without_max_raters=0, only=[judge])
            if found:
                r = found[0]
                rows.append((judge, against, estimate_cell(r.kappa), interval_cell(r.kappa),
                             share_cell(r.share, r.n, "items", "no item rated by both"), (r.ci_low, r.ci_high), r.n))
                payload["consensus"].append({"judge": judge, "against": against, **r.to_json()})
            else:
                rows.append((judge, against, None, None, share_cell(0.0, 0, "items", "no item rated by both"), None, 0))
                payload["consensus"].append({"judge": judge, "against": against, "kappa": None, "agreement": None,
                                             "reason": "no item rated by both"})
    kind = "Cohen's kappa" if ctx.level == "nominal" else "linearly weighted Cohen's kappa"
    notes = (f"Each judge against the consensus of a human group (the lower median of their grades): {kind} and "
             "the share of items where the judge's grade equals it (Wilson interval).", ctx.ci_note)
    columns = (Column("judge"), Column("against"), Column("kappa", "num"), Column("kappa 95 % CI", "ci"),
               Column("agreement", "num"), Column("agreement 95 % CI", "ci"), Column("items", "int"))
    return Table("judges_consensus", "Each LLM judge against each human cohort's consensus", columns, tuple(rows),
                 notes)
