"""Which display mode each assignment is shown under: the `between` and `within` rules, repeats
following their first showing, and re-drawing around assignments already shown (`assign_conditions`,
the design's pure core). The rules are stated in the package docstring."""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from annotate.model import Assignment

TAKING_PART = ("main", "gold", "repeat")
_MAX_PASSES = 30


@dataclass
class _Work:
    assignments: list[Assignment]
    fixed: set[int]
    condition: dict[int, str] = field(default_factory=dict)


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


def _rng(seed: int, *parts: object) -> random.Random:
    """A generator for one stage; str seeds are hashed with SHA-512 by `random` (stable)."""
    return random.Random(":".join(["experiment", str(seed), *map(str, parts)]))


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
