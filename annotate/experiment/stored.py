"""The experiment in a session's store: designing it over the stored assignments and storing it in one
transaction, verifying the stored design, re-drawing it, and the command line's summary."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from annotate.experiment.conditions import assign_conditions
from annotate.experiment.design import EXPERIMENT_FORMAT, Design, design_digest, design_experiment
from annotate.experiment.redraw import ConditionDraws, redraw_conditions
from annotate.model import Assignment
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.text import plural

EXPERIMENT_META_KEY = "experiment_hash"
EXPERIMENT_DESIGN_KEY = "experiment_design"
"""Meta key holding the canonical JSON of the last design's inputs and outputs."""


@dataclass(frozen=True)
class AppliedExperiment:
    """What `apply_experiment` did."""

    design: Design
    changed: int
    """Assignments whose condition or suggestion changed."""
    planted_added: int
    previous_hash: str | None
    dry_run: bool = False


def apply_experiment(store: Store, spec: SessionSpec, *, dry_run: bool = False) -> AppliedExperiment:
    """Design the session's suggestion experiment (spec section [experiment]) over its stored
    assignments and store it in one transaction: planted suggestions, each assignment's condition
    and suggestion id, meta `experiment_hash` and `experiment_design` (the canonical inputs and
    outputs). Assignments already shown keep theirs. Needs assignments (run `annotate plan` first).
    """
    with store.transaction():
        assignments = store.assignments()
        if not assignments:
            raise ValueError("the session has no assignments yet: run `annotate plan` first")
        purposes = sorted({a.purpose for a in assignments})
        untouched = {a.id for a in store.untouched_assignments(purposes=purposes)}
        fixed = [a.id for a in assignments if a.id not in untouched]
        gold = {item.id: item.gold for item in store.items()}
        design = design_experiment(
            assignments, gold, store.suggestions(), spec.experiment, spec.seed, kind=spec.kind,
            scale=spec.schema.scale, fixed=fixed,
        )
        previous = store.get_meta(EXPERIMENT_META_KEY)
        new_planted = [s for s in design.planted.values() if s.id is None]
        if dry_run:
            changed = sum(1 for a in assignments if design.conditions[a.id][0] != a.condition)
            return AppliedExperiment(design, changed, len(new_planted), previous, dry_run=True)
        stored = store.add_suggestions(new_planted) if new_planted else []
        planted_ids = {s.item_id: s.id for s in design.planted.values() if s.id is not None}
        planted_ids.update({s.item_id: s.id for s in stored})
        updates = []
        for a in assignments:
            condition, key = design.conditions[a.id]
            suggestion_id = _resolve(key, planted_ids)
            if (condition, suggestion_id) != (a.condition, a.suggestion_id):
                updates.append((a.id, condition, suggestion_id))
        if updates:
            store.set_assignment_design(updates)
        store.delete_unused_planted_suggestions()
        store.set_meta(EXPERIMENT_META_KEY, design.hash)
        store.set_meta(EXPERIMENT_DESIGN_KEY, json.dumps(
            {"inputs": design.inputs, "outputs": design.outputs, "fixed": list(design.fixed)}, sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        ))
    return AppliedExperiment(design, len(updates), len(stored), previous)


def _resolve(key: str | None, planted_ids: Mapping[str, int | None]) -> int | None:
    if key is None:
        return None
    kind, _, rest = key.partition(":")
    if kind == "planted":
        return planted_ids[rest]
    return int(rest)


def verify_experiment(store: Store) -> bool | None:
    """Whether the stored design's hash matches its stored inputs and outputs, and the stored
    assignments still carry exactly those conditions (None before the first design)."""
    stored_hash = store.get_meta(EXPERIMENT_META_KEY)
    raw = store.get_meta(EXPERIMENT_DESIGN_KEY)
    if stored_hash is None or raw is None:
        return None
    data = json.loads(raw)
    if design_digest(data["inputs"], data["outputs"]) != stored_hash:
        return False
    suggestions = {s.id: s for s in store.suggestions()}
    now = []
    for a in store.assignments():
        linked = suggestions.get(a.suggestion_id) if a.suggestion_id is not None else None
        if linked is None:
            key = None
        elif linked.planted:
            key = f"planted:{linked.item_id}"
        else:
            key = f"id:{linked.id}"
        now.append([a.id, a.condition, key])
    return sorted(now) == [list(row) for row in data["outputs"]["conditions"]]


def stored_redraws(store: Store, n: int) -> tuple[ConditionDraws | None, str]:
    """`n` re-draws of the session's stored design (meta `experiment_design`: its assignments, modes,
    rule, seed and kept assignments), for the anchoring analysis's randomization test; or None and
    why not (no design stored, it no longer matches the assignments, or its conditions cannot be
    reproduced from its inputs)."""
    raw = store.get_meta(EXPERIMENT_DESIGN_KEY)
    if raw is None or n <= 0:
        return None, "no stored experiment design" if raw is None else "no draws asked for"
    if not verify_experiment(store):
        return None, "the stored experiment design no longer matches the assignments (run `annotate experiment`)"
    data = json.loads(raw)
    inputs = data["inputs"]
    if inputs.get("format") != EXPERIMENT_FORMAT:
        return None, "the stored experiment design is from another format"
    stored = {int(aid): condition for aid, condition, _ in data["outputs"]["conditions"]}
    fixed = {int(i) for i in data.get("fixed", [])}
    assignments = [
        Assignment(int(aid), annotator, item_id, int(position), purpose=purpose,
                   condition=stored[int(aid)] if int(aid) in fixed else "none")
        for aid, annotator, item_id, position, purpose in inputs["assignments"]
    ]
    modes, assign, seed = tuple(inputs["modes"]), inputs["assign"], inputs["seed"]
    if assign_conditions(assignments, modes, assign, seed, fixed) != stored:
        return None, "the stored conditions cannot be reproduced from the stored design inputs"
    return redraw_conditions(assignments, modes, assign, seed, n, fixed), ""


def experiment_summary(applied: AppliedExperiment, spec: SessionSpec) -> list[str]:
    """Lines for the command line; notes start with `note:`."""
    design = applied.design
    exp = spec.experiment
    counts = design.counts()
    order = [*exp.modes, *sorted(set(counts) - set(exp.modes))]
    source = design.source_model or "(none yet: run `annotate suggest`, then `annotate experiment`)"
    lines = [
        f"experiment {design.hash[:12]}{' (dry run, nothing written)' if applied.dry_run else ''}:"
        f" modes {', '.join(exp.modes)} ({exp.assign}), seed {spec.seed}",
        "assignments: " + ", ".join(f"{mode} {counts.get(mode, 0)}" for mode in order),
        f"suggestions from {source}; planted wrong on {len(design.planted)} of"
        f" {plural(len(design.inputs['gold']), 'gold item')}",
        f"{plural(applied.changed, 'assignment')} {'would change' if applied.dry_run else 'changed'}",
    ]
    return lines + [f"note: {note}" for note in design.notes]
