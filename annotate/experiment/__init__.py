"""Suggestion experiments: which condition each assignment is shown under, and which suggestion
(DESIGN.md section 6). Pure and seeded; `apply_experiment` wraps it for a session.

The rules, in one place (docs/suggestions.md, "The experiment in the spec", says the same for leads):

- Taking part: assignments of purpose `main`, `gold` and `repeat`. Attention checks and
  adjudication are always `none` with no suggestion. A `repeat` takes the condition of the
  annotator's first showing of the same item, so intra-rater consistency compares like with like.
- The suggestion of an item is the latest one from the experiment's `suggestion_source` (the only
  source when there is just one; naming it is required when there are several), or a planted one.
  Every taking-part assignment of the item is linked to it, under `none` too: it is kept, hidden,
  so agreement with it can be measured where it was not shown (the baseline).
- Planted: of the gold items that can be planted (pairwise gold `A` or `B`, never a tie or
  both_bad; grades with room to move `planted_shift` points one way or the other), a
  `planted_rate` share (rounded) is drawn at random. Each gets a planted-wrong suggestion: pairwise
  A and B swapped; grades moved `planted_shift` points from gold, up or down at random among the
  directions that stay on the scale.
- `between`: each annotator gets one mode; annotators are shuffled and dealt modes in turn, so the
  modes' head counts differ by at most one.
- `within`: modes are dealt per annotator in blocks of M consecutive queue positions (M = number of
  modes), each block a permutation of the modes, so every annotator sees every mode equally often
  (within one) and evenly along the queue; which permutation each block gets is chosen so that
  every item is shown under every mode equally often across its annotators (a Latin-square
  arrangement, found by coordinate descent on the sum of squared item-mode counts).
- Assignments already shown (they have a judgment or an event) keep their condition and
  suggestion, and count towards the balance; everything else is drawn again, so re-running after
  the plan is extended or new suggestions arrive changes only what nobody has seen.
- The design is a pure function of its inputs; its hash is SHA-256 over canonical JSON of the
  inputs and every output, stored in meta `experiment_hash` beside the plan's `plan_hash` (the
  ids of assignments kept because they were shown are stored with it, outside the hash).
- The conditions alone come from `assign_conditions` (the design's pure core, planted items and
  suggestion links play no part in it); `redraw_conditions` re-runs it with seeds derived from
  (seed, draw index), all draws at once, for the anchoring analysis's randomization test, and
  `stored_redraws` does so for a session's stored design.

Modules:
    conditions  -- the display mode of every assignment (`assign_conditions`).
    design      -- `design_experiment`: conditions, suggestion links, planted suggestions, the hash.
    redraw      -- re-drawing the conditions with other seeds, for the randomization test.
    stored      -- the experiment in a session's store: apply, verify, re-draw, summarise.
"""

from annotate.experiment.conditions import assign_conditions
from annotate.experiment.design import EXPERIMENT_FORMAT, Design, design_digest, design_experiment, planted_label
from annotate.experiment.redraw import ConditionDraws, redraw_conditions, redraw_seed
from annotate.experiment.stored import (
    EXPERIMENT_META_KEY,
    AppliedExperiment,
    apply_experiment,
    experiment_summary,
    stored_redraws,
    verify_experiment,
)

__all__ = [
    "EXPERIMENT_FORMAT",
    "EXPERIMENT_META_KEY",
    "AppliedExperiment",
    "ConditionDraws",
    "Design",
    "apply_experiment",
    "assign_conditions",
    "design_digest",
    "design_experiment",
    "experiment_summary",
    "planted_label",
    "redraw_conditions",
    "redraw_seed",
    "stored_redraws",
    "verify_experiment",
]
