"""Quality: gold accuracy, attention checks, intra-rater consistency on repeats, time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from annotate.report.context import ALL, Context, more_raters
from annotate.report.model import Column, Section, Table

if TYPE_CHECKING:
    from annotate.store import Store


def _share_table(key: str, title: str, shares: Sequence[Any], what: str, note: str, max_rows: int) -> Table:
    overall, per = (shares[0], shares[1:]) if shares else (None, ())
    per = sorted(per, key=lambda s: (-s.n, str(s.rater)))
    rows = [] if overall is None else [(ALL, overall.share, (overall.ci_low, overall.ci_high), overall.k, overall.n)]
    rows += [(str(s.rater), s.share, (s.ci_low, s.ci_high), s.k, s.n) for s in per[:max_rows]]
    notes = [note] + ([more_raters(len(per) - max_rows)] if len(per) > max_rows else [])
    columns = (Column("rater"), Column(what, "pct"), Column("95 % CI", "pctci"), Column("k", "int"),
               Column("n", "int"))
    return Table(key, title, columns, tuple(rows), tuple(notes))


def quality_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.quality import FAST_MS, attention_pass_rate, gold_accuracy, repeat_consistency, timing

    votes = ctx.votes
    if ctx.spec.kind == "rubric":
        votes = votes.iloc[:0]
    gold, attention = gold_accuracy(votes), attention_pass_rate(votes)
    repeats = repeat_consistency(votes.loc[votes["source"] == "judgment"])
    times = timing(ctx.votes.loc[ctx.votes["source"] == "judgment"])
    payload = {
        "gold": [s.to_json() for s in gold], "attention": [s.to_json() for s in attention],
        "repeats": [s.to_json() for s in repeats], "timing": [t.to_json() for t in times],
        "fast_threshold_ms": FAST_MS,
    }
    tables = [
        _share_table("quality_gold", "Gold accuracy", gold, "accuracy",
                     "Votes on items with a gold label that match it (k of n), attention checks excluded; "
                     "Wilson interval.", ctx.max_rows),
    ]
    if attention:
        tables.append(_share_table("quality_attention", "Attention checks passed", attention, "passed",
                                   "Attention-check judgments answered with the expected label.", ctx.max_rows))
    tables.append(_share_table(
        "quality_repeats", "Consistency on repeated items", repeats, "same label",
        "Pairs of one rater's judgments of the same item (a repeat is shown with the sides swapped; labels are "
        "compared in slot space): k of n pairs gave the same label.", ctx.max_rows))
    overall, per = (times[0], times[1:]) if times else (None, ())
    per = sorted(per, key=lambda t: (-t.n, str(t.rater)))
    rows = [] if overall is None else [(ALL, overall.n, overall.median_ms, overall.share,
                                        (overall.ci_low, overall.ci_high), overall.fast)]
    rows += [(str(t.rater), t.n, t.median_ms, t.share, (t.ci_low, t.ci_high), t.fast) for t in per[: ctx.max_rows]]
    columns = (Column("rater"), Column("judgments", "int"), Column("median time", "ms"),
               Column(f"under {FAST_MS / 1000:g} s", "pct"), Column("95 % CI", "pctci"), Column("k", "int"))
    tables.append(Table("quality_timing", "Time per judgment", columns, tuple(rows), (
        "Active time from item shown to submit, idle gaps removed (submit time where missing); the session's own "
        "judgments only.",)))
    return Section("quality", "Quality", tuple(tables)), payload


