"""Style-controlled ranking: the plain Bradley-Terry ranking beside the one with style held fixed.

Built from `annotate.analysis.style_control` on the votes of items whose two answers are stored
(the style features are counted from the answers' texts, `annotate.analysis.style`).  Human votes
are the headline; the LLM judges' votes are ranked apart when there are any.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.context import Context
from annotate.report.figures import interval, signed, value
from annotate.report.model import Column, Section, Table
from annotate.report.style_counts import style_counts
from annotate.text import plural

if TYPE_CHECKING:
    from annotate.analysis.style_control import StyleControl
    from annotate.store import Store

KEY, TITLE = "style_control", "Style-controlled ranking"
FEATURE_NAMES = {"tokens": "length (tokens)", "headers": "markdown headers", "list_items": "list items",
                 "bold": "bold spans"}

_RANK_COLUMNS = (
    Column("model"), Column("plain rating", "num1"), Column("plain 95 % CI", "ci"), Column("plain rank", "int"),
    Column("controlled rating", "num1"), Column("controlled 95 % CI", "ci"), Column("controlled rank", "int"),
    Column("rank change"), Column("battles", "int"),
)
_COEF_COLUMNS = (
    Column("feature"), Column("coefficient (per sd)", "num"), Column("95 % CI", "ci"),
    Column("per unit", "num"),
    Column("sd", "num"), Column("battles with it", "int"),
)


def _interval_note(result: StyleControl, ctx: Context) -> str:
    """Where this section's intervals come from: the report's item bootstrap, or (large sessions) the sandwich."""
    if result.interval_method == "sandwich":
        return (f"Intervals: 95 %, {result.interval_method_reason}; items are the clusters, each with all its votes "
                "(not the report's bootstrap: its cost is resamples x items).")
    return ctx.ci_note.rstrip(".") + "; the same resamples for both fits."


def _tables(key: str, label: str, result: StyleControl, dropped: int, ctx: Context) -> list[Table]:
    no_ci = result.interval_reason
    rows = tuple((r.model, r.plain_rating, interval(*r.plain_ci, no_ci), r.plain_rank, r.rating,
                  interval(*r.ci, no_ci), r.rank, signed(r.rank_change), r.n_battles) for r in result.rows)
    what = (f"{plural(result.n_battles, 'battle')} on {plural(result.n_items, 'item')} ({label})"
            + (f"; {plural(dropped, 'battle')} left out: their item has no two stored answers" if dropped else ""))
    rank_notes = (
        what + ". Both rankings are fitted on these same battles: Bradley-Terry maximum likelihood, ties as half a "
        "win each, ratings on an Elo-like scale (mean 1000, +400 = 10:1 odds); the controlled fit adds the four "
        "style features as columns of the logistic design (Chatbot Arena's style control, 2024).",
        _interval_note(result, ctx) + " Rank = 1 + the number of models whose lower bound is above this model's "
        "upper bound; rank change = plain rank - controlled rank (+: rises when style is held fixed).",
        *result.notes,
    )
    coef_rows = tuple(
        (FEATURE_NAMES.get(c.feature, c.feature), value(c.estimate, c.reason),
         interval(c.ci_low, c.ci_high, c.reason or no_ci),
         value(c.per_unit, c.reason), value(c.scale, c.reason), c.n_battles_with)
        for c in result.coefficients)
    coef_notes = (
        "Feature per battle: the normalised difference (f_A - f_B) / (f_A + f_B) of the two answers' counts (0 when "
        "both are 0), scaled to unit standard deviation over the battles (not centred). Coefficient: change in the "
        "log-odds that slot A wins per standard deviation; + means voters favour the answer with more of it at equal "
        "model strength; per unit: per unit of the difference itself (+1 = all of it in slot A's answer); sd: the "
        "standard deviation of the normalised difference. No coefficient: no answer has the feature, or it is the "
        "same in every battle, or it moves with an earlier feature (a linear function of the features before it "
        "in every battle), so their effects cannot be told apart and the earlier one's coefficient carries both.",
        f"Counts: length in {result.tokenizer}; headers are lines starting with 1-6 '#' and a space; list items are "
        "lines starting with -, *, + or '1.' and a space; bold spans are **text** or __text__; markdown inside "
        "fenced code blocks is not counted. Each side's text is its answer plus its own earlier assistant turns.",
    )
    return [
        Table(f"{key}_ranking", f"Ranking with and without style control: {label}", _RANK_COLUMNS, rows, rank_notes),
        Table(f"{key}_coefficients", f"Style coefficients: {label}", _COEF_COLUMNS, coef_rows, coef_notes),
    ]


def style_control_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.cohorts import battles_from_votes
    from annotate.analysis.style_control import style_control

    payload: dict[str, Any] = {"humans": None, "llm": None}
    if not ctx.pairwise:
        return Section(KEY, TITLE, notes=("Style control applies to pairwise sessions only.",)), payload
    battles = battles_from_votes(ctx.unique)
    if battles.empty:
        return Section(KEY, TITLE, notes=("No battles: no pairwise votes on items with two named models.",)), payload
    counts = style_counts(store, codes=True)  # with the items' codes, as the battles carry them
    tables: list[Table] = []
    notes: list[str] = []
    from annotate.report.context import LLM_COHORTS

    judged = battles["cohort"].isin(LLM_COHORTS)
    groups = (("humans", "human votes", ~judged), ("llm", "LLM judges' votes, apart", judged))
    for name, label, mask in groups:
        part = battles.loc[mask]
        if part.empty:
            continue
        result, dropped = style_control(part, counts, n_boot=ctx.n_boot, seed=ctx.seed, intervals=ctx.style_intervals)
        payload[name] = {**result.to_json(), "n_battles_dropped": dropped,
                         "dropped_reason": "item has no two stored answers" if dropped else None}
        if result.reason:
            notes.append(f"{label.capitalize()}: {result.reason}.")
            continue
        tables += _tables(f"{KEY}_{name}", label, result, dropped, ctx)
    if payload["humans"] is None:
        notes.insert(0, "No human votes on battles: the headline style-controlled ranking needs them; the LLM "
                        "judges' votes are ranked apart.")
    return Section(KEY, TITLE, tuple(tables), tuple(notes)), payload
