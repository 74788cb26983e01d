"""Rankings (sessions that rank k responses per item): agreement on the rankings (Kendall's W with the
tie correction, and Krippendorff's alpha at the ordinal level on the mid-ranks), and position bias by
display position. The model ranking from the implied pairs is in section Ranking (`ranking.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.cells import estimate_cell, interval_cell, number_cell, share_cell
from annotate.report.context import Context, cohorts_of, not_enough
from annotate.report.model import Chart, Column, Section, Table

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store import Store

KEY, TITLE = "rankings", "Rankings"
W_NOTE = (
    "Kendall's W per item over its m rankings, corrected for ties (Siegel & Castellan 1988, eq. 9.18): 0 = no "
    "agreement, 1 = every ranking the same; the figure is the mean over items with two or more rankings (each item "
    "weighs the same); chance = the mean of 1 / m, what W is near when the rankings agree no more than by chance."
)
ALPHA_NOTE = (
    "alpha (ordinal, ranks) = Krippendorff's alpha at the ordinal level on each response's mid-rank (a tie of "
    "places 2 and 3 is 2.5 each), units (item, response), coincidences summed per item."
)


def rank_frame(ctx: Context, store: Store, votes: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (vote, slot) of the ranking votes that count (`ctx.unique` unless ``votes``):
    item, rater, cohort, source, slot, rank (mid-rank, 1 = best), position (the display position
    1..k the slot was shown at; NaN for imported votes, whose display order is not known), model."""
    import pandas as pd

    from annotate.store.response_frames import responses_frame

    question = ctx.spec.schema.primary
    votes = ctx.unique if votes is None else votes
    columns = ["item", "rater", "cohort", "source", "slot", "rank", "position", "model"]
    rows = []
    for item, rater, cohort, source, value, order in zip(
            votes["item"], votes["rater"], votes["cohort"], votes["source"], votes["value"], votes["display_order"],
            strict=True):
        order = str(order) if isinstance(order, str) and order else ""
        for slot, rank in question.ranks(value).items():  # type: ignore[union-attr]
            position = order.index(slot) + 1 if slot in order else float("nan")
            rows.append((item, rater, cohort, source, slot, rank, position, None))
    frame = pd.DataFrame(rows, columns=columns)
    if frame.empty:
        return frame
    models = responses_frame(store).assign(item=lambda r: r["item"].astype(str))
    frame = frame.drop(columns="model").merge(models[["item", "slot", "model"]], on=["item", "slot"], how="left")
    return frame[columns]


def _agreement(ranks: pd.DataFrame, ctx: Context) -> dict[str, Any]:
    from annotate.analysis.rankings import kendall_w, rank_alpha

    w = kendall_w(ranks, n_boot=ctx.n_boot, seed=ctx.seed)
    alpha = rank_alpha(ranks, n_boot=ctx.n_boot, seed=ctx.seed)
    n_rankings = int(ranks.groupby(["item", "rater"]).ngroups) if len(ranks) else 0
    return {"kendall_w": w, "alpha": alpha, "n_rankings": n_rankings,
            "n_items": int(ranks["item"].nunique()) if len(ranks) else 0}


def _agreement_json(result: dict[str, Any]) -> dict[str, Any]:
    return {"kendall_w": result["kendall_w"].to_json(), "alpha_ordinal": result["alpha"].to_json(),
            "n_rankings": result["n_rankings"], "n_items": result["n_items"]}


_AGREEMENT_COLUMNS = (
    Column("raters"), Column("Kendall's W", "num"), Column("W 95 % CI", "ci"), Column("chance", "num"),
    Column("alpha (ordinal, ranks)", "num"), Column("alpha 95 % CI", "ci"), Column("items", "int"),
    Column("raters", "int"), Column("rankings", "int"), Column("tied rankings", "int"),
)


def _agreement_row(name: str, result: dict[str, Any]) -> tuple[Any, ...]:
    w, alpha = result["kendall_w"], result["alpha"]
    mean = w.mean
    why = "no item ranked by two raters" if mean.n_units == 0 else "every ranking of every item ties all responses"
    chance = number_cell(w.chance, mean.n_units, "items", "no item ranked by two raters")
    return (name, estimate_cell(mean, why=why), interval_cell(mean), chance, estimate_cell(alpha),
            interval_cell(alpha), mean.n_units, mean.n_raters, mean.n_pairable, w.tied_rankings)


def _position_table(bias: Any, ctx: Context) -> Table:
    rows = []
    for p in range(bias.k):
        mean, first = bias.mean_rank[p], bias.first[p]
        rows.append((str(p + 1), estimate_cell(mean, "items", "no ranking shown at this position"),
                     interval_cell(mean), bias.expected_rank,
                     share_cell(first.share, first.n, "rankings", "no ranking with one response alone first"),
                     (first.ci_low, first.ci_high), 1 / bias.k, first.p_value, bias.p_holm[p], first.k, first.n))
    columns = (
        Column("position"), Column("mean rank", "num"), Column("95 % CI", "ci"), Column("expected", "num"),
        Column("ranked first", "pct"), Column("95 % CI", "pctci"), Column("expected first", "pct"), Column("p", "p"),
        Column("p (Holm)", "p"), Column("first here", "int"), Column("rankings", "int"),
    )
    notes = (
        f"The session's judgments of the {ctx.headline_name.lower()} ({bias.n_rankings} rankings; imported votes "
        "carry no display order): position p is the response the screen titled Response p. mean rank = "
        f"the mean mid-rank of the response shown there, expected {bias.expected_rank:g} when the position plays no "
        f"part; ranked first = share of rankings with one response alone in first place that put the one shown there "
        f"first, expected 1 / {bias.k}; exact binomial test on the effective counts (items hold several rankings), "
        "Holm's correction over the positions. The plan counterbalances the display orders, so a bias here moves "
        "no model's figures on average.",
        ctx.ci_note,
    )
    return Table("rankings_position", "Position bias by display position", columns, tuple(rows), notes,
                 Chart("interval", label=0, value=1, ci=2, title="mean rank by display position with 95 % interval"),
                 empty=not_enough(0, "rankings", "no ranking made on screen"))


def rankings_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]] | None:
    """None unless the session ranks k responses per item."""
    if not ctx.ranking:
        return None
    from annotate.analysis.rankings import position_bias

    question = ctx.spec.schema.primary
    k = int(question.k)  # type: ignore[union-attr]
    ranks = rank_frame(ctx, store)
    payload: dict[str, Any] = {"k": k, "ties": bool(question.ties),  # type: ignore[union-attr]
                               "raters": "all" if ctx.pool_llm else "human", "overall": None, "per_cohort": [],
                               "position": None, "implied_pairs": k * (k - 1) // 2}
    if ranks.empty:
        return Section(KEY, TITLE, notes=("No rankings yet.",)), payload
    headline = ranks.loc[ctx.is_headline(ranks)]
    rows = []
    if not headline.empty:
        result = _agreement(headline, ctx)
        payload["overall"] = _agreement_json(result)
        rows.append(_agreement_row(ctx.headline_name, result))
    for cohort in cohorts_of(ranks):
        part = ranks.loc[ranks["cohort"] == cohort]
        result = _agreement(part, ctx)
        payload["per_cohort"].append({"cohort": cohort, **_agreement_json(result)})
        if not (len(part) == len(headline) and set(headline["cohort"]) == {cohort}):  # else the row above again
            rows.append(_agreement_row(f"{cohort} cohort", result))
    tables = [Table("rankings_agreement", "Agreement on the rankings", _AGREEMENT_COLUMNS, tuple(rows),
                    (W_NOTE, ALPHA_NOTE, ctx.ci_note, "tied rankings = rankings with a tie (the tie correction "
                                                      "applies to them)."))]
    shown = headline.loc[headline["position"].notna()]
    if not shown.empty:
        bias = position_bias(shown, k, n_boot=ctx.n_boot, seed=ctx.seed)
        payload["position"] = {"n_rankings": bias.n_rankings, "expected_rank": bias.expected_rank,
                               "positions": bias.to_json()}
        tables.append(_position_table(bias, ctx))
    notes = (f"{ctx.spec.schema.summary().capitalize()}: each ranking is stored in slot space (A, B, C, ...) and "
             "read as each response's mid-rank; the model ranking (section Ranking) uses the "
             f"{k * (k - 1) // 2} pairs each ranking implies.",)
    return Section(KEY, TITLE, tuple(tables), notes), payload
