"""The store-facing part of planning: storing a plan with its hash, verifying it, resolving the
options of `annotate plan` and summarising what it did."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from annotate.model import Assignment
from annotate.plan.default import PLAN_META_KEY, forget_unfinished_draws
from annotate.plan.planner import (
    PLAN_INPUTS_KEY,
    PLANNED_PURPOSES,
    Plan,
    Rates,
    is_attention_item,
    make_plan,
    plan_digest,
)
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.text import plural


@dataclass(frozen=True)
class AppliedPlan:
    """What `apply_plan` did."""

    plan: Plan
    added: tuple[Assignment, ...]
    """The new assignments as stored (with ids); empty for a dry run."""
    dropped: tuple[Assignment, ...]
    """Default-queue assignments removed before the first plan (never judged, never shown)."""
    previous_hash: str | None
    dry_run: bool = False

    @property
    def unchanged(self) -> bool:
        return not self.plan.new and not self.dropped and self.previous_hash == self.plan.hash


def stored_plan_inputs(store: Store) -> dict[str, Any] | None:
    """The inputs of the session's last plan, or None before the first one."""
    raw = store.get_meta(PLAN_INPUTS_KEY)
    return None if raw is None else json.loads(raw)


def apply_plan(
    store: Store,
    spec: SessionSpec,
    annotators: Iterable[str],
    overlap: int,
    rates: Rates,
    seed: int,
    *,
    dry_run: bool = False,
) -> AppliedPlan:
    """Plan the session and store it, in one transaction: the new assignments, the hash (meta
    `plan_hash`) and the inputs (meta `plan_inputs`).

    Before the first plan, annotators may have default queues (`ensure_queue`): their assignments
    that have a judgment or an event are kept and planned around; the rest (never shown) are
    dropped. Once a plan exists nothing is ever dropped: a new plan only adds. Run the first plan
    before annotators start, or while nobody has the app open: an open app still holds the
    dropped assignments.
    """
    with store.transaction():
        previous = store.get_meta(PLAN_META_KEY)
        dropped: list[Assignment] = []
        if previous is None:
            dropped = store.untouched_assignments(purposes=("main",))
        gone = {a.id for a in dropped}
        existing = [a for a in store.assignments() if a.id not in gone]
        items = store.items()
        plan = make_plan(
            [i.id for i in items],
            [i.id for i in items if i.gold is not None and not is_attention_item(i)],
            [i.id for i in items if is_attention_item(i)],
            annotators, overlap, rates, seed, existing, pairwise=spec.schema.sided,
            ranked=spec.schema.slots if spec.schema.ranked is not None else (),
        )
        if dry_run:
            return AppliedPlan(plan, (), tuple(dropped), previous, dry_run=True)
        if dropped:
            store.delete_assignments([a.id for a in dropped])
        if previous is None:
            forget_unfinished_draws(store)
        for name in plan.inputs["annotators"]:  # ids in name order, not in set order
            store.ensure_annotator(name)
        added = store.add_assignments(plan.new) if plan.new else []
        store.set_meta(PLAN_META_KEY, plan.hash)
        store.set_meta(PLAN_INPUTS_KEY, json.dumps(dict(plan.inputs), sort_keys=True, separators=(",", ":")))
    return AppliedPlan(plan, tuple(added), tuple(dropped), previous)


def verify_plan(store: Store) -> bool | None:
    """Whether the stored plan hash matches the stored inputs and the planned assignments now in
    the file (None before the first plan). False means assignments were added or changed outside
    `annotate plan` (e.g. merged from a copy that was planned differently)."""
    stored = store.get_meta(PLAN_META_KEY)
    inputs = stored_plan_inputs(store)
    if stored is None or inputs is None:
        return None
    return plan_digest(inputs, store.assignments()) == stored


# -- options and summary for `annotate plan` -------------------------------------------------------


def resolve_plan_options(
    store: Store,
    spec: SessionSpec,
    annotators: Sequence[str] | None = None,
    overlap: int | None = None,
    gold_rate: float | None = None,
    attention_rate: float | None = None,
    repeat_rate: float | None = None,
    seed: int | None = None,
) -> tuple[list[str], int, Rates, int]:
    """The plan's inputs: each option given, else the spec's [plan] value; the seed given, else
    the last plan's, else the session seed."""
    names = list(annotators) if annotators is not None else list(spec.plan.annotators)
    if not names:
        raise ValueError(
            f"no annotators: pass --annotators alice,bob,... or set `annotators` in the [plan] table of {spec.path}"
        )
    previous = stored_plan_inputs(store) or {}
    rates = Rates(
        spec.plan.gold_rate if gold_rate is None else gold_rate,
        spec.plan.attention_rate if attention_rate is None else attention_rate,
        spec.plan.repeat_rate if repeat_rate is None else repeat_rate,
    )
    chosen_seed = seed if seed is not None else int(previous.get("seed", spec.seed))
    return names, spec.plan.overlap if overlap is None else overlap, rates, chosen_seed


def plan_summary(applied: AppliedPlan) -> list[str]:
    """Lines for a lead: what the plan is, per annotator what they got, and its notes."""
    plan = applied.plan
    inputs = plan.inputs
    rates = inputs["rates"]
    if applied.dry_run:
        state = f"dry run, nothing written; {plural(len(plan.new), 'assignment')} would be added"
    elif applied.previous_hash is None:
        state = f"new, {plural(len(plan.new), 'assignment')}"
    else:
        state = f"extended, {plural(len(plan.new), 'assignment')} added"
    lines = [
        f"plan unchanged (hash {plan.hash})" if applied.unchanged and not applied.dry_run
        else f"plan {plan.hash} ({state})",
        f"annotators {', '.join(inputs['annotators'])}; overlap {inputs['overlap']}; gold {rates['gold']:.0%},"
        f" attention {rates['attention']:.0%}, repeats {rates['repeat']:.0%}; seed {inputs['seed']}",
    ]
    width = max(len(n) for n in inputs["annotators"])
    for name in inputs["annotators"]:
        mine = [a for a in plan.assignments if a.annotator == name]
        counts = {p: sum(1 for a in mine if a.purpose == p) for p in PLANNED_PURPOSES}
        new = sum(1 for a in plan.new if a.annotator == name)
        shown = (f"slot A first {sum(1 for a in mine if a.order[:1] == ('A',))}" if inputs.get("ranking_k")
                 else f"slot B on the left {sum(a.swapped for a in mine)}")
        lines.append(
            f"  {name:<{width}}  " + "  ".join(f"{p} {c}" for p, c in counts.items())
            + f"  total {len(mine)} ({new} new), {shown}"
        )
    if applied.dropped:
        lines.append(f"dropped {plural(len(applied.dropped), 'default-queue assignment')} (never shown)")
    lines += [f"note: {note}" for note in plan.notes]
    return lines
