"""Annotator competence: a Dawid-Skene estimate beside the majority, and each annotator along their queue.

Built from `annotate.analysis.dawid_skene` (human votes, one per annotator and item, attention
checks out) and `annotate.analysis.competence` (the session's own judgments, every purpose, by
position in the annotator's queue); this module lays the results out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.context import ALL, Context, label_text, more_raters
from annotate.report.figures import ci_text, number_text, share_text
from annotate.report.figures import figure_column as _fig
from annotate.report.model import Column, Section, Table
from annotate.text import plural

if TYPE_CHECKING:
    import pandas as pd

    from annotate.analysis.competence import Measure
    from annotate.store import Store

KEY, TITLE = "competence", "Annotator competence"


def _positions(store: Store) -> dict[int, int]:
    """Judgment id -> the 0-based position of its assignment in the annotator's queue."""
    return {judgment.id: assignment.position for assignment, judgment in store.current_votes()
            if judgment.id is not None}


def _measure_text(m: Measure, n_boot: int) -> str:
    if not m.n:
        return m.reason or "not enough data (n = 0)"
    parts = [share_text(m.share, None)]
    if n_boot and ci_text(m.ci_low, m.ci_high, None) != "no interval":
        parts.append(ci_text(m.ci_low, m.ci_high, None, percent=True))
    count = f"{m.k:g}" if float(m.k).is_integer() else f"{m.k:.1f}"
    return " ".join([*parts, f"({count} of {m.n})"])


def _dawid_skene_tables(ctx: Context, humans: pd.DataFrame, payload: dict[str, Any]) -> list[Table]:
    from annotate.analysis.dawid_skene import dawid_skene, flag_rule

    labels = humans.rename(columns={"item": "unit"})[["unit", "rater", "label"]]
    observed = set(labels["label"])
    classes = [c for c in ctx.categories if c in observed] or sorted(observed, key=str)
    fit = dawid_skene(labels, classes=classes)
    payload["dawid_skene"] = fit.to_json()
    if fit.reason:
        return []
    annotators = sorted(fit.annotators, key=lambda a: (a.accuracy, str(a.rater)))
    rows = tuple((str(a.rater), a.n_answers, a.n_items, number_text(a.accuracy, a.reason),
                  ("FLAGGED" if a.flagged else "no") if a.flagged is not None else a.reason)
                 for a in annotators[: ctx.max_rows])
    notes = [
        f"Dawid & Skene (1979) EM on {plural(fit.n_units, 'item')} and {plural(len(fit.annotators), 'annotator')} "
        f"(human votes, one per annotator and item, attention checks out; classes "
        f"{', '.join(label_text(c) for c in fit.classes)}): a confusion matrix per annotator and a posterior label "
        f"per item, started from the vote shares; {fit.n_iter} EM rounds"
        + ("" if fit.converged else " (the log-likelihood had not settled)") + ". Estimated accuracy: the expected "
        "share of the annotator's answers equal to the item's true class under the model. Point estimates: no "
        "interval (the EM is not refitted per resample).",
        f"Rule: {flag_rule(fit.margin, fit.min_answers)}; the commonest class's rate here is "
        f"{max(fit.priors):.3f}.",
        f"Model label vs majority: {fit.n_differ} of {plural(fit.n_with_majority, 'item')} with a plurality majority "
        f"differ; {fit.n_units - fit.n_with_majority} items have a shared top count and no majority.",
    ]
    if len(annotators) > ctx.max_rows:
        notes.append(more_raters(len(annotators) - ctx.max_rows))
    tables = [Table(f"{KEY}_dawid_skene", "Dawid-Skene: estimated accuracy per annotator (lowest first)",
                    (Column("annotator"), Column("answers", "int"), Column("items", "int"),
                     _fig("estimated accuracy"), _fig("flagged")), rows, tuple(notes))]
    majority = dict(zip(fit.units, fit.majority, strict=True))
    differ = [(str(u), label_text(d), label_text(majority[u])) for u, d in zip(fit.units, fit.labels, strict=True)
              if majority[u] is not None and majority[u] != d]
    if differ:
        tables.append(Table(f"{KEY}_differ", "Items where the Dawid-Skene label differs from the majority",
                            (Column("item"), Column("Dawid-Skene"), Column("majority")), tuple(differ[: ctx.max_rows]),
                            ((f"{len(differ) - ctx.max_rows} more items are in the JSON report.",)
                             if len(differ) > ctx.max_rows else ())))
    return tables


def competence_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.competence import BLOCK, competence_over_time
    from annotate.analysis.quality import FAST_MS

    payload: dict[str, Any] = {"dawid_skene": None, "over_time": {"block": BLOCK, "fast_ms": FAST_MS, "cells": []}}
    if ctx.spec.kind == "rubric":
        return Section(KEY, TITLE, notes=("Rubric sessions: competence is not estimated per criterion yet.",)), payload
    humans = ctx.unique.loc[ctx.unique["cohort"] != "llm"]
    tables = _dawid_skene_tables(ctx, humans, payload) if not humans.empty else []
    notes: list[str] = []
    if payload["dawid_skene"] is None or payload["dawid_skene"].get("reason"):
        notes.append("Dawid-Skene: not enough data (n = 0 items: no human vote).")
    judged = ctx.votes.loc[(ctx.votes["source"] == "judgment") & (ctx.votes["cohort"] != "llm")]
    positions = _positions(store)
    judged = judged.assign(position=judged["judgment_id"].map(positions))
    cells = competence_over_time(judged, block=BLOCK, fast_ms=FAST_MS, n_boot=ctx.n_boot, seed=ctx.seed)
    payload["over_time"]["cells"] = [c.to_json() for c in cells]
    if cells:
        raters = sorted({c.rater for c in cells if c.rater is not None}, key=str)
        shown = set(raters[: ctx.max_rows])
        rows = tuple((ALL if c.rater is None else str(c.rater), f"{c.first}-{c.last}", c.n_answers,
                      _measure_text(c.gold, ctx.n_boot), _measure_text(c.attention_failures, ctx.n_boot),
                      _measure_text(c.fast, ctx.n_boot), _measure_text(c.rest, ctx.n_boot))
                     for c in sorted(cells, key=lambda c: (c.rater is not None, str(c.rater), c.block))
                     if c.rater is None or c.rater in shown)
        over_notes = [
            f"Per annotator and block of {BLOCK} queue positions (the assignment's place in their queue; the "
            "session's own judgments, every purpose). Gold accuracy: answers on gold items (attention checks out) "
            "equal to the gold label. Attention failures: attention checks not answered as expected. Fast: active "
            f"time under {FAST_MS / 1000:g} s (submit time where none). Agreement with the rest: per answer, the "
            "share of the other annotators' answers on the item with the same label, averaged.",
            f"Each cell: share [95 % interval, items resampled, {ctx.n_boot} resamples] (k of n answers)."
            if ctx.n_boot else "Each cell: share (k of n answers); no intervals (--bootstrap 0).",
        ]
        if len(raters) > ctx.max_rows:
            over_notes.append(more_raters(len(raters) - ctx.max_rows))
        tables.append(Table(f"{KEY}_over_time", "Competence over the queue",
                            (Column("annotator"), Column("positions"), Column("answers", "int"),
                             _fig("gold accuracy"), _fig("attention failures"), _fig("fast answers"),
                             _fig("agreement with the rest")), rows, tuple(over_notes)))
    else:
        notes.append("Competence over the queue: not enough data (n = 0 judgments: no judgment made in this "
                     "session; imported labels have no queue).")
    return Section(KEY, TITLE, tuple(tables), tuple(notes)), payload
