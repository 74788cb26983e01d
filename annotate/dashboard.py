"""One snapshot of how a session's annotators are doing, for the live dashboard (`annotate status --watch`).

`take_snapshot` reads the counts (`annotate.store.progress`, SQL aggregates read in one
transaction) and who has the app open (`annotate.store.sittings`), and turns them into figures
per annotator. No Textual and no pandas here: the screen only shows what this returns.

The figures, per annotator:
- assigned, done, skipped, left: their queue (adjudication left out);
- pace: items done per hour over the last `window_min` minutes, and overall per hour the app was
  open (their sittings);
- median time per item: active time (idle gaps removed; submit time where missing), in seconds;
- gold accuracy: votes equal to the item's gold (or agreed adjudicated) label, k of n, attention
  checks left out; attention checks failed, k of n;
- fast answers: votes under `FAST_MS` of active time;
- open flags, when the session file keeps flags;
- agreement so far: the share of pairs (this annotator's vote, another annotator's vote on the
  same item) with the same label, one vote per annotator and item;
- checks: which of the report's summary rules the annotator trips so far (`annotate.quality_rules`).
And for the session: Krippendorff's alpha over the annotators' votes at the schema's level
(nominal for the four outcomes, ordinal for grades and graded strengths), from the coincidence
matrix (Krippendorff 2011). Rubric and ranking sessions show progress, time and fast answers;
their agreement is the report's (per criterion; Kendall's W).
Imported votes (external labels) are not part of the dashboard; the report has them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from annotate.design import PREFERENCES
from annotate.design.questions import Question
from annotate.quality_rules import FAST_MS, FAST_SHARE_MAX, GOLD_ACCURACY_MIN, MIN_N
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.store.progress import (
    AnnotatorCounts,
    Coincidences,
    GoldRow,
    LabelRow,
    ProgressCounts,
    progress_counts,
)
from annotate.store.sittings import live_sittings

PACE_WINDOW_MIN = 15.0
"""Default window of the recent pace, in minutes."""


@dataclass(frozen=True)
class AnnotatorFigures:
    """One annotator's row of the dashboard (see the module docstring for each figure)."""

    name: str
    """As stored: untrusted text, never to be shown as markup."""
    cohort: str
    working: str | None
    """`terminal` or `browser` while they have the app open, else None."""
    assigned: int
    done: int
    skipped: int
    pace_recent: float
    """Items done per hour over the window."""
    pace_overall: float | None
    """Items done per hour the app was open; None when no sitting recorded time."""
    median_s: float | None
    """Median active seconds per vote; None without a timed vote."""
    gold_correct: int
    gold: int
    attention_failed: int
    attention: int
    fast: int
    timed: int
    open_flags: int | None
    """None when the session file keeps no flags."""
    pairs_agreeing: int
    pairs: int
    checks: tuple[str, ...]
    """The report's rules tripped so far: `gold`, `attention`, `fast`."""

    @property
    def left(self) -> int:
        return self.assigned - self.done - self.skipped

    @property
    def gold_accuracy(self) -> float | None:
        return self.gold_correct / self.gold if self.gold else None

    @property
    def fast_share(self) -> float | None:
        return self.fast / self.timed if self.timed else None

    @property
    def agreement(self) -> float | None:
        return self.pairs_agreeing / self.pairs if self.pairs else None


@dataclass(frozen=True)
class Alpha:
    """Krippendorff's alpha of the annotators' votes so far."""

    value: float | None
    """None when it cannot be had (`reason` says why)."""
    level: str
    items: int
    """Items with votes of at least two annotators."""
    values: int
    """Pairable values (Krippendorff's n)."""
    reason: str = ""


@dataclass(frozen=True)
class Snapshot:
    """The dashboard's figures at one moment."""

    session: str
    kind: str
    taken_at: float
    """Unix time the figures are for."""
    window_min: float
    items: int
    annotators: tuple[AnnotatorFigures, ...]
    alpha: Alpha
    has_flags: bool

    @property
    def working(self) -> int:
        return sum(1 for a in self.annotators if a.working)

    @property
    def assigned(self) -> int:
        return sum(a.assigned for a in self.annotators)

    @property
    def done(self) -> int:
        return sum(a.done for a in self.annotators)

    @property
    def skipped(self) -> int:
        return sum(a.skipped for a in self.annotators)


def take_snapshot(spec: SessionSpec, store: Store, *, now: float | None = None,
                  window_min: float = PACE_WINDOW_MIN) -> Snapshot:
    """The figures of every annotator with a queue, at `now` (Unix seconds; default: the clock)."""
    if window_min <= 0:
        raise ValueError(f"window {window_min:g} minutes: expected a positive number of minutes")
    now = time.time() if now is None else now
    since = datetime.fromtimestamp(now - window_min * 60, UTC).isoformat(timespec="milliseconds")
    primary = spec.schema.primary
    labels = None if primary is None or spec.schema.ranked is not None else label_rows(primary)
    counts = progress_counts(store, labels=labels, gold=gold_rows(spec), since=since, fast_ms=FAST_MS)
    working = {s.annotator: s.display for s in live_sittings(store, now)}
    return snapshot_of(spec, counts, working, now, window_min)


def snapshot_of(spec: SessionSpec, counts: ProgressCounts, working: dict[str, str], now: float,
                window_min: float) -> Snapshot:
    """The figures from the counts of one moment; `working`: annotator -> `terminal` or `browser`."""
    primary = spec.schema.primary
    labels = None if primary is None or spec.schema.ranked is not None else label_rows(primary)
    rows = tuple(_figures(c, working.get(c.name), window_min) for c in counts.annotators)
    level = spec.schema.level
    if primary is None:
        alpha = Alpha(None, level, 0, 0, "rubric answers are scores per criterion (the report has them)")
    elif labels is None:
        alpha = Alpha(None, level, 0, 0, "rankings are compared in the report (Kendall's W, alpha on mid-ranks)")
    else:
        alpha = krippendorff_from_coincidences(counts.coincidences, level, _scale_order(primary))
    return Snapshot(spec.name, spec.kind, now, window_min, counts.items, rows, alpha, counts.has_flags)


def label_rows(question: Question) -> list[LabelRow]:
    """Every stored value of the primary question: (value, the value agreement compares, the answer
    it gives for gold checks): the preference of a pairwise value (a graded strength collapses to A, B
    or tie), the value itself for grades; an inconsistent tie counts as a tie (the report's rules)."""
    rows = [(v, v, question.preference(v) if question.sided else v) for v in question.values]
    if question.sided and "tie" in question.values and "tie_inconsistent" not in question.values:
        rows.append(("tie_inconsistent", "tie", question.preference("tie")))
    return rows


def gold_rows(spec: SessionSpec) -> list[GoldRow]:
    """What each gold label an item may carry reads as, in the form of a vote's answer
    (`annotate.report.context._gold`): a value's preference (pairwise) or the value (grades)."""
    question = spec.schema.primary
    if question is None or spec.schema.ranked is not None:
        return []
    rows: list[GoldRow] = []
    for raw in spec.schema.gold_labels:
        value = question.parse(raw)
        if value is None:
            rows.append((raw, raw if question.sided and raw in PREFERENCES else None))
        else:
            rows.append((raw, question.preference(value) if question.sided else value))
    return rows


def _scale_order(question: Question) -> tuple[str, ...]:
    """The stored values in the order of the question's scale (for the ordinal distance); values
    with no place on the scale (a graded `both_bad`) are left out of alpha (not of agreement)."""
    if question.level == "nominal":
        return tuple(question.values)
    placed = [(question.number(v), v) for v in question.values]
    return tuple(v for n, v in sorted((n, v) for n, v in placed if n is not None))


def _figures(c: AnnotatorCounts, working: str | None, window_min: float) -> AnnotatorFigures:
    checks = []
    if c.gold >= MIN_N and c.gold_correct / c.gold < GOLD_ACCURACY_MIN:
        checks.append("gold")
    if c.attention_failed:
        checks.append("attention")
    if c.timed >= MIN_N and c.fast / c.timed >= FAST_SHARE_MAX:
        checks.append("fast")
    return AnnotatorFigures(
        name=c.name, cohort=c.cohort, working=working, assigned=c.assigned, done=c.done, skipped=c.skipped,
        pace_recent=c.recent / (window_min / 60), pace_overall=c.done / c.open_hours if c.open_hours > 0 else None,
        median_s=None if c.median_ms is None else c.median_ms / 1000, gold_correct=c.gold_correct, gold=c.gold,
        attention_failed=c.attention_failed, attention=c.attention, fast=c.fast, timed=c.timed,
        open_flags=c.open_flags, pairs_agreeing=c.pairs_agreeing, pairs=c.pairs, checks=tuple(checks),
    )


def krippendorff_from_coincidences(coincidences: Coincidences, level: str, labels: tuple[str, ...]) -> Alpha:
    """Krippendorff's alpha = 1 - (n - 1) * sum o_ck d_ck / sum n_c n_k d_ck over a coincidence matrix
    (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", sections C and E).

    level: `nominal` (d = 1 for different labels), `ordinal` (d_ck = (sum of n_g for g from c to k
    - (n_c + n_k) / 2) squared, labels in the order of `labels`) or `interval` (labels as numbers,
    d = (c - k) squared). The same value as
    `annotate.analysis.agreement.krippendorff_alpha` on the votes themselves.
    """
    order = {label: i for i, label in enumerate(labels)}
    o: dict[tuple[str, str], float] = {}
    for c, k, value in coincidences.cells:
        if c in order and k in order:
            o[c, k] = o.get((c, k), 0.0) + value
    n_c = {label: sum(v for (c, _), v in o.items() if c == label) for label in labels}
    n = sum(n_c.values())
    values = round(n)
    if coincidences.items == 0:
        return Alpha(None, level, 0, 0, "no item has votes of two annotators yet")
    ranked = [label for label in labels if n_c[label] > 0]

    def distance(c: str, k: str) -> float:
        if c == k:
            return 0.0
        if level == "nominal":
            return 1.0
        if level == "interval":
            return (float(c) - float(k)) ** 2
        low, high = sorted((order[c], order[k]))
        between = sum(n_c[g] for g in labels[low : high + 1])
        return (between - (n_c[c] + n_c[k]) / 2) ** 2

    observed = sum(v * distance(c, k) for (c, k), v in o.items())
    expected = sum(n_c[c] * n_c[k] * distance(c, k) for c in ranked for k in ranked)
    if expected == 0:
        return Alpha(None, level, coincidences.items, values, "every vote so far has the same label")
    return Alpha(1 - (n - 1) * observed / expected, level, coincidences.items, values)
