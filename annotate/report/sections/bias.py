"""Biases: position (left when not a tie; first shown, for imported votes whose display order is
known) and length (longer chosen), per rater; and the votes on items with an empty response."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.context import ALL, Context, more_raters
from annotate.report.model import Column, Section, Table
from annotate.text import plural

if TYPE_CHECKING:
    from annotate.store import Store


_BIAS_COLUMNS = (
    Column("rater"), Column("share", "pct"), Column("95 % CI", "pctci"), Column("p (binomial vs 0.5)", "p"),
    Column("k", "int"), Column("n (non-tie)", "int"), Column("excluded", "int"),
)
_NOT_ENOUGH = "–: not enough data (n = 0: no non-tie vote), so no share, interval or test."


def _bias_rows(report: Any, max_rows: int) -> tuple[list[tuple[Any, ...]], int]:
    def row(p: Any, name: str) -> tuple[Any, ...]:
        return (name, p.share, (p.ci_low, p.ci_high), p.p_value, p.k, p.n, p.n_excluded)

    per = sorted(report.per_rater, key=lambda p: (-p.n, str(p.rater)))
    rows = [row(report.overall, ALL)] + [row(p, str(p.rater)) for p in per[:max_rows]]
    return rows, max(0, len(per) - max_rows)


def bias_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.bias import first_shown_bias, length_bias, position_bias

    payload: dict[str, Any] = {"position": None, "first_shown": None, "length": None, "empty_responses": None}
    empty_table, payload["empty_responses"] = _empty_responses(ctx, store)
    if not ctx.pairwise:
        notes = ("Position and length bias apply to pairwise sessions only.",)
        return Section("biases", "Biases", (empty_table,) if empty_table else (), notes), payload
    judged = ctx.votes.loc[ctx.votes["source"] == "judgment"]
    position = position_bias(judged)
    length = length_bias(ctx.votes)
    payload["position"], payload["length"] = position.to_json(), length.to_json()
    tables = [
        _bias_table("bias_position", "Position bias: share of Left among non-tie judgments", position, ctx.max_rows,
                    "share = picks of the response on the left among non-tie judgments (k of n); 50 % without "
                    "position bias when sides are randomised; exact two-sided binomial test against one half, "
                    "Wilson interval (Zheng et al. 2023, section 3.3). The session's own judgments only; imported "
                    "votes whose display order is known are in the next table."),
    ]
    ordered = ctx.votes.loc[(ctx.votes["source"] != "judgment") & ctx.votes["shown_first"].isin(["A", "B"])]
    if len(ordered):
        first = first_shown_bias(ordered)
        payload["first_shown"] = first.to_json()
        n_unknown = int((ctx.votes["source"] != "judgment").sum()) - len(ordered)
        tables.append(_bias_table(
            "bias_first_shown", "Position bias of imported votes: share of the response shown first among non-tie "
            "votes", first, ctx.max_rows,
            "share = votes for the response the rater saw first among non-tie votes (k of n), for imported votes "
            "whose display order the file gave (labels import --shown-first / --shown-first-column); 50 % without "
            "position bias when the order is randomised; a judge always shown the same slot first mixes position "
            "with a preference for that slot. Exact two-sided binomial test against one half, Wilson interval."
            + (f" {plural(n_unknown, 'imported vote')} of unknown order left out." if n_unknown else "")))
    tables.append(_bias_table(
        "bias_length", "Length bias: share of non-tie votes for the longer response", length, ctx.max_rows,
        "share = votes for the longer response (characters) among non-tie votes on responses of "
        "unequal length (k of n); excluded = ties and equal lengths; Wilson interval, exact binomial "
        "test against one half. All votes, imported ones included."))
    if empty_table:
        tables.append(empty_table)
    return Section("biases", "Biases", tuple(tables)), payload


def _bias_table(key: str, title: str, report: Any, max_rows: int, note: str) -> Table:
    rows, more = _bias_rows(report, max_rows)
    notes = [note] + ([more_raters(more)] if more else [])
    if any(row[5] == 0 for row in rows):
        notes.append(_NOT_ENOUGH)
    return Table(key, title, _BIAS_COLUMNS, tuple(rows), tuple(notes))


def _empty_responses(ctx: Context, store: Store) -> tuple[Table | None, dict[str, Any] | None]:
    """The items with an empty response (a model returned nothing) and how the votes on them went:
    all of them, then one row per item (the first ``ctx.max_rows``; the JSON lists every item)."""
    from annotate.analysis.empty import empty_response_votes, empty_response_votes_per_item
    from annotate.store.frames import empty_responses_frame

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
