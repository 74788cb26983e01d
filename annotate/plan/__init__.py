"""Who sees which item, in which order, on which side (DESIGN.md section 4).

Until a session has a plan (`annotate plan` stores its hash in the `plan_hash` meta key), every
annotator gets a default queue: all items, in an order and with sides drawn from a seed derived
from the session seed and the annotator's name. The same inputs always give the same queue, so a
lead can recompute and check it.

`default_queue` is the pure part (ids + seed + name -> assignments); `ensure_queue` reads and
writes the store around it.

`annotate plan` replaces default queues by a plan: `make_plan` is the pure planner (overlap,
counterbalanced sides, gold items, attention checks, repeats; its rules are stated above it),
`apply_plan` stores a plan with its hash, and `verify_plan` checks the hash later.
"""

from annotate.plan.apply import (
    AppliedPlan,
    apply_plan,
    plan_summary,
    resolve_plan_options,
    stored_plan_inputs,
    verify_plan,
)
from annotate.plan.default import (
    DEFAULT_QUEUE_META,
    PLAN_META_KEY,
    annotator_seed,
    default_queue,
    ensure_default_queue,
    ensure_queue,
)
from annotate.plan.planner import (
    ANNOTATOR_NAME,
    MIN_REPEAT_GAP,
    PLAN_FORMAT,
    PLAN_INPUTS_KEY,
    PLANNED_PURPOSES,
    Plan,
    Rates,
    _targets,
    is_attention_item,
    make_plan,
    plan_digest,
)
from annotate.plan.spec_table import plan_table_values, rewrite_plan_table, write_plan_to_spec

__all__ = [
    "ANNOTATOR_NAME",
    "DEFAULT_QUEUE_META",
    "MIN_REPEAT_GAP",
    "PLANNED_PURPOSES",
    "PLAN_FORMAT",
    "PLAN_INPUTS_KEY",
    "PLAN_META_KEY",
    "AppliedPlan",
    "Plan",
    "Rates",
    "_targets",
    "annotator_seed",
    "apply_plan",
    "default_queue",
    "ensure_default_queue",
    "ensure_queue",
    "is_attention_item",
    "make_plan",
    "plan_digest",
    "plan_summary",
    "plan_table_values",
    "resolve_plan_options",
    "rewrite_plan_table",
    "stored_plan_inputs",
    "verify_plan",
    "write_plan_to_spec",
]
