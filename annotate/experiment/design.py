"""`design_experiment`: conditions, suggestion links and planted suggestions for a session's
assignments, as a pure, seeded function of its inputs with a SHA-256 hash over inputs and outputs."""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotate.experiment.conditions import TAKING_PART, _assign_conditions, _rng
from annotate.model import Assignment, Suggestion
from annotate.spec import DISPLAY_MODES, ExperimentSpec
from annotate.text import plural

EXPERIMENT_FORMAT = 1
"""Bumped when the design rules change, so an old hash is never confused with a new one."""


@dataclass(frozen=True)
class Design:
    """The result of `design_experiment`.

    `conditions` maps every assignment id to (condition, suggestion key); a key is
    `"id:<n>"` for a stored (real) suggestion, `"planted:<item>"` for the item's planted one in
    `planted` (stored or not yet), or None.
    """

    conditions: Mapping[int, tuple[str, str | None]]
    planted: Mapping[str, Suggestion]
    """Item id -> the planted suggestion it needs (id None when not stored yet)."""
    hash: str
    inputs: Mapping[str, Any]
    outputs: Mapping[str, Any]
    notes: tuple[str, ...] = ()
    source_model: str = ""
    fixed: tuple[int, ...] = ()
    """Assignments that were already shown and kept theirs. Stored with the design but not part of
    its hash, so re-running after annotation has started changes the hash only if the design does."""

    def counts(self) -> dict[str, int]:
        """Assignments per condition."""
        out: dict[str, int] = defaultdict(int)
        for condition, _ in self.conditions.values():
            out[condition] += 1
        return dict(out)


def planted_label(
    gold: str | None, kind: str, rng: random.Random, shift: int = 2, scale: tuple[int, int] = (1, 10),
) -> str | None:
    """A wrong label to plant for an item with this gold, or None when it cannot be planted.

    Pairwise: `A` <-> `B`; a gold tie or both_bad is never planted. Grades: gold moved `shift`
    points up or down (at random among the directions that stay on `scale`).
    """
    if gold is None:
        return None
    if kind == "pairwise":
        return {"A": "B", "B": "A"}.get(gold)
    if kind == "single":
        try:
            value = int(gold)
        except ValueError:
            return None
        options = [v for v in (value - shift, value + shift) if scale[0] <= v <= scale[1]]
        return str(rng.choice(options)) if options else None
    return None


def design_experiment(
    assignments: Sequence[Assignment],
    gold: Mapping[str, str | None],
    suggestions: Sequence[Suggestion],
    experiment: ExperimentSpec,
    seed: int,
    *,
    kind: str = "pairwise",
    scale: tuple[int, int] = (1, 10),
    fixed: Iterable[int] = (),
) -> Design:
    """Conditions, suggestion links and planted suggestions for a session's assignments.

    assignments: every assignment of the session, with ids. gold: item id -> gold label (None when
    unknown). suggestions: every stored suggestion (real and planted). fixed: ids of assignments
    already shown, which keep their condition and suggestion. Raises ValueError when the inputs
    cannot be designed (naming what to change).
    """
    modes = tuple(experiment.modes)
    if any(m not in DISPLAY_MODES for m in modes) or len(set(modes)) != len(modes):
        raise ValueError(f"[experiment] modes must be distinct values of {', '.join(DISPLAY_MODES)}, got {modes}")
    if experiment.planted_rate > 0 and kind not in ("pairwise", "single"):
        raise ValueError(f"planted suggestions exist for pairwise and single sessions, not {kind}")
    fixed_ids = {int(i) for i in fixed}
    by_id = {a.id: a for a in assignments}
    notes: list[str] = []
    source, chosen = _choose_suggestions(suggestions, experiment.suggestion_source, notes)
    existing = {s.id: s for s in suggestions if s.id is not None}

    # -- what shown assignments fix --------------------------------------------------------------
    fixed_link: dict[str, set[str]] = defaultdict(set)  # item -> "planted" / "real"
    for a in assignments:
        if a.id in fixed_ids and a.suggestion_id is not None and a.suggestion_id in existing:
            fixed_link[a.item_id].add("planted" if existing[a.suggestion_id].planted else "real")

    # -- planted items ----------------------------------------------------------------------------
    taking = [a for a in assignments if a.purpose in TAKING_PART]
    items = sorted({a.item_id for a in taking})
    rng_plant = _rng(seed, "planted")
    plantable: dict[str, str] = {}
    for item_id in items:
        label = planted_label(gold.get(item_id), kind, _rng(seed, "plant-label", item_id),
                              experiment.planted_shift, scale)
        if label is not None:
            plantable[item_id] = label
    with_gold = [i for i in items if gold.get(i) is not None]
    if experiment.planted_rate > 0 and len(plantable) < len(with_gold):
        notes.append(f"{len(with_gold) - len(plantable)} gold items cannot be planted (a tie or both_bad, or no room"
                     " on the scale) and are left as they are")
    want = round(experiment.planted_rate * len(plantable))
    # One seeded order of every plantable item; the first `want` are planted, except that items
    # already shown with a planted suggestion stay planted and items already shown with the real
    # one stay real. Re-running after annotation started therefore draws the same items.
    order = sorted(plantable)
    rng_plant.shuffle(order)
    chosen_planted = {i for i in plantable if "planted" in fixed_link[i]}
    for item_id in order:
        if len(chosen_planted) >= want:
            break
        if "real" not in fixed_link[item_id]:
            chosen_planted.add(item_id)
    planted_ids = sorted(chosen_planted)
    if experiment.planted_rate > 0 and want == 0:
        notes.append("planted_rate > 0 but no gold item can be planted: import items with gold labels")
    planted: dict[str, Suggestion] = {}
    for item_id in planted_ids:
        reuse = next(
            (s for s in suggestions if s.planted and s.item_id == item_id and s.label == plantable[item_id]),
            None,
        )
        planted[item_id] = reuse or Suggestion(
            item_id=item_id, source_model=source or "planted", label=plantable[item_id], planted=True,
            prompt_hash="planted",
            raw=json.dumps({"planted": True, "gold": gold.get(item_id),
                            "replaces": chosen[item_id].id if item_id in chosen else None}, sort_keys=True),
        )

    def key_for(item_id: str) -> str | None:
        if item_id in planted:
            return f"planted:{item_id}"
        if item_id in chosen:
            return f"id:{chosen[item_id].id}"
        return None

    # -- conditions -------------------------------------------------------------------------------
    work = _assign_conditions(assignments, taking, modes, experiment.assign, seed, fixed_ids, notes)

    conditions: dict[int, tuple[str, str | None]] = {}
    for a in assignments:
        if a.id in fixed_ids:
            linked = existing.get(a.suggestion_id) if a.suggestion_id is not None else None
            if linked is not None and linked.planted:
                key: str | None = f"planted:{linked.item_id}"
                planted.setdefault(linked.item_id, linked)
            else:
                key = f"id:{a.suggestion_id}" if a.suggestion_id is not None else None
            conditions[a.id] = (a.condition, key)
        elif a.purpose in TAKING_PART:
            conditions[a.id] = (work.condition[a.id], key_for(a.item_id))
        else:
            conditions[a.id] = ("none", None)
    shown_without = sum(1 for a in taking if conditions[a.id][0] != "none" and conditions[a.id][1] is None)
    if shown_without:
        notes.append(f"{plural(shown_without, 'assignment')} under a display mode: no suggestion for the item, so"
                     " nothing is shown (run `annotate suggest` first)")

    inputs = {
        "format": EXPERIMENT_FORMAT, "seed": seed, "kind": kind, "scale": list(scale),
        "modes": list(modes), "assign": experiment.assign, "planted_rate": experiment.planted_rate,
        "planted_shift": experiment.planted_shift, "suggestion_source": experiment.suggestion_source,
        "source_model": source,
        "assignments": sorted([a.id, a.annotator, a.item_id, a.position, a.purpose] for a in assignments),
        "suggestions": sorted([s.item_id, s.id, s.label] for s in chosen.values()),
        "gold": sorted([i, gold[i]] for i in items if gold.get(i) is not None),
    }
    outputs = {
        "conditions": sorted([aid, c, k] for aid, (c, k) in conditions.items()),
        "planted": sorted([i, s.label] for i, s in planted.items()),
    }
    return Design(conditions, planted, design_digest(inputs, outputs), inputs, outputs, tuple(notes), source,
                  tuple(sorted(fixed_ids & set(by_id))))


def design_digest(inputs: Mapping[str, Any], outputs: Mapping[str, Any]) -> str:
    """SHA-256 (hex) over canonical JSON of a design's inputs and outputs."""
    text = json.dumps({"inputs": inputs, "outputs": outputs}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _choose_suggestions(
    suggestions: Sequence[Suggestion], source: str, notes: list[str],
) -> tuple[str, dict[str, Suggestion]]:
    real = [s for s in suggestions if not s.planted and s.id is not None]
    models = sorted({s.source_model for s in real})
    if source:
        if source not in models:
            raise ValueError(
                f"[experiment] suggestion_source = {source!r}, but the session has no suggestions from it"
                + (f"; it has: {', '.join(models)}" if models else "; run `annotate suggest` first")
            )
        model = source
    elif len(models) > 1:
        raise ValueError(
            f"the session has suggestions from several sources ({', '.join(models)}); choose one with"
            " [experiment] suggestion_source in the spec"
        )
    else:
        model = models[0] if models else ""
    chosen: dict[str, Suggestion] = {}
    for s in sorted((s for s in real if s.source_model == model), key=lambda s: s.id or 0):
        chosen[s.item_id] = s  # the latest wins
    hashes = {s.prompt_hash for s in real if s.source_model == model}
    if len(hashes) > 1:
        notes.append(f"{model}: suggestions from {plural(len(hashes), 'prompt')}; each item uses its latest")
    return model, chosen
