"""Biases: position (left when not a tie; first shown, for imported votes whose display order is
known) and length (longer chosen): the human raters together, the LLM judges together, and each
rater, with the item as the unit where votes share items; and the votes on items with an empty
response."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.cells import share_cell
from annotate.report.context import JUDGES, LLM_COHORTS, Context, cohort_of_raters, more_raters
from annotate.report.model import Column, Section, Table
from annotate.text import plural

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from annotate.store import Store

SIGNIFICANCE = 0.05
"""A bias is called significant when its p-value (per rater: Holm-adjusted over the raters) is at most this."""
JSON_MAX_RATERS = 1000
"""Per-rater biases the JSON lists one by one at most (the significant ones always; `_listed`)."""

_BIAS_COLUMNS = (
    Column("rater"), Column("cohort"), Column("share", "pct"), Column("95 % CI", "pctci"),
    Column("p (binomial vs 0.5)", "p"), Column("p (Holm)", "p"), Column("k", "int"), Column("n (non-tie)", "int"),
    Column("items", "int"), Column("excluded", "int"),
)

_BIAS_VOTE_COLUMNS = ("item", "rater", "cohort", "source", "label", "label_side", "shown_first", "len_a", "len_b")

UNIT_NOTE = (
    "Intervals: Wilson where each item holds one counted vote (votes are the items); where several votes share "
    "an item (the pooled rows, a rater's repeats) a 95 % percentile bootstrap over items ({n_boot} resamples of "
    "items, seed {seed}), and the binomial test on the effective counts k / deff of n / deff (deff: Kish's design "
    "effect). p (Holm): per-rater p-values adjusted over the raters of the table (Holm 1979); significant at "
    f"{SIGNIFICANCE:g} after the correction when p (Holm) <= {SIGNIFICANCE:g}."
)


def _row(p: Any, name: str, cohort: str | None, holm_p: float | None, why: str) -> tuple[Any, ...]:
    share = share_cell(p.share, p.n, "votes", why)
    return (name, cohort, share, (p.ci_low, p.ci_high) if p.n else None, p.p_value if p.n else None, holm_p, p.k,
            p.n, p.n_items, p.n_excluded)


def _bias(
    ctx: Context, fn: Any, votes: pd.DataFrame, why: str
) -> tuple[dict[str, Any], list[tuple[Any, ...]], tuple[str, ...]]:
    """The bias pooled over the headline raters and over the LLM judges, and per rater: JSON, rows, and
    the note on the raters left out of the rows (none: empty)."""
    from annotate.analysis.bias import holm

    kwargs = {"item": "item", "n_boot": ctx.n_boot, "seed": ctx.seed}
    headline = votes.loc[ctx.is_headline(votes)]
    judges = votes.loc[votes["cohort"].isin(LLM_COHORTS)]
    pooled = fn(headline, **kwargs)
    per_rater = fn(votes, **kwargs).per_rater
    adjusted = holm([p.p_value for p in per_rater])
    cohort_of = cohort_of_raters(votes)
    rows = [_row(pooled.overall, ctx.headline_row, None, None, why)]
    out: dict[str, Any] = {"kind": pooled.kind, "overall": pooled.overall.to_json(), "llm": None, "per_rater": []}
    if not judges.empty and not ctx.pool_llm:
        llm = fn(judges, **kwargs).overall
        rows.append(_row(llm, JUDGES, None, None, why))
        out["llm"] = llm.to_json()
    ranked = sorted(zip(per_rater, adjusted, strict=True), key=lambda pair: (-pair[0].n, str(pair[0].rater)))
    for p, q in ranked[: ctx.max_rows]:
        rows.append(_row(p, str(p.rater), cohort_of.get(p.rater), q if p.n else None, why))
    listed, out["per_rater_left_out"] = _listed(per_rater, adjusted)
    out["n_raters"] = len(per_rater)
    out["per_rater"] = [{**p.to_json(), "cohort": cohort_of.get(p.rater), "p_holm": None if q != q else float(q)}
                        for p, q in listed]
    more = max(0, len(ranked) - ctx.max_rows)
    left_out = out["per_rater_left_out"]
    if left_out is None:
        return out, rows, (more_raters(more),) if more else ()
    listing = (f"the JSON report lists {len(listed)} of the {len(per_rater)} raters (every one with a significant "
               f"bias, then those with most votes) and sums up the other {left_out['n']}.")
    return out, rows, (f"{plural(more, 'more rater')}; {listing}" if more else listing[0].upper() + listing[1:],)


def _listed(
    per_rater: Sequence[Any], adjusted: Sequence[float]
) -> tuple[list[tuple[Any, float]], dict[str, Any] | None]:
    """The raters the JSON lists one by one, in rater order, and a summary of the others (None: none left out).

    Past `JSON_MAX_RATERS` raters (a crowd of thousands: 40,000 Arena judges were 20 MB of JSON) the list keeps
    every rater whose bias is significant after Holm's correction (the summary reads them) and then those with
    most counted votes, up to `JSON_MAX_RATERS`."""
    pairs = list(zip(per_rater, adjusted, strict=True))
    if len(pairs) <= JSON_MAX_RATERS:
        return pairs, None
    significant = {k for k, (_, q) in enumerate(pairs) if q == q and q <= SIGNIFICANCE}
    by_votes = sorted(range(len(pairs)), key=lambda k: (k not in significant, -pairs[k][0].n, k))
    keep = significant | set(by_votes[:JSON_MAX_RATERS])
    out = [p for k, (p, _) in enumerate(pairs) if k not in keep]
    return [pair for k, pair in enumerate(pairs) if k in keep], {
        "n": len(out), "k": int(sum(p.k for p in out)), "n_votes": int(sum(p.n for p in out)),
        "why": f"more than {JSON_MAX_RATERS} raters: every rater with a significant bias (p (Holm) <= "
               f"{SIGNIFICANCE:g}) and those with most counted votes are listed; none of the others is significant",
    }


def bias_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.bias import first_shown_bias, length_bias, position_bias

    payload: dict[str, Any] = {"position": None, "first_shown": None, "length": None, "empty_responses": None,
                               "significance": SIGNIFICANCE}
    empty_table, payload["empty_responses"] = _empty_responses(ctx, store)
    if not ctx.pairwise:
        notes = ("Position and length bias apply to pairwise sessions only.",)
        return Section("biases", "Biases", (empty_table,) if empty_table else (), notes), payload
    votes = ctx.coded(list(_BIAS_VOTE_COLUMNS))  # the columns the biases read, items as integers
    judged = votes.loc[votes["source"] == "judgment"]
    unit = UNIT_NOTE.format(n_boot=ctx.n_boot, seed=ctx.seed)
    tables = []
    payload["position"], rows, more = _bias(ctx, position_bias, judged, "no non-tie judgment with a side")
    tables.append(_table(
        "bias_position", "Position bias: share of Left among non-tie judgments", rows, more,
        ("share = picks of the response on the left among non-tie judgments (k of n); 50 % without position bias "
         "when sides are randomised; exact two-sided binomial test against one half (Zheng et al. 2023, section "
         "3.3). The session's own judgments only; imported votes whose display order is known are in the next "
         "table.", unit)))
    ordered = votes.loc[(votes["source"] != "judgment") & votes["shown_first"].isin(["A", "B"])]
    if len(ordered):
        payload["first_shown"], rows, more = _bias(ctx, first_shown_bias, ordered, "no non-tie vote of known order")
        n_unknown = int((ctx.votes["source"] != "judgment").sum()) - len(ordered)
        tables.append(_table(
            "bias_first_shown", "Position bias of imported votes: share of the response shown first among non-tie "
            "votes", rows, more,
            ("share = votes for the response the rater saw first among non-tie votes (k of n), for imported votes "
             "whose display order the file gave (labels import --shown-first / --shown-first-column); 50 % without "
             "position bias when the order is randomised; a judge always shown the same slot first mixes position "
             "with a preference for that slot. Exact two-sided binomial test against one half."
             + (f" {plural(n_unknown, 'imported vote')} of unknown order left out." if n_unknown else ""), unit)))
    payload["length"], rows, more = _bias(ctx, length_bias, votes, "no non-tie vote on responses of unequal length")
    tables.append(_table(
        "bias_length", "Length bias: share of non-tie votes for the longer response", rows, more,
        ("share = votes for the longer response (characters) among non-tie votes on responses of unequal length "
         "(k of n); excluded = ties and equal lengths; exact binomial test against one half. All votes, imported "
         "ones included.", unit)))
    if empty_table:
        tables.append(empty_table)
    return Section("biases", "Biases", tuple(tables)), payload


def _table(key: str, title: str, rows: list[tuple[Any, ...]], more: tuple[str, ...], notes: tuple[str, ...]) -> Table:
    return Table(key, title, _BIAS_COLUMNS, tuple(rows), notes + more)


def _empty_responses(ctx: Context, store: Store) -> tuple[Table | None, dict[str, Any] | None]:
    """The items with an empty response (a model returned nothing) and how the votes on them went:
    all of them, then one row per item (the first ``ctx.max_rows``; the JSON lists every item)."""
    from annotate.analysis.empty import empty_response_votes, empty_response_votes_per_item
    from annotate.store.response_frames import empty_responses_frame

    empty = empty_responses_frame(store)
    if empty.empty:
        return None, None
    overall = empty_response_votes(ctx.votes, empty, ctx.pairwise)
    per_item = empty_response_votes_per_item(ctx.votes, empty, ctx.pairwise)

    def row(name: str, slots: str, r: Any) -> tuple[Any, ...]:
        counts = (r.for_empty, r.for_other, r.tie_or_both_bad) if ctx.pairwise else (r.median_grade,)
        return (name, slots, r.n_votes, *counts)

    columns = [Column("item"), Column("empty"), Column("votes", "int")]
    columns += ([Column("for an empty response", "int"), Column("for a non-empty one", "int"),
                 Column("tie or both bad", "int")] if ctx.pairwise else [Column("median grade", "num1")])
    rows = [row(f"({plural(overall.n_items, 'item')})", "", overall)]
    rows += [row(r.items[0][0], ", ".join(slot for _, slot in r.items), r) for r in per_item[:ctx.max_rows]]
    notes = ["Responses whose text is empty or white space (a model returned nothing). They are judged like any "
             "response and count in every figure; an empty response is always the shorter one in the length bias."]
    if len(per_item) > ctx.max_rows:
        notes.append(f"{plural(len(per_item) - ctx.max_rows, 'more item')} in the JSON report.")
    if not ctx.pairwise and any(r.median_grade is None for r in [overall, *per_item[:ctx.max_rows]]):
        notes.append("median grade –: not enough data (n = 0 votes on the item).")
    table = Table("empty_responses", "Items with an empty response", tuple(columns), tuple(rows), tuple(notes))
    return table, overall.to_json()
