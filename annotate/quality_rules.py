"""Where the quality checks draw their lines, in one place the report and the live dashboard share.

Plain constants (no pandas), so `annotate status --watch` applies the report's rules without
loading the analysis stack. The report's summary (`annotate.report.sections.summary.THRESHOLDS`)
and its quality section read them from here.
"""

from __future__ import annotations

FAST_MS = 3000
"""Judgments faster than this (milliseconds of active time) are counted as suspiciously fast."""

GOLD_ACCURACY_MIN = 0.70
"""An annotator whose gold accuracy is below this share is flagged."""

FAST_SHARE_MAX = 0.50
"""An annotator with at least this share of judgments under FAST_MS is flagged."""

MIN_N = 5
"""The gold and fast checks flag an annotator only over at least this many gold votes or judgments."""
