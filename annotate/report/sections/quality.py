"""Quality: gold accuracy, attention checks, intra-rater consistency on repeats, time."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from annotate.report.cells import share_cell
from annotate.report.context import JUDGES, LLM_COHORTS, Context, cohort_of_raters, more_raters
from annotate.report.model import Column, Section, Table

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store import Store

UNIT_NOTE = ("Intervals: Wilson where each item counts once; the pooled rows, where votes of several raters share "
             "an item, resample items ({n_boot} resamples of items, seed {seed}).")


def _pooled(ctx: Context, fn: Callable[..., Sequence[Any]], votes: pd.DataFrame
            ) -> tuple[list[tuple[str, Any]], Sequence[Any]]:
    """(label, share) of the headline raters pooled and of the LLM judges pooled; and every rater's."""
    everyone = fn(votes)
    if not everyone:
        return [], ()
    pooled = [(ctx.headline_row, s[0]) for s in (fn(votes.loc[ctx.is_headline(votes)]),) if s]
    judges = votes.loc[votes["cohort"].isin(LLM_COHORTS)]
    if not ctx.pool_llm and not judges.empty:
        pooled += [(JUDGES, s[0]) for s in (fn(judges),) if s]
    return pooled, everyone[1:]


def _share_table(key: str, title: str, pooled: list[tuple[str, Any]], per: Sequence[Any], what: str, note: str,
                 ctx: Context, cohort_of: dict[Any, str], empty: str) -> Table:
    per = sorted(per, key=lambda s: (-s.n, str(s.rater)))

    def row(name: str, cohort: str | None, s: Any) -> tuple[Any, ...]:
        return (name, cohort, share_cell(s.share, s.n, "votes", "none counted"), (s.ci_low, s.ci_high), s.k, s.n)

    rows = [row(name, None, s) for name, s in pooled]
    rows += [row(str(s.rater), cohort_of.get(s.rater), s) for s in per[: ctx.max_rows]]
    notes = [note, UNIT_NOTE.format(n_boot=ctx.n_boot, seed=ctx.seed)]
    notes += [more_raters(len(per) - ctx.max_rows)] if len(per) > ctx.max_rows else []
    columns = (Column("rater"), Column("cohort"), Column(what, "pct"), Column("95 % CI", "pctci"), Column("k", "int"),
               Column("n", "int"))
    return Table(key, title, columns, tuple(rows), tuple(notes), empty=empty)


def _json(pooled: list[tuple[str, Any]], per: Sequence[Any], ctx: Context) -> list[dict[str, Any]]:
    """First the pools (rater null; pool "human", "all" with --pool-llm, or "llm"), then one entry per rater."""
    out = []
    for name, s in pooled:
        pool = ("all" if ctx.pool_llm else "human") if name == ctx.headline_row else "llm"
        out.append({**s.to_json(), "rater": None, "pool": pool})
    return out + [s.to_json() for s in per]


def quality_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.quality import FAST_MS, attention_pass_rate, gold_accuracy, repeat_consistency, timing

    every = ctx.coded(["item", "rater", "cohort", "source", "label", "gold", "purpose", "active_ms", "submit_ms"])
    votes = every  # the columns the measures read, items as integers: filters copy only these
    if ctx.spec.kind == "rubric":
        votes = votes.iloc[:0]
    judged = votes.loc[votes["source"] == "judgment"]
    cohort_of = cohort_of_raters(every)
    boot = {"n_boot": ctx.n_boot, "seed": ctx.seed}
    gold = _pooled(ctx, lambda v: gold_accuracy(v, **boot), votes)
    attention = _pooled(ctx, lambda v: attention_pass_rate(v, **boot), votes)
    repeats = _pooled(ctx, lambda v: repeat_consistency(v, **boot), judged)
    times = timing(every.loc[every["source"] == "judgment"], **boot)
    payload = {
        "gold": _json(*gold, ctx), "attention": _json(*attention, ctx), "repeats": _json(*repeats, ctx),
        "timing": [t.to_json() for t in times], "fast_threshold_ms": FAST_MS,
    }
    tables = [
        _share_table("quality_gold", "Gold accuracy", *gold, "accuracy",
                     "Votes on items with a gold label that match it (k of n), attention checks excluded.", ctx,
                     cohort_of, "No vote on an item with a gold label (or an adjudicated one)."),
    ]
    if attention[1]:
        tables.append(_share_table("quality_attention", "Attention checks passed", *attention, "passed",
                                   "Attention-check judgments answered with the expected label.", ctx, cohort_of,
                                   ""))
    tables.append(_share_table(
        "quality_repeats", "Consistency on repeated items", *repeats, "same label",
        "Pairs of one rater's judgments of the same item (a repeat is shown with the sides swapped; labels are "
        "compared in slot space): k of n pairs gave the same label.", ctx, cohort_of,
        "No rater judged an item twice: plan repeats (annotate plan --repeat-rate) to measure consistency."))
    overall, per = (times[0], times[1:]) if times else (None, ())
    per = sorted(per, key=lambda t: (-t.n, str(t.rater)))

    def time_row(name: str, t: Any) -> tuple[Any, ...]:
        return (name, cohort_of.get(t.rater) if t.rater is not None else None, t.n, t.median_ms, t.share,
                (t.ci_low, t.ci_high), t.fast)

    rows = [] if overall is None else [time_row("(all judgments)", overall)]
    rows += [time_row(str(t.rater), t) for t in per[: ctx.max_rows]]
    columns = (Column("rater"), Column("cohort"), Column("judgments", "int"), Column("median time", "ms"),
               Column(f"under {FAST_MS / 1000:g} s", "pct"), Column("95 % CI", "pctci"), Column("k", "int"))
    tables.append(Table("quality_timing", "Time per judgment", columns, tuple(rows), (
        "Active time from item shown to submit, idle gaps removed (submit time where missing); the session's own "
        "judgments only.", UNIT_NOTE.format(**boot)), empty="No judgment made in this session has a time (imported "
        "votes have none)."))
    return Section("quality", "Quality", tuple(tables)), payload
