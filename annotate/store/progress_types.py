"""What one dashboard refresh reads from a session file (`annotate.store.progress`): the counts per
annotator and the coincidence matrix, as frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass

LabelRow = tuple[str, str, str | None]
"""(stored label, the value it counts as for agreement, the answer it gives for gold checks or None)."""
GoldRow = tuple[str, str | None]
"""(stored gold label, the answer it stands for, or None when it checks nothing)."""


@dataclass(frozen=True)
class AnnotatorCounts:
    """One annotator's counts at one moment; times in milliseconds, open time in hours."""

    annotator_id: int
    name: str
    """As stored: untrusted text (it may come from an imported or merged file)."""
    cohort: str
    assigned: int
    """Assignments in the annotator's queue, adjudication left out."""
    done: int
    """Assignments with a current judgment that is not a skip."""
    skipped: int
    """Assignments whose current judgment is a skip."""
    recent: int
    """Judgments that are not skips submitted at or after the window's start."""
    open_hours: float
    """Hours the annotation app was open for the annotator (their sittings, from start to end or last beat)."""
    votes: int
    """Judgments that count as votes (see the module docstring)."""
    timed: int
    """Votes with an active (or, missing that, submit) time."""
    median_ms: float | None
    """Median of those times; None without one."""
    fast: int
    """Votes with a time under the fast threshold."""
    gold: int
    """Votes on items with a reference label (gold, or agreed adjudication), attention checks left out."""
    gold_correct: int
    attention: int
    """Votes on attention checks that have a gold label."""
    attention_failed: int
    pairs: int
    """Pairs (this annotator's vote, another annotator's vote) on the same item: one vote per annotator
    and item (the main one first), attention checks left out."""
    pairs_agreeing: int
    """Of those pairs, the ones with the same label."""
    open_flags: int | None
    """Open flags the annotator raised; None when the session file has no flags."""


@dataclass(frozen=True)
class Coincidences:
    """Krippendorff's coincidence matrix of the session's votes (one per annotator and item, attention
    checks left out), over the items that at least two annotators have voted on."""

    cells: tuple[tuple[str, str, float], ...]
    """(label c, label k, o_ck), both orders of each pair of labels."""
    items: int
    """Items with at least two votes (the pairable units)."""


@dataclass(frozen=True)
class ProgressCounts:
    """Everything one dashboard refresh reads from the file, read in one transaction."""

    items: int
    annotators: tuple[AnnotatorCounts, ...]
    """Annotators with at least one assignment (adjudication aside), by name."""
    coincidences: Coincidences
    has_flags: bool
    """Whether the session file keeps flags (its open flags are in `AnnotatorCounts.open_flags`)."""
