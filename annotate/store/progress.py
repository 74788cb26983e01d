"""How each annotator is doing, counted in SQL for the live dashboard (`annotate status --watch`).

Every figure is an aggregate: a refresh reads a few rows per annotator and a few per label,
whatever the session's size, and never builds one Python object per judgment. All of it is read
in one read transaction, so the figures of one refresh belong to one moment of the file even
while annotators write to it (WAL readers see a fixed snapshot and take no write lock).

The votes that count for quality and agreement follow the report's rules
(`annotate.report.context.prepare_votes`): current judgments that are not skips, with a label the
schema knows (pairwise `tie_inconsistent` counts as `tie`; rubric judgments count by their
scores), adjudication left out, judgments made under a planted suggestion left out. The
reference for gold accuracy is the item's gold label, else the adjudicators' label where they
agree; attention checks are measured apart. Progress (assigned, done, skipped, pace) counts every
judgment but adjudication.

The queries live here, and only here, so that they can read running tallies instead once the
session file keeps them.
"""

from __future__ import annotations

from annotate.store.progress_scan import scan_progress_counts as progress_counts
from annotate.store.progress_types import AnnotatorCounts, Coincidences, GoldRow, LabelRow, ProgressCounts

__all__ = ["AnnotatorCounts", "Coincidences", "GoldRow", "LabelRow", "ProgressCounts", "progress_counts"]
