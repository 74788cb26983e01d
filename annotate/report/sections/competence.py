"""Annotator competence: a Dawid-Skene estimate beside the majority, and each annotator along their queue.

Built from `annotate.analysis.dawid_skene` (human votes, one per annotator and item, attention
checks out) and `annotate.analysis.competence` (the session's own judgments of human annotators,
every purpose, by position in the annotator's queue); this module lays the results out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.context import ALL, Context, label_text, long_votes, more_raters
from annotate.report.figures import interval, reason_cell, value
from annotate.report.model import Column, Section, Table
from annotate.text import plural

if TYPE_CHECKING:
    import pandas as pd

    from annotate.analysis.competence import CompetenceCell
    from annotate.store import Store

KEY, TITLE = "competence", "Annotator competence"
MEASURES = (
    ("gold", "Gold accuracy over the queue", "gold accuracy",
     "answers on gold items (attention checks out) equal to the gold label"),
    ("attention_failures", "Attention failures over the queue", "failed",
     "attention checks not answered with the expected label"),
    ("fast", "Fast answers over the queue", "fast",
     "answers with an active time under {fast} s (idle gaps removed; the submit time where there is none)"),
    ("rest", "Agreement with the rest over the queue", "agreement",
     "per answer, the share of the other annotators' answers on the item with the same label, averaged (k is "
     "that sum)"),
)


def _dawid_skene_tables(ctx: Context, humans: pd.DataFrame, payload: dict[str, Any]) -> list[Table]:
    from annotate.analysis.dawid_skene import dawid_skene, flag_rule

    labels = long_votes(humans)  # unit, rater, label (and their codes)
    observed = set(labels["label"].unique().tolist())
    classes = [c for c in ctx.categories if c in observed] or sorted(observed, key=str)
    fit = dawid_skene(labels, classes=classes)
    payload["dawid_skene"] = fit.to_json()
    if fit.reason:
        return []
    annotators = sorted(fit.annotators, key=lambda a: (a.accuracy, str(a.rater)))
    rows = tuple((str(a.rater), a.n_answers, a.n_items, a.accuracy,
                  ("FLAGGED" if a.flagged else "no") if a.flagged is not None else reason_cell(a.reason))
                 for a in annotators[: ctx.max_rows])
    notes = [
        f"Dawid & Skene (1979) EM on {plural(fit.n_units, 'item')} and {plural(len(fit.annotators), 'annotator')} "
        f"(human votes, one per annotator and item, attention checks out; classes "
        f"{', '.join(label_text(c) for c in fit.classes)}): a confusion matrix per annotator and a posterior label "
        f"per item, started from the vote shares; {plural(fit.n_iter, 'EM round')}"
        + ("" if fit.converged else " (the log-likelihood had not settled)") + ". Estimated accuracy: the expected "
        "share of the annotator's answers equal to the item's true class under the model. Point estimates: no "
        "interval (the EM is not refitted per resample).",
        f"Rule: {flag_rule(fit.margin, fit.min_answers)}; the commonest class's rate here is "
        f"{max(fit.priors):.3f}.",
        f"Model label against the plurality majority: {fit.n_differ} of {plural(fit.n_with_majority, 'item')} "
        f"with a majority differ; {plural(fit.n_units - fit.n_with_majority, 'item')} with a shared top count have "
        "no majority.",
    ]
    if fit.max_raters < fit.min_raters:
        notes.insert(1, f"No item has {fit.min_raters} or more annotators (at most {fit.max_raters}): where two "
                        "annotators disagree the model cannot tell which one is wrong, so these accuracies do not "
                        "tell the annotators apart and no one is flagged.")
    listed = payload["dawid_skene"]
    if len(listed["annotators"]) < len(annotators):  # a crowd: the JSON lists some annotators, summarises the rest
        notes.append(f"{plural(len(annotators) - len(rows), 'more rater')}; the JSON report lists "
                     f"{len(listed['annotators'])} of the {len(annotators)} annotators (every judged one, then those "
                     f"with most answers) and summarises the other {listed['annotators_left_out']['n']}.")
    elif len(annotators) > ctx.max_rows:
        notes.append(more_raters(len(annotators) - ctx.max_rows))
    tables = [Table(f"{KEY}_dawid_skene", "Dawid-Skene: estimated accuracy per annotator (lowest first)",
                    (Column("annotator"), Column("answers", "int"), Column("items", "int"),
                     Column("estimated accuracy", "num"), Column("flagged")), rows, tuple(notes))]
    differ = [(str(fit.units[i]), label_text(fit.labels[i]), label_text(fit.majority[i])) for i in fit.differing]
    if differ:
        tables.append(Table(f"{KEY}_differ", "Items where the Dawid-Skene label differs from the majority",
                            (Column("item"), Column("Dawid-Skene"), Column("majority")), tuple(differ[: ctx.max_rows]),
                            (() if len(differ) <= ctx.max_rows else
                             (f"{len(differ) - ctx.max_rows} more items are in the JSON report.",)
                             if listed["n_differ_listed"] == len(differ) else
                             (f"{len(differ) - ctx.max_rows} more items; the JSON report lists the first "
                              f"{listed['n_differ_listed']} of the {len(differ)}.",))))
    return tables


def _over_time_tables(ctx: Context, cells: tuple[CompetenceCell, ...], block: int, fast_ms: int) -> list[Table]:
    from annotate.analysis.competence import BLOCK, MAX_BLOCKS
    from annotate.report.cells import NO_RESAMPLE
    from annotate.report.model import NotEnough

    raters = sorted({c.rater for c in cells if c.rater is not None}, key=str)
    shown = set(raters[: ctx.max_rows])
    ordered = [c for c in sorted(cells, key=lambda c: (c.rater is not None, str(c.rater), c.block))
               if c.rater is None or c.rater in shown]
    tables = []
    for key, title, what, rule in MEASURES:
        rows = []
        for c in ordered:
            m = getattr(c, key)
            one = NotEnough(m.n_items, "items", NO_RESAMPLE) if ctx.n_boot and m.n and m.n_items < 2 else None
            rows.append((ALL if c.rater is None else str(c.rater), f"{c.first}-{c.last}", value(m.share, m.reason),
                         interval(m.ci_low, m.ci_high, m.reason or one), round(m.k, 1), m.n))
        notes = [
            f"{what.capitalize()}: {rule.format(fast=f'{fast_ms / 1000:g}')}. Per annotator and block of {block} "
            "positions in their queue (the session's own judgments of human annotators, every purpose); "
            f"{ALL}: every annotator's answers at those positions."
            + (f" Blocks are {BLOCK} positions, longer where a queue passes {BLOCK * MAX_BLOCKS:,} (at most "
               f"{MAX_BLOCKS} blocks)." if block > BLOCK else ""),
            ctx.ci_note,
        ]
        if len(raters) > ctx.max_rows:
            notes.append(more_raters(len(raters) - ctx.max_rows))
        tables.append(Table(f"{KEY}_{key}_over_time", title,
                            (Column("annotator"), Column("positions"), Column(what, "pct"),
                             Column("95 % CI", "pctci"), Column("k", "num1"), Column("n", "int")),
                            tuple(rows), tuple(notes)))
    return tables


def competence_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.competence import BLOCK, MAX_BLOCKS, block_size, competence_over_time
    from annotate.analysis.quality import FAST_MS
    from annotate.report.context import LLM_COHORTS
    from annotate.store.frames import judgment_positions

    payload: dict[str, Any] = {"dawid_skene": None, "over_time": {"block": BLOCK, "max_blocks": MAX_BLOCKS,
                                                                  "fast_ms": FAST_MS, "cells": []}}
    if ctx.spec.kind == "rubric":
        return Section(KEY, TITLE, notes=("Rubric sessions: competence is not estimated per criterion yet.",)), payload
    if ctx.spec.kind == "ranking":
        return Section(KEY, TITLE, notes=("Ranking sessions: competence is not estimated on rankings yet "
                                          "(Dawid-Skene models answers as classes, not orders).",)), payload
    humans = ctx.humans
    tables = _dawid_skene_tables(ctx, humans, payload) if not humans.empty else []
    notes: list[str] = []
    if not tables:
        reason = (payload["dawid_skene"] or {}).get("reason") or "not enough data (n = 0 items: no human vote)"
        notes.append(f"Dawid-Skene: {reason}.")
    votes = ctx.coded(["judgment_id", "item", "rater", "cohort", "source", "label", "gold", "purpose", "active_ms",
                       "submit_ms"])  # what the measures read, items as integers: the filter copies only these
    judged = votes.loc[(votes["source"] == "judgment") & ~votes["cohort"].isin(LLM_COHORTS)]
    judged = judged.assign(position=judged["judgment_id"].map(judgment_positions(store)))
    block = block_size(judged["position"])
    cells = competence_over_time(judged, block=block, fast_ms=FAST_MS, n_boot=ctx.n_boot, seed=ctx.seed)
    payload["over_time"]["block"] = block
    payload["over_time"]["cells"] = [c.to_json() for c in cells]
    if cells:
        tables += _over_time_tables(ctx, cells, block, FAST_MS)
    else:
        notes.append("Competence over the queue: not enough data (n = 0 judgments: no judgment made in this "
                     "session; imported labels have no queue).")
    return Section(KEY, TITLE, tuple(tables), tuple(notes)), payload
