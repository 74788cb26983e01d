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
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotate.model import Assignment, Suggestion
from annotate.spec import DISPLAY_MODES, ExperimentSpec, SessionSpec
from annotate.store import Store
from annotate.text import plural

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

EXPERIMENT_META_KEY = "experiment_hash"
EXPERIMENT_DESIGN_KEY = "experiment_design"
"""Meta key holding the canonical JSON of the last design's inputs and outputs."""
EXPERIMENT_FORMAT = 1
"""Bumped when the design rules change, so an old hash is never confused with a new one."""
TAKING_PART = ("main", "gold", "repeat")
_MAX_PASSES = 30


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


@dataclass
class _Work:
    assignments: list[Assignment]
    fixed: set[int]
    condition: dict[int, str] = field(default_factory=dict)


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


def assign_conditions(
    assignments: Sequence[Assignment], modes: Sequence[str], assign: str, seed: int, fixed: Iterable[int] = (),
) -> dict[int, str]:
    """The pure core of `design_experiment`: the condition of every assignment (id -> mode), by the
    rules of the module docstring. `fixed` assignments keep their `condition`. Planted items and
    suggestion links play no part in it, so re-running it with another seed re-draws only the
    conditions (what the anchoring analysis's randomization test does, see `redraw_conditions`)."""
    taking = [a for a in assignments if a.purpose in TAKING_PART]
    work = _assign_conditions(assignments, taking, tuple(modes), assign, seed, {int(i) for i in fixed}, [])
    return dict(work.condition)


def _assign_conditions(
    assignments: Sequence[Assignment], taking: list[Assignment], modes: tuple[str, ...], assign: str, seed: int,
    fixed_ids: set[int], notes: list[str],
) -> _Work:
    # The unconstrained design first; only when what was already shown disagrees with it (the
    # spec changed, or the plan grew) is the rest drawn again around the shown assignments.
    work = _conditions(assignments, taking, modes, assign, seed, set(), notes)
    if _conflicts(assignments, fixed_ids, work.condition):
        work = _conditions(assignments, taking, modes, assign, seed, fixed_ids, notes)
    return work


def _conflicts(assignments: Sequence[Assignment], fixed_ids: set[int], condition: Mapping[int, str]) -> bool:
    return any(
        a.id in fixed_ids and a.purpose in TAKING_PART and condition.get(a.id) != a.condition for a in assignments
    )


def _conditions(
    assignments: Sequence[Assignment], taking: list[Assignment], modes: tuple[str, ...], assign: str, seed: int,
    fixed_ids: set[int], notes: list[str],
) -> _Work:
    work = _Work(list(assignments), fixed_ids)
    for a in assignments:
        if a.id in fixed_ids:
            work.condition[a.id] = a.condition
        elif a.purpose not in TAKING_PART:
            work.condition[a.id] = "none"
    if modes == ("none",) or not modes:
        for a in taking:
            work.condition.setdefault(a.id, "none")
    elif assign == "between":
        _between(work, taking, modes, seed, notes)
    else:
        _within(work, taking, modes, seed)
    _repeats_follow_originals(work, taking)
    return work


def design_digest(inputs: Mapping[str, Any], outputs: Mapping[str, Any]) -> str:
    """SHA-256 (hex) over canonical JSON of a design's inputs and outputs."""
    text = json.dumps({"inputs": inputs, "outputs": outputs}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _rng(seed: int, *parts: object) -> random.Random:
    """A generator for one stage; str seeds are hashed with SHA-512 by `random` (stable)."""
    return random.Random(":".join(["experiment", str(seed), *map(str, parts)]))


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


def _between(work: _Work, taking: list[Assignment], modes: tuple[str, ...], seed: int, notes: list[str]) -> None:
    names = sorted({a.annotator for a in taking})
    locked: dict[str, str] = {}
    for a in taking:
        if a.id in work.fixed and a.annotator not in locked:
            locked[a.annotator] = a.condition
    mixed = sorted({a.annotator for a in taking if a.id in work.fixed and a.condition != locked[a.annotator]})
    if mixed:
        notes.append(f"annotators already shown items under several modes: {', '.join(mixed[:5])}")
    rng = _rng(seed, "between")
    order = [n for n in names if n not in locked]
    rng.shuffle(order)
    heads = {m: sum(1 for v in locked.values() if v == m) for m in modes}
    rotation = list(modes)
    rng.shuffle(rotation)
    mode_of = dict(locked)
    for name in order:
        mode = min(rotation, key=lambda m: heads[m])
        mode_of[name] = mode
        heads[mode] += 1
        rotation.append(rotation.pop(rotation.index(mode)))
    for a in taking:
        if a.id not in work.fixed:
            work.condition[a.id] = mode_of[a.annotator] if mode_of[a.annotator] in modes else modes[0]


def _within(work: _Work, taking: list[Assignment], modes: tuple[str, ...], seed: int) -> None:
    m = len(modes)
    queues: dict[str, list[Assignment]] = defaultdict(list)
    for a in sorted(taking, key=lambda a: (a.annotator, a.position)):
        if a.purpose != "repeat":
            queues[a.annotator].append(a)
    blocks: list[list[Assignment]] = []
    names = sorted(queues)
    _rng(seed, "within-order").shuffle(names)
    for name in names:
        queue = queues[name]
        blocks += [queue[i : i + m] for i in range(0, len(queue), m)]
    counts: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(modes, 0))
    for a in taking:
        if a.id in work.fixed and a.purpose != "repeat" and a.condition in modes:
            counts[a.item_id][a.condition] += 1
    rng = _rng(seed, "within")
    item_of = {a.id: a.item_id for a in taking}
    perms_cache: dict[int, list[tuple[str, ...]]] = {}
    current: list[dict[int, str]] = [{} for _ in blocks]

    def best(index: int) -> dict[int, str]:
        block = blocks[index]
        free = [a for a in block if a.id not in work.fixed]
        if not free:
            return {}
        used = [a.condition for a in block if a.id in work.fixed and a.condition in modes]
        pool = [mo for mo in modes if mo not in used]
        while len(pool) < len(free):  # a block whose fixed part repeats a mode: refill by least used
            pool.append(min(modes, key=lambda mo: (used + pool).count(mo)))
        k = len(free)
        options = perms_cache.setdefault(k * 100 + len(pool), [])
        if not options:
            options.extend(itertools.permutations(range(len(pool)), k))
        scored = []
        for perm in options:
            cost = sum(counts[a.item_id][pool[p]] for a, p in zip(free, perm, strict=True))
            scored.append((cost, rng.random(), perm))
        _, _, perm = min(scored)
        return {a.id: pool[p] for a, p in zip(free, perm, strict=True)}

    for _ in range(_MAX_PASSES):
        changed = False
        for index in range(len(blocks)):
            for aid, mode in current[index].items():
                counts[item_of[aid]][mode] -= 1
            choice = best(index)
            if choice != current[index]:
                changed = True
            current[index] = choice
            for aid, mode in choice.items():
                counts[item_of[aid]][mode] += 1
        if not changed:
            break
    for choice in current:
        work.condition.update(choice)


def _repeats_follow_originals(work: _Work, taking: list[Assignment]) -> None:
    first: dict[tuple[str, str], Assignment] = {}
    for a in sorted(taking, key=lambda a: (a.annotator, a.position)):
        if a.purpose != "repeat":
            first.setdefault((a.annotator, a.item_id), a)
    for a in taking:
        if a.purpose == "repeat" and a.id not in work.fixed:
            original = first.get((a.annotator, a.item_id))
            work.condition[a.id] = work.condition.get(original.id, "none") if original else "none"


# -- re-drawing the conditions (the anchoring analysis's randomization test) -------------------------


@dataclass(frozen=True)
class ConditionDraws:
    """Conditions re-drawn by `assign_conditions` with other seeds: in draw r, assignment `ids[j]`
    has condition `labels[codes[r, j]]`."""

    ids: Any
    """numpy int64 array (n,)."""
    labels: tuple[str, ...]
    codes: Any
    """numpy int8 array (draws, n)."""
    seeds: tuple[int, ...]


def redraw_seed(seed: int, index: int) -> int:
    """The seed of re-draw `index` of a design made with `seed` (a 63-bit int from SHA-256)."""
    digest = hashlib.sha256(f"experiment-redraw:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def redraw_conditions(
    assignments: Sequence[Assignment], modes: Sequence[str], assign: str, seed: int, n: int,
    fixed: Iterable[int] = (),
) -> ConditionDraws:
    """`n` re-draws of the conditions: draw r is exactly `assign_conditions(..., redraw_seed(seed, r),
    fixed)` (the tests check it), computed for all draws at once. Within designs run the coordinate
    descent of `_within` in lock-step over the draws (numpy), each draw with its own random stream;
    draws that must be re-drawn around `fixed` assignments fall back to `assign_conditions` itself."""
    import numpy as np

    modes = tuple(modes)
    seeds = tuple(redraw_seed(seed, r) for r in range(n))
    ids = np.array([a.id for a in assignments], dtype=np.int64)
    labels = tuple(dict.fromkeys([*modes, "none", *(a.condition for a in assignments)]))
    code = {label: k for k, label in enumerate(labels)}
    codes = np.zeros((n, len(assignments)), dtype=np.int8)  # "none" or the first mode, overwritten below
    codes[:] = code["none"]
    if n == 0:
        return ConditionDraws(ids, labels, codes, seeds)
    taking = [a for a in assignments if a.purpose in TAKING_PART]
    col = {a.id: j for j, a in enumerate(assignments)}
    codes[:] = _draw_batch(assignments, taking, modes, assign, seeds, set(), col, code)
    fixed_ids = {int(i) for i in fixed} & set(col)
    if fixed_ids:
        # as in design_experiment: a draw that disagrees with what was shown is drawn again around it
        shown = [a for a in assignments if a.id in fixed_ids and a.purpose in TAKING_PART]
        fixed_cols = np.array([col[a.id] for a in shown], dtype=np.int64)
        want = np.array([code[a.condition] for a in shown], dtype=np.int8)
        redo = np.flatnonzero((codes[:, fixed_cols] != want[None, :]).any(axis=1))
        if redo.size:
            codes[redo] = _draw_batch(assignments, taking, modes, assign, [seeds[r] for r in redo], fixed_ids, col,
                                      code)
    return ConditionDraws(ids, labels, codes, seeds)


def _draw_batch(
    assignments: Sequence[Assignment], taking: list[Assignment], modes: tuple[str, ...], assign: str,
    seeds: Sequence[int], fixed_ids: set[int], col: Mapping[int, int], code: Mapping[str, int],
) -> Any:
    """`_conditions` for every seed: codes (len(seeds), len(assignments))."""
    import numpy as np

    codes = np.full((len(seeds), len(assignments)), code["none"], dtype=np.int8)
    for a in assignments:
        if a.id in fixed_ids:
            codes[:, col[a.id]] = code[a.condition]
    if not modes or modes == ("none",):
        return codes
    if assign == "between":
        for r, s in enumerate(seeds):
            work = _Work(list(assignments), set(fixed_ids))
            _between(work, taking, modes, s, [])
            for aid, mode in work.condition.items():
                codes[r, col[aid]] = code[mode]
    else:
        _within_batch(codes, col, code, taking, modes, seeds, fixed_ids)
    # repeats follow their first showing (as _repeats_follow_originals)
    first: dict[tuple[str, str], Assignment] = {}
    for a in sorted(taking, key=lambda a: (a.annotator, a.position)):
        if a.purpose != "repeat":
            first.setdefault((a.annotator, a.item_id), a)
    for a in taking:
        if a.purpose == "repeat" and a.id not in fixed_ids:
            original = first.get((a.annotator, a.item_id))
            codes[:, col[a.id]] = codes[:, col[original.id]] if original else code["none"]
    return codes


def _within_batch(
    codes: Any, col: Mapping[int, int], code: Mapping[str, int], taking: list[Assignment], modes: tuple[str, ...],
    seeds: Sequence[int], fixed_ids: set[int],
) -> None:
    """`_within` for every seed at once: the same blocks, pools, random numbers and choices (per block
    the permutation of least cost, ties broken by the smallest random number), in lock-step over the
    draws with numpy; each draw stops after its first pass without a change, as `_within` does."""
    import numpy as np

    m = len(modes)
    queues: dict[str, list[Assignment]] = defaultdict(list)
    for a in sorted(taking, key=lambda a: (a.annotator, a.position)):
        if a.purpose != "repeat":
            queues[a.annotator].append(a)
    names = sorted(queues)
    item_code = {item: k for k, item in enumerate(sorted({a.item_id for a in taking}))}
    mode_index = {mo: k for k, mo in enumerate(modes)}
    blocks_of: dict[str, list[int]] = {}
    block_items: list[list[int]] = []
    block_cols: list[list[int]] = []
    block_pool: list[list[int]] = []
    for name in names:
        queue = queues[name]
        blocks_of[name] = []
        for i in range(0, len(queue), m):
            block = queue[i : i + m]
            free = [a for a in block if a.id not in fixed_ids]
            used = [a.condition for a in block if a.id in fixed_ids and a.condition in modes]
            pool = [mo for mo in modes if mo not in used]
            while len(pool) < len(free):  # as in _within: refill by least used
                pool.append(min(modes, key=lambda mo: (used + pool).count(mo)))
            blocks_of[name].append(len(block_items))
            block_items.append([item_code[a.item_id] for a in free])
            block_cols.append([col[a.id] for a in free])
            block_pool.append([mode_index[mo] for mo in pool])
    n_blocks, n_draws = len(block_items), len(seeds)
    if n_blocks == 0:
        return
    size = np.array([len(b) for b in block_items])
    pool_size = np.array([len(p) for p in block_pool])
    shape = size * (m + 1) + pool_size  # blocks of one shape share their permutations
    items = np.zeros((n_blocks, m), dtype=np.int64)
    pools = np.zeros((n_blocks, m), dtype=np.int64)
    for b in range(n_blocks):
        items[b, : size[b]] = block_items[b]
        pools[b, : pool_size[b]] = block_pool[b]
    options = {
        sh: (np.array(list(itertools.permutations(range(ps), k)), dtype=np.int64).reshape(-1, k) if k
             else np.zeros((0, 0), dtype=np.int64))
        for sh, k, ps in {(int(a), int(b), int(c)) for a, b, c in zip(shape, size, pool_size, strict=True)}
    }
    n_opt = np.array([len(options[int(sh)]) if k else 0 for sh, k in zip(shape, size, strict=True)])
    order = np.zeros((n_draws, n_blocks), dtype=np.int64)
    for r, s in enumerate(seeds):
        shuffled = list(names)
        _rng(s, "within-order").shuffle(shuffled)
        order[r] = [b for name in shuffled for b in blocks_of[name]]
    offsets = np.cumsum(n_opt[order], axis=1) - n_opt[order]  # where each step's random numbers start
    per_pass = int(n_opt.sum())
    rngs = [_numpy_stream(_rng(s, "within")) for s in seeds]
    counts = np.zeros((n_draws, len(item_code), m), dtype=np.int64)
    for a in taking:
        if a.id in fixed_ids and a.purpose != "repeat" and a.condition in modes:
            counts[:, item_code[a.item_id], mode_index[a.condition]] += 1
    current = np.full((n_draws, n_blocks, m), -1, dtype=np.int64)  # chosen mode index per free slot
    active = np.arange(n_draws)
    # an item twice in one block would need np.add.at; otherwise every (draw, item, mode) of a step is distinct
    distinct = all(len(set(its)) == len(its) for its in block_items)

    def add(target: Any, index: tuple[Any, ...], value: int) -> None:
        if distinct:
            target[index] += value
        else:
            np.add.at(target, index, value)

    for _ in range(_MAX_PASSES):
        if active.size == 0:
            break
        rand = np.stack([rngs[r].random_sample(per_pass) for r in active])
        changed = np.zeros(active.size, dtype=bool)
        for t in range(n_blocks):
            blocks = order[active, t]
            shapes = shape[blocks]
            for sh in np.unique(shapes) if shapes.min() != shapes.max() else shapes[:1]:
                sel = np.flatnonzero(shapes == sh) if shapes.min() != shapes.max() else np.arange(active.size)
                draws, bs = active[sel], blocks[sel]
                k = int(size[bs[0]])
                if k == 0:
                    continue  # nothing free in the block: no random numbers, no change
                its = items[bs, :k]
                cur = current[draws, bs, :k]
                had = cur[:, 0] >= 0
                if had.all():
                    add(counts, (np.repeat(draws, k), its.ravel(), cur.ravel()), -1)
                elif had.any():
                    add(counts, (np.repeat(draws[had], k), its[had].ravel(), cur[had].ravel()), -1)
                opts = options[int(sh)]
                pool = pools[bs]  # (draws, m)
                block_counts = counts[draws[:, None], its]  # (draws, k, m)
                rows = np.arange(len(bs))[:, None]
                cost = 0
                for j in range(k):
                    cost = cost + block_counts[:, j, :][rows, pool[:, opts[:, j]]]
                rnd = rand[sel[:, None], offsets[draws, t][:, None] + np.arange(len(opts))[None, :]]
                rnd = np.where(cost == cost.min(axis=1, keepdims=True), rnd, np.inf)
                choice = np.take_along_axis(pool, opts[np.argmin(rnd, axis=1)], axis=1)  # mode indices (draws, k)
                changed[sel] |= ~had | (choice != cur).any(axis=1)
                current[draws, bs, :k] = choice
                add(counts, (np.repeat(draws, k), its.ravel(), choice.ravel()), 1)
        active = active[changed]
    mode_code = np.array([code[mo] for mo in modes], dtype=np.int8)
    for b, cols in enumerate(block_cols):
        if cols:
            codes[:, cols] = mode_code[current[:, b, : len(cols)]]


def _numpy_stream(rng: random.Random) -> Any:
    """A numpy RandomState in the same Mersenne Twister state as `rng`: its `random_sample(n)` gives the
    numbers n calls of `rng.random()` would (both build a double from two 32-bit outputs, 53 bits)."""
    import numpy as np

    _, internal, _ = rng.getstate()
    state = np.random.RandomState()
    state.set_state(("MT19937", np.array(internal[:-1], dtype=np.uint32), internal[-1], 0, 0.0))
    return state


# -- the store-facing part -------------------------------------------------------------------------


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
