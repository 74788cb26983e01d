"""Ranking: Bradley-Terry per cohort and per connected component of the comparison graph."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from annotate.report.context import Context, cohorts_of
from annotate.report.model import Chart, Column, Section, Table
from annotate.text import plural

if TYPE_CHECKING:
    from annotate.store import Store


_RANK_COLUMNS = (
    Column("rank", "int"), Column("model"), Column("rating", "num1"), Column("95 % CI", "ci"),
    Column("win rate", "pct"), Column("battles", "int"), Column("wins", "int"), Column("losses", "int"),
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


def _ranking_table(
    key: str, title: str, ranking: Sequence[Any], n_battles: int, ctx: Context, note_split: bool = True,
) -> Table:
    """One leaderboard; with a ``group`` column (and, if note_split, the warning) when it has several components."""
    split = _n_components(ranking) > 1
    columns = (Column("group", "int"), *_RANK_COLUMNS) if split else _RANK_COLUMNS
    rows = tuple(((r.component,) if split else ()) + (r.rank, r.model, r.rating, (r.ci_low, r.ci_high), r.win_rate,
                                                        r.n_battles, r.wins, r.losses, r.ties) for r in ranking)
    notes = (
        *((_components_note(ranking),) if split and note_split else ()),
        f"{plural(n_battles, 'battle')}. Bradley-Terry maximum likelihood, ties as half a win each; rating on an "
        "Elo-like scale (mean 1000, +400 = 10:1 odds); 95 % bootstrap interval over battles "
        f"({ctx.n_boot} resamples, seed {ctx.seed}); rank = 1 + the number of models "
        + ("of the same group " if split else "")
        + "whose lower bound is above this model's upper bound; win rate = (wins + ties / 2) / battles.",
    )
    offset = 1 if split else 0
    return Table(key, title, columns, rows, notes,
                 Chart("interval", label=1 + offset, value=2 + offset, ci=3 + offset,
                       title="rating with 95 % interval"))


def _ranking_json(ranking: Sequence[Any], n_battles: int) -> dict[str, Any]:
    groups = _n_components(ranking)
    return {"n_battles": n_battles, "n_components": groups,
            "note": _components_note(ranking) if groups > 1 else None,
            "models": [r.to_json() for r in ranking]}


def ranking_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.cohorts import battles_from_votes
    from annotate.analysis.ranking import rank_models

    payload: dict[str, Any] = {"overall": _ranking_json((), 0), "per_cohort": []}
    if not ctx.pairwise:
        return Section("ranking", "Ranking", notes=("Ranking applies to pairwise sessions only.",)), payload
    battles = battles_from_votes(ctx.unique)
    tables = []
    if battles.empty:
        return Section("ranking", "Ranking", notes=("No battles: no pairwise votes on items with two named "
                                                    "models.",)), payload
    overall = rank_models(battles, n_boot=ctx.n_boot, seed=ctx.seed)
    payload["overall"] = _ranking_json(overall, len(battles))
    tables.append(_ranking_table("ranking_overall", "Ranking: all raters", overall, len(battles), ctx,
                                 note_split=False))  # the section's note says it
    for cohort in cohorts_of(battles):
        part = battles.loc[battles["cohort"] == cohort]
        ranking = rank_models(part, n_boot=ctx.n_boot, seed=ctx.seed)
        payload["per_cohort"].append({"cohort": cohort, **_ranking_json(ranking, len(part))})
        tables.append(_ranking_table(f"ranking_{cohort}", f"Ranking: {cohort} votes", ranking, len(part), ctx))
    notes = (_components_note(overall),) if _n_components(overall) > 1 else ()
    return Section("ranking", "Ranking", tuple(tables), notes), payload
