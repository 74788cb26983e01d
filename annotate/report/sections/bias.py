"""Biases: position (left when not a tie) and length (longer chosen), per rater."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.context import ALL, Context, more_raters
from annotate.report.model import Column, Section, Table

if TYPE_CHECKING:
    from annotate.store import Store


_BIAS_COLUMNS = (
    Column("rater"), Column("share", "pct"), Column("95 % CI", "pctci"), Column("p (binomial vs 0.5)", "p"),
    Column("k", "int"), Column("n (non-tie)", "int"), Column("excluded", "int"),
)


def _bias_rows(report: Any, max_rows: int) -> tuple[list[tuple[Any, ...]], int]:
    def row(p: Any, name: str) -> tuple[Any, ...]:
        return (name, p.share, (p.ci_low, p.ci_high), p.p_value, p.k, p.n, p.n_excluded)

    per = sorted(report.per_rater, key=lambda p: (-p.n, str(p.rater)))
    rows = [row(report.overall, ALL)] + [row(p, str(p.rater)) for p in per[:max_rows]]
    return rows, max(0, len(per) - max_rows)


def bias_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.bias import length_bias, position_bias

    payload: dict[str, Any] = {"position": None, "length": None}
    if not ctx.pairwise:
        return Section("biases", "Biases", notes=("Position and length bias apply to pairwise sessions only.",)), \
            payload
    judged = ctx.votes.loc[ctx.votes["source"] == "judgment"]
    position = position_bias(judged)
    length = length_bias(ctx.votes)
    payload["position"], payload["length"] = position.to_json(), length.to_json()
    tables = (
        _bias_table("bias_position", "Position bias: share of Left among non-tie judgments", position, ctx.max_rows,
                    "share = picks of the response on the left among non-tie judgments (k of n); 50 % without "
                    "position bias when sides are randomised; exact two-sided binomial test against one half, "
                    "Wilson interval (Zheng et al. 2023, section 3.3). The session's own judgments only: imported "
                    "votes have no sides."),
        _bias_table("bias_length", "Length bias: share of non-tie votes for the longer response", length,
                    ctx.max_rows,
                    "share = votes for the longer response (characters) among non-tie votes on responses of "
                    "unequal length (k of n); excluded = ties and equal lengths; Wilson interval, exact binomial "
                    "test against one half. All votes, imported ones included."),
    )
    return Section("biases", "Biases", tables), payload


def _bias_table(key: str, title: str, report: Any, max_rows: int, note: str) -> Table:
    rows, more = _bias_rows(report, max_rows)
    notes = (note, more_raters(more)) if more else (note,)
    return Table(key, title, _BIAS_COLUMNS, tuple(rows), notes)


