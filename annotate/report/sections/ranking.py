"""Ranking: Bradley-Terry of the headline raters and per cohort, per connected component of the comparison
graph; intervals resample items; win rates per vote and per item."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from annotate.frame_codes import nunique
from annotate.report.cells import number_cell
from annotate.report.context import Context, cohorts_of, not_enough
from annotate.report.model import Chart, Column, Section, Table
from annotate.text import plural

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store import Store


_RANK_COLUMNS = (
    Column("rank", "int"), Column("model"), Column("rating", "num1"), Column("95 % CI", "ci"),
    Column("win rate (votes)", "pct"), Column("95 % CI", "pctci"), Column("win rate (items)", "pct"),
    Column("95 % CI", "pctci"), Column("battles", "int"), Column("items", "int"),
    Column("items dropped (tied majority)", "int"), Column("wins", "int"), Column("losses", "int"),
    Column("ties", "int"),
)


def _n_components(ranking: Sequence[Any]) -> int:
    return max((r.component for r in ranking), default=0)


def _components_note(ranking: Sequence[Any]) -> str:
    """What a lead must know when the battle graph falls apart into groups never compared."""
    groups = _n_components(ranking)
    sizes = [sum(1 for r in ranking if r.component == g) for g in range(1, groups + 1)]
    return (
        f"NOT ONE SCALE: the models fall into {groups} groups that were never compared, directly or through "
        f"other models (groups of {', '.join(map(str, sizes))} models). Ratings and ranks compare models of the "
        "same group only; a rating in one group says nothing about a model in another. Add battles between the "
        "groups to rank them together."
    )


def _row(r: Any, split: bool) -> tuple[Any, ...]:
    why = "no battle"
    item_rate = number_cell(r.item_win_rate, r.n_items - r.items_dropped, "items", "every item's majority was tied")
    return ((r.component,) if split else ()) + (
        r.rank, r.model, r.rating, (r.ci_low, r.ci_high), number_cell(r.win_rate, r.n_battles, "battles", why),
        r.win_rate_ci, item_rate, r.item_win_rate_ci, r.n_battles, r.n_items, r.items_dropped, r.wins, r.losses,
        r.ties)


def _method_notes(ctx: Context) -> tuple[str, ...]:
    """How every leaderboard of the section is computed (said once, above the tables)."""
    from annotate.analysis.majority import describe_rule

    return (
        "Bradley-Terry maximum likelihood, ties as half a win each; rating on an Elo-like scale (mean 1000, +400 = "
        "10:1 odds); rank = 1 + the number of models whose lower bound is above this model's upper bound.",
        f"95 % intervals: bootstrap over items ({ctx.n_boot} resamples of items, each with all its votes; seed "
        f"{ctx.seed}), so votes that share an item are not counted as independent evidence.",
        "win rate (votes) = (wins + ties / 2) / battles; win rate (items) = one verdict per item by the rule "
        f"{describe_rule(ctx.majority)} (--majority): (items won + items tied / 2) / items with a verdict; items "
        "dropped = items whose majority was tied.",
    )


def _ranking_table(
    key: str, title: str, ranking: Sequence[Any], n_battles: int, ctx: Context, note_split: bool = True,
    n_items: int = 0,
) -> Table:
    """One leaderboard; with a ``group`` column (and, if note_split, the warning) when it has several components."""
    split = _n_components(ranking) > 1
    columns = (Column("group", "int"), *_RANK_COLUMNS) if split else _RANK_COLUMNS
    rows = tuple(_row(r, split) for r in ranking)
    notes = (
        *((_components_note(ranking),) if split and note_split else ()),
        f"{plural(n_battles, 'battle')} on {plural(n_items, 'item')}"
        + ("; rank counts models of the same group only." if split else "."),
    )
    offset = 1 if split else 0
    return Table(key, title, columns, rows, notes,
                 Chart("interval", label=1 + offset, value=2 + offset, ci=3 + offset,
                       title="rating with 95 % interval"))


def _ranking_json(ranking: Sequence[Any], n_battles: int, n_items: int) -> dict[str, Any]:
    groups = _n_components(ranking)
    return {"n_battles": n_battles, "n_items": n_items, "unit": "items", "n_components": groups,
            "note": _components_note(ranking) if groups > 1 else None,
            "models": [r.to_json() for r in ranking]}


def _rank(ctx: Context, battles: pd.DataFrame) -> Sequence[Any]:
    from annotate.analysis.ranking import rank_models

    return rank_models(battles, n_boot=ctx.n_boot, seed=ctx.seed, item="item", majority=ctx.majority)


IMPLIED_METHOD = (
    "Ranking sessions: Bradley-Terry on the implied pairs. Each ranking of k responses gives k (k - 1) / 2 battles, "
    "one per pair of its responses with different named models: the one placed higher wins, a shared place is a tie "
    "(half a win each). The pairs of one ranking are not independent, so the intervals resample items with all "
    "their rankings; win rate (items) takes one verdict per item and model pair, so a model's items column counts "
    "(item, opponent) verdicts.")


def implied_battles(ctx: Context, store: Store) -> pd.DataFrame:
    """The battles the ranking votes that count imply (`annotate.analysis.rankings.battles_from_ranks`),
    with item, rater and cohort."""
    from annotate.analysis.rankings import battles_from_ranks
    from annotate.report.sections.rankings import rank_frame

    ranks = rank_frame(ctx, store)
    if ranks.empty:
        import pandas as pd

        return pd.DataFrame(columns=["model_a", "model_b", "winner", "item", "rater", "cohort"])
    return battles_from_ranks(ranks)


def ranking_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.cohorts import battles_from_votes

    payload: dict[str, Any] = {"overall": _ranking_json((), 0, 0), "overall_raters": "all" if ctx.pool_llm else
                               "human", "majority_rule": ctx.majority, "per_cohort": [],
                               "method": IMPLIED_METHOD if ctx.ranking else None}
    if ctx.ranking:
        battles = implied_battles(ctx, store)
        if battles.empty:
            return Section("ranking", "Ranking", notes=("No battles: no ranking of items with named models.",)), payload
    elif not ctx.pairwise:
        return Section("ranking", "Ranking", notes=("Ranking applies to pairwise and ranking sessions only.",)), payload
    else:
        battles = battles_from_votes(ctx.unique)
    if battles.empty:
        return Section("ranking", "Ranking", notes=("No battles: no pairwise votes on items with two named "
                                                    "models.",)), payload
    headline = battles.loc[ctx.is_headline(battles)]
    tables, notes = [], []
    if headline.empty:
        notes.append(f"{ctx.headline_name}: " + not_enough(0, "battles", "no human vote on an item with two named "
                                                                         "models"))
        overall: Sequence[Any] = ()
        headline_items = 0
    else:
        overall = _rank(ctx, headline)
        headline_items = nunique(headline, "item")
        payload["overall"] = _ranking_json(overall, len(headline), headline_items)
        if len(overall) < 2:
            notes.append(f"Ranking, {ctx.headline_name.lower()}: "
                         + not_enough(len(overall), "models", "a ranking needs two models compared"))
        else:
            tables.append(_ranking_table("ranking_overall", f"Ranking: {ctx.headline_name.lower()}", overall,
                                         len(headline), ctx, note_split=False,  # the section's note says it
                                         n_items=headline_items))
    for cohort in cohorts_of(battles):
        part = battles.loc[battles["cohort"] == cohort]
        # the headline's battles are this cohort's, row for row: its ranking is the headline's (fitted once)
        same_as_headline = len(part) == len(headline) and set(headline["cohort"]) == {cohort}
        ranking = overall if same_as_headline else _rank(ctx, part)
        n_items = headline_items if same_as_headline else nunique(part, "item")
        payload["per_cohort"].append({"cohort": cohort, **_ranking_json(ranking, len(part), n_items)})
        if len(ranking) >= 2 and not same_as_headline:  # one cohort alone would repeat the table above
            tables.append(_ranking_table(f"ranking_{cohort}", f"Ranking: {cohort} votes", ranking, len(part), ctx,
                                         n_items=n_items))
    if _n_components(overall) > 1:
        notes.insert(0, _components_note(overall))
    if ctx.collapse_rule:
        notes.append(f"Each graded answer is one battle, collapsed to a preference: {ctx.collapse_rule}.")
    if ctx.ranking:
        notes.append(IMPLIED_METHOD)
    return Section("ranking", "Ranking", tuple(tables), (*notes, *_method_notes(ctx))), payload
