"""Anchoring on LLM suggestions: how far annotators follow a suggestion, and whether showing it
changes their answers (DESIGN.md section 6).

Input: one row per judgment (`anchoring_frame` in `annotate.store.suggestion_frames` builds it),
with columns

    annotator           str   who judged
    item                str   what was judged
    condition           str   display mode D: none, upfront, after, on_request
    suggestion          str   the label suggested (slot space / grade as text); NaN: no suggestion
    suggestion_correct  bool  suggestion == gold; NaN when gold is unknown (planted ones are False)
    planted             bool  the suggestion was planted wrong on purpose
    initial_label       str   the label committed before the suggestion was shown (`after`); NaN otherwise
    final_label         str   the label submitted
    gold                str   the known right answer; NaN when unknown
    time_ms             num   active time on the item, milliseconds
    shown               bool  optional: the suggestion was on screen (on_request: revealed)

Measures (per condition D, over judgments with a suggestion):

- agree = [final = suggestion]; agreement rate P(agree).
- over-reliance P(agree | suggestion wrong); under-reliance P(not agree | suggestion right).
- anchoring effect Δ_D = P(agree | D, wrong) − P(agree | none, wrong): what showing the
  suggestion adds to following it when it is wrong (the rubber-stamp rate above baseline). Also
  the change in accuracy P(final = gold | D) − P(final = gold | none).
- 95 % intervals: a two-way cluster ("pigeonhole") bootstrap that resamples annotators and items
  independently; a row's weight is (times its annotator was drawn) × (times its item was drawn)
  (Owen 2007, "The pigeonhole bootstrap", Ann. Appl. Stat. 1(2); mildly conservative).
- p-value of Δ_D: a randomization test (Edgington & Onghena 2007, "Randomization Tests", ch. 1
  and 6); two-sided, p = (1 + #{|Δ*| ≥ |Δ|}) / (1 + R). Given `redrawn` (R re-draws of the
  conditions by the experiment's own design rules, `annotate.experiment.redraw_conditions`: the
  same assignments, modes and rule, other seeds, planted items held fixed) and a frame with
  `assignment_id`, Δ* is Δ_D recomputed on the observed answers under each re-drawn condition
  assignment (`randomization` = "redrawn design"). Without them (a bare frame, the simulation) the
  fallback permutes the observed conditions within each annotator for `within` designs and across
  annotators for `between` designs (`randomization` = "permutation").
- in `after`: switch rate P(final ≠ initial); switch to the suggestion P(final = suggestion |
  initial ≠ suggestion); harmful switches (initial right, final wrong) and beneficial ones.
- fast accepts: agreeing with the suggestion in under `fast_ms` (default 3000 ms) of active time.
- per-annotator susceptibility: P(agree | wrong, shown) − P(agree | wrong, none), the baseline
  being the annotator's own `none` judgments when there are any, else everyone's.
- shift in the label distribution against `none` (total variation distance).
- the LLM's accuracy against gold and against the labels made under each condition: agreement with
  labels made while seeing the suggestion flatters the LLM.

Every rate is an `Estimate` whose `n_units` is items, `n_raters` annotators and `n_pairable` the
number of judgments in its denominator. Undefined rates (no judgment in the denominator) are NaN.

Modules:
    results     -- the result types and their JSON.
    rows        -- the frame checked and read into arrays; the per-condition features.
    resampling  -- the two-way cluster bootstrap, intervals and the permutation test.
    effects     -- the anchoring effect against `none` and its randomization test.
    analyse     -- `analyse_anchoring`: every measure for every condition.
"""

from annotate.analysis.anchoring.analyse import analyse_anchoring
from annotate.analysis.anchoring.effects import anchoring_effect
from annotate.analysis.anchoring.resampling import two_way_bootstrap_sums
from annotate.analysis.anchoring.results import (
    PERMUTATION,
    REDRAWN,
    AnchoringResult,
    AnnotatorSusceptibility,
    ConditionSummary,
    Effect,
    LabelShift,
    LlmAccuracy,
    SwitchStats,
)
from annotate.analysis.anchoring.rows import REQUIRED_COLUMNS, infer_design

__all__ = [
    "PERMUTATION",
    "REDRAWN",
    "REQUIRED_COLUMNS",
    "AnchoringResult",
    "AnnotatorSusceptibility",
    "ConditionSummary",
    "Effect",
    "LabelShift",
    "LlmAccuracy",
    "SwitchStats",
    "analyse_anchoring",
    "anchoring_effect",
    "infer_design",
    "two_way_bootstrap_sums",
]
