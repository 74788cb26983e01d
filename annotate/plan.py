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

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import zlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotate.model import Assignment, Item
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.text import plural

PLAN_META_KEY = "plan_hash"


def annotator_seed(session_seed: int, annotator: str) -> int:
    """A stable 32-bit seed for one annotator in one session.

    CRC-32 over "seed:name", never Python's `hash()`, which is salted per process.
    """
    return zlib.crc32(f"{session_seed}:{annotator}".encode())


def default_queue(
    item_ids: Sequence[str], session_seed: int, annotator: str, *, start: int = 0,
    pairwise: bool = True,
) -> list[Assignment]:
    """Assignments for `item_ids` in a seeded random order, at positions `start`, `start + 1`...

    Sides are counterbalanced: exactly half of the assignments are swapped (for an odd count the
    extra one goes either way at random); single-response tasks are never swapped. `start` also
    feeds the seed, so items appended later are drawn independently of the first batch. The
    returned assignments have `id` 0 (the store gives ids).
    """
    seed = annotator_seed(session_seed, annotator)
    rng = random.Random(seed * 1_000_003 + start)
    order = list(item_ids)
    rng.shuffle(order)
    n = len(order)
    swapped_count = n // 2 + (1 if n % 2 and rng.random() < 0.5 else 0)
    flags = [True] * swapped_count + [False] * (n - swapped_count)
    rng.shuffle(flags)
    if not pairwise:
        flags = [False] * n
    return [
        Assignment(id=0, annotator=annotator, item_id=item_id, position=start + i, swapped=flag, seed=seed)
        for i, (item_id, flag) in enumerate(zip(order, flags, strict=True))
    ]


DEFAULT_QUEUE_META = "default_queue_upto:"
"""Meta key prefix: `default_queue_upto:NAME` holds the newest item rowid NAME's default queue covers."""


def ensure_default_queue(store: Store, spec: SessionSpec, annotator: str) -> None:
    """Create the annotator's default queue, or extend it with items added since, when the session
    has no plan. Cheap when nothing is new (two meta reads and an index lookup), so starting the app
    costs the same on a large session.

    Without a plan, items added to the session since the queue was made are appended at the end;
    nothing already assigned moves. With a plan nothing is made (someone the plan does not name has
    no queue). Adjudication assignments (`annotate adjudicate`) are never part of the queue.

    Read and write happen in one write transaction, so the same annotator starting twice at the
    same moment (two terminals) gets one queue, not a clash over its positions.
    """
    if store.get_meta(PLAN_META_KEY):
        return
    newest = store.newest_item_rowid()
    key = DEFAULT_QUEUE_META + annotator
    covered = store.get_meta(key)
    if covered is not None and int(covered) >= newest:
        return
    with store.transaction():
        if store.get_meta(PLAN_META_KEY):
            return
        existing = store.assignments(annotator)  # under the write lock
        assigned = {a.item_id for a in existing}
        new_ids = [item_id for item_id in store.item_ids() if item_id not in assigned]
        if new_ids:
            start = max((a.position for a in existing), default=-1) + 1
            store.add_assignments(
                default_queue(new_ids, spec.seed, annotator, start=start, pairwise=spec.kind == "pairwise")
            )
        store.set_meta(key, str(newest))


def ensure_queue(store: Store, spec: SessionSpec, annotator: str) -> list[Assignment]:
    """The annotator's queue as a list (made or extended first, as `ensure_default_queue` says).

    With a plan, the planned queue is returned as it is (empty for someone the plan does not name).
    The app reads queues a slice at a time instead (`annotate.store.queues`).
    """
    ensure_default_queue(store, spec, annotator)
    return [a for a in store.assignments(annotator) if a.purpose != "adjudication"]


# -- the planner: `annotate plan` --------------------------------------------------------------
#
# The rules, in one place (docs/team.md says the same for leads):
#
# - Main items are every item except attention checks, and except gold items when the gold rate is
#   above 0 (then gold items are set apart as quality checks). Each main item goes to `overlap`
#   annotators; an item always goes to the annotators with the fewest main items so far (ties
#   broken at random), so main loads differ by at most one.
# - Gold items (`gold` set, not an attention check) and attention checks (metadata
#   `{"attention": true}` or category `attention`; their right answer is in `gold`) are drawn for
#   each annotator from the whole pool, in that annotator's own seeded order, without repeating
#   an item for the same annotator; different annotators may see the same gold item, and with a
#   small pool every annotator sees all of it. Each quality kind makes up its rate's share of the
#   annotator's queue: with m main items and rates g, t, r, the queue has about T = m / (1 - g - t - r)
#   assignments, of which round(g T) gold, round(t T) attention checks and round(r T) repeats.
# - Sides: over the main, gold and attention assignments, every item is shown swapped and unswapped
#   equally often across its annotators (within one), and every annotator sees slot A on the left
#   as often as slot B (within one, repeats included: a repeat and its first showing cancel
#   out). For a new plan this is an equitable 2-colouring of the
#   bipartite annotator-item graph, found with Euler circuits (de Werra 1971), so it always exists.
# - A repeat is a second showing of one of the annotator's main items with the sides swapped, at
#   least MIN_REPEAT_GAP positions after the first showing.
# - The queue order is random per annotator (seeded by the plan seed and the annotator's name).
# - Extending (more items, annotators, a higher overlap or rate) keeps every existing assignment
#   where it is and appends the new ones at the end of each queue; the new ones are coloured so
#   the whole stays balanced where the fixed ones allow it (plan notes say where it does not).
# - The plan is a pure function of its inputs (sets, not orders, of ids and names); its hash is
#   SHA-256 over canonical JSON of the inputs and every planned assignment.

PLAN_INPUTS_KEY = "plan_inputs"
"""Meta key holding the canonical JSON of the last plan's inputs (see `Plan.inputs`)."""
PLAN_FORMAT = 1
"""Bumped when the planning rules change, so an old hash is never confused with a new one."""
MIN_REPEAT_GAP = 11
"""A repeat's position minus its first showing's position: at least 10 other items between."""
PLANNED_PURPOSES = ("main", "gold", "attention", "repeat")
"""Purposes the planner writes; `adjudication` assignments are made by `annotate adjudicate`."""
ANNOTATOR_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}\Z")


@dataclass(frozen=True)
class Rates:
    """Shares of each annotator's queue given to quality items, each 0 <= rate < 1, sum < 1."""

    gold: float = 0.0
    attention: float = 0.0
    repeat: float = 0.0


@dataclass(frozen=True)
class Plan:
    """The result of `make_plan`."""

    assignments: tuple[Assignment, ...]
    """The whole plan: the existing planned assignments and the new ones, by annotator and
    position (adjudication assignments are not part of a plan)."""
    new: tuple[Assignment, ...]
    """The assignments to add (id 0; the store gives ids)."""
    hash: str
    """SHA-256 (hex) over the canonical JSON of `inputs` and `assignments`."""
    inputs: Mapping[str, Any]
    """The canonical inputs: sorted ids and names, overlap, rates, seed, pairwise."""
    notes: tuple[str, ...] = ()
    """Where the plan fell short of the rules (a pool too small, a queue too short for repeats)."""


def is_attention_item(item: Item) -> bool:
    """An attention check: metadata `{"attention": true}` or category `attention`."""
    return item.metadata.get("attention") is True or item.category == "attention"


def make_plan(
    item_ids: Iterable[str],
    gold_ids: Iterable[str],
    attention_ids: Iterable[str],
    annotators: Iterable[str],
    overlap: int,
    rates: Rates,
    seed: int,
    existing: Iterable[Assignment] = (),
    *,
    pairwise: bool = True,
) -> Plan:
    """Who sees which item, in which order and on which side (the rules are above).

    item_ids: every item of the session; gold_ids and attention_ids: the subsets with a known
    answer and the attention checks (attention wins when an id is in both). existing: every
    assignment already stored (ids kept; `adjudication` ones only reserve their positions).
    pairwise: False for single-response tasks (then nothing is swapped).
    Raises ValueError for inputs that cannot be planned, naming what to change.
    """
    items = sorted(set(item_ids))
    given = list(annotators)
    names = sorted(set(given))
    attention = sorted(set(attention_ids))
    gold = sorted(set(gold_ids) - set(attention))
    existing = tuple(existing)
    _check_inputs(items, gold, attention, names, given, overlap, rates)
    inputs = {
        "format": PLAN_FORMAT, "items": items, "gold": gold, "attention": attention,
        "annotators": names, "overlap": overlap, "seed": seed, "pairwise": pairwise,
        "rates": {"gold": rates.gold, "attention": rates.attention, "repeat": rates.repeat},
    }
    notes: list[str] = []
    main_pool = sorted(set(items) - set(attention) - (set(gold) if rates.gold > 0 else set()))
    if rates.gold > 0 and not main_pool:
        raise ValueError(
            "every item has a gold label, so none is left as main work at a gold rate above 0; "
            "use --gold-rate 0 (gold accuracy is still measured on the main items)"
        )
    planned = [a for a in existing if a.purpose != "adjudication"]
    state = _State(names, planned, existing)
    saturated = all(state.main_count[i] >= overlap for i in main_pool)
    new: list[_New] = []
    new += _allocate_main(state, main_pool, overlap, seed, notes)
    quality_pools = (("gold", gold, rates.gold), ("attention", attention, rates.attention))
    for name in names:
        for purpose, pool, rate in quality_pools:
            new += _draw_quality(state, name, purpose, pool, rate, rates, seed, notes)
    segments = {
        name: _queue(state, name, [n for n in new if n.annotator == name], rates, seed, notes) for name in names
    }
    if pairwise:
        _colour(state, [n for _, segment in segments.values() for n in segment], seed)
    added = tuple(
        Assignment(
            id=0, annotator=name, item_id=n.item_id, position=start + offset, swapped=n.swapped,
            purpose=n.purpose, seed=seed,
        )
        for name, (start, segment) in segments.items() for offset, n in enumerate(segment)
    )
    whole = tuple(sorted((*planned, *added), key=lambda a: (a.annotator, a.position)))
    idle = sorted(set(names) - {a.annotator for a in whole})
    if idle:
        notes.append(_idle_note(idle, overlap, main_pool, saturated))
    unbalanced = _unbalanced(whole) if pairwise else []
    if unbalanced:
        notes.append(
            "sides could not be balanced within one around the assignments already fixed for: "
            + ", ".join(unbalanced[:10]) + (" ..." if len(unbalanced) > 10 else "")
        )
    return Plan(whole, added, plan_digest(inputs, whole), inputs, tuple(notes))


def _idle_note(idle: list[str], overlap: int, main_pool: list[str], saturated: bool) -> str:
    """Why the annotators in `idle` get no assignment at all, and what would give them work."""
    who = idle[0] if len(idle) == 1 else ", ".join(idle[:-1]) + " and " + idle[-1]
    them = idle[0] if len(idle) == 1 else "them"
    gets = "gets" if len(idle) == 1 else "get"
    if not main_pool:
        why = "the session has no items to plan as main work"
        fix = "import items"
    elif saturated:
        why = f"every item already has its {overlap} annotators"
        fix = f"raise --overlap (to {overlap + 1} or more) or import more items"
    else:
        why = "the items still needing annotators went to the others"
        fix = "raise --overlap or import more items"
    return f"{who} {gets} no items: {why}; {fix} to give {them} work"


def plan_digest(inputs: Mapping[str, Any], assignments: Iterable[Assignment]) -> str:
    """SHA-256 over canonical JSON of the inputs and the planned assignments (any order)."""
    rows = sorted(
        [a.annotator, a.item_id, a.position, bool(a.swapped), a.purpose]
        for a in assignments if a.purpose in PLANNED_PURPOSES
    )
    text = json.dumps({"inputs": inputs, "assignments": rows}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_inputs(
    items: list[str], gold: list[str], attention: list[str], names: list[str], given: list[str],
    overlap: int, rates: Rates,
) -> None:
    if not names:
        raise ValueError("no annotators: name them with --annotators alice,bob,...")
    if len(names) != len(given):
        raise ValueError("an annotator is named twice in --annotators")
    for name in names:
        if not ANNOTATOR_NAME.match(name):
            raise ValueError(f"annotator name {name!r}: letters, digits, '.', '_', '@' or '-' (at most 64)")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or overlap < 1:
        raise ValueError(f"overlap must be an integer >= 1, not {overlap!r}")
    if overlap > len(names):
        raise ValueError(f"overlap {overlap} needs at least {overlap} annotators, got {len(names)}")
    for label, rate in (("gold", rates.gold), ("attention", rates.attention), ("repeat", rates.repeat)):
        if not 0.0 <= rate < 1.0:
            raise ValueError(f"--{label}-rate must be from 0 to below 1, not {rate!r}")
    if rates.gold + rates.attention + rates.repeat >= 1.0:
        raise ValueError("the gold, attention and repeat rates add up to 1 or more: no room is left for main items")
    known = set(items)
    for label, ids in (("gold", gold), ("attention", attention)):
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise ValueError(f"{label} ids that are not items: {', '.join(unknown[:5])}")
    if rates.gold > 0 and not gold:
        raise ValueError(
            "a gold rate above 0 needs gold items (items with a `gold` label), and the session has none; "
            "import items with gold labels or use --gold-rate 0"
        )
    if rates.attention > 0 and not attention:
        raise ValueError(
            "an attention rate above 0 needs attention checks (items with metadata {\"attention\": true} "
            "or category \"attention\", the right answer in `gold`), and the session has none; "
            "import some or use --attention-rate 0"
        )


@dataclass
class _New:
    """A new assignment while the plan is being made (side and position come last)."""

    annotator: str
    item_id: str
    purpose: str
    swapped: bool = False
    original: _New | Assignment | None = None
    """For a repeat: the first showing it copies (its side is the opposite)."""
    repeated: bool = False
    """True for a first showing that a new repeat copies."""


@dataclass
class _State:
    """What the existing assignments fix: loads, who has which item, sides, positions."""

    names: list[str]
    planned: list[Assignment]
    existing: tuple[Assignment, ...]
    main_load: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    main_count: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    has: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    purpose_count: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))

    def __post_init__(self) -> None:
        for a in self.existing:
            self.has[a.annotator].add(a.item_id)
        for a in self.planned:
            self.purpose_count[a.annotator, a.purpose] += 1
            if a.purpose == "main":
                self.main_load[a.annotator] += 1
                self.main_count[a.item_id] += 1

    def take(self, new: _New) -> _New:
        self.has[new.annotator].add(new.item_id)
        self.purpose_count[new.annotator, new.purpose] += 1
        if new.purpose == "main":
            self.main_load[new.annotator] += 1
            self.main_count[new.item_id] += 1
        return new


def _rng(seed: int, *parts: object) -> random.Random:
    """A generator for one stage of the plan; str seeds are hashed with SHA-512 by `random`, so
    this is stable across processes and Python versions."""
    return random.Random(":".join(["plan", str(seed), *map(str, parts)]))


def _allocate_main(state: _State, pool: list[str], overlap: int, seed: int, notes: list[str]) -> list[_New]:
    rng = _rng(seed, "main", len(state.planned))
    order = [i for i in pool if state.main_count[i] < overlap]
    rng.shuffle(order)
    added = []
    short = 0
    for item_id in order:
        need = overlap - state.main_count[item_id]
        candidates = [n for n in state.names if item_id not in state.has[n]]
        keyed = sorted(candidates, key=lambda n: (state.main_load[n], rng.random()))
        if len(keyed) < need:
            short += 1
        for name in keyed[:need]:
            added.append(state.take(_New(name, item_id, "main")))
    if short:
        notes.append(f"{plural(short, 'item')} could not reach overlap {overlap}: too few annotators without them")
    return added


def _targets(main: int, rates: Rates) -> dict[str, int]:
    """Quality assignments an annotator with `main` main items should have in all."""
    total = main / (1.0 - rates.gold - rates.attention - rates.repeat)
    return {
        "gold": math.floor(rates.gold * total + 0.5),
        "attention": math.floor(rates.attention * total + 0.5),
        "repeat": math.floor(rates.repeat * total + 0.5),
    }


def _draw_quality(
    state: _State, name: str, purpose: str, pool: list[str], rate: float, rates: Rates, seed: int,
    notes: list[str],
) -> list[_New]:
    if rate <= 0:
        return []
    want = _targets(state.main_load[name], rates)[purpose] - state.purpose_count[name, purpose]
    if want <= 0:
        return []
    fresh = [i for i in pool if i not in state.has[name]]
    _rng(seed, purpose, name).shuffle(fresh)
    if len(fresh) < want:
        notes.append(f"{name}: {plural(want, purpose + ' item')} wanted, only {len(fresh)} left in the pool")
    return [state.take(_New(name, item_id, purpose)) for item_id in fresh[:want]]


# -- sides -----------------------------------------------------------------------------------------


def _colour(state: _State, segments: list[Any], seed: int) -> None:
    """Set `swapped` on the new assignments so that every annotator and every item is balanced
    within one, counting the sides already fixed.

    A repeat shows its first showing's other side, so the two cancel out in the annotator's
    balance: a first showing that a new repeat copies is tied, in the graph, to a vertex of its
    own instead of the annotator's, and counts for its item only. Repeats never count for items.
    """
    new = [n for n in segments if n.purpose != "repeat"]
    repeats = [n for n in segments if n.purpose == "repeat"]
    balance: dict[Any, int] = defaultdict(int)
    for a in state.planned:
        sign = 1 if a.swapped else -1
        balance["a", a.annotator] += sign
        if a.purpose != "repeat":
            balance["i", a.item_id] += sign
    for r in repeats:
        if isinstance(r.original, Assignment):
            balance["a", r.annotator] += -1 if r.original.swapped else 1
    edges = [
        (("o", n.annotator, n.item_id) if n.repeated else ("a", n.annotator), ("i", n.item_id)) for n in new
    ]
    colours = _euler_colours(edges, _rng(seed, "sides", len(state.planned)))
    _repair(edges, colours, balance)
    for n, colour in zip(new, colours, strict=True):
        n.swapped = colour
    for r in repeats:
        assert r.original is not None
        r.swapped = not r.original.swapped


def _euler_colours(edges: list[tuple[Any, Any]], rng: random.Random) -> list[bool]:
    """An equitable 2-colouring of a bipartite multigraph's edges: at every vertex the two
    colours differ by at most one.

    Odd-degree vertices are joined to a dummy vertex on the other side (and the two dummies to
    each other when needed), so every degree is even; colours then alternate along Euler
    circuits, which have even length in a bipartite graph, so every vertex is exactly balanced
    there and within one once the dummy edges are dropped (de Werra 1971).
    Vertices are tuples whose first element names the side: `i` for items, anything else for
    the other side.
    """
    ends = list(edges)
    degree: dict[Any, int] = defaultdict(int)
    for u, v in ends:
        degree[u] += 1
        degree[v] += 1
    dummy_a, dummy_i = ("a", None), ("i", None)
    odd = sorted((v for v, d in degree.items() if d % 2), key=repr)
    for v in odd:
        ends.append((dummy_a, v) if v[0] == "i" else (v, dummy_i))
    if sum(1 for u, _ in ends if u == dummy_a) % 2:
        ends.append((dummy_a, dummy_i))
    adjacency: dict[Any, list[int]] = defaultdict(list)
    for index, (u, v) in enumerate(ends):
        adjacency[u].append(index)
        adjacency[v].append(index)
    vertices = sorted(adjacency, key=repr)
    rng.shuffle(vertices)
    for v in vertices:
        rng.shuffle(adjacency[v])
    used = [False] * len(ends)
    pointer: dict[Any, int] = defaultdict(int)
    colours = [False] * len(ends)
    for start in vertices:
        stack: list[tuple[Any, int | None]] = [(start, None)]
        circuit: list[int] = []
        while stack:
            vertex, arrived_by = stack[-1]
            incident = adjacency[vertex]
            while pointer[vertex] < len(incident) and used[incident[pointer[vertex]]]:
                pointer[vertex] += 1
            if pointer[vertex] == len(incident):
                stack.pop()
                if arrived_by is not None:
                    circuit.append(arrived_by)
                continue
            edge = incident[pointer[vertex]]
            used[edge] = True
            u, v = ends[edge]
            stack.append((v if vertex == u else u, edge))
        first = rng.random() < 0.5
        for step, edge in enumerate(circuit):
            colours[edge] = first if step % 2 == 0 else not first
    return colours[: len(edges)]


def _repair(edges: list[tuple[Any, Any]], colours: list[bool], balance: dict[Any, int]) -> None:
    """Flip alternating paths of new edges until no vertex is off by two or more where a path
    can fix it. `balance` holds the fixed part (swapped minus unswapped) and is updated."""
    incident: dict[Any, list[int]] = defaultdict(list)
    for index, (u, v) in enumerate(edges):
        incident[u].append(index)
        incident[v].append(index)
        balance[u] += 1 if colours[index] else -1
        balance[v] += 1 if colours[index] else -1
    for start in sorted(incident, key=repr):
        while abs(balance[start]) >= 2:
            path = _alternating_path(start, edges, colours, incident, balance)
            if path is None:
                break
            end = start
            for edge in path:
                u, v = edges[edge]
                end = v if end == u else u
            balance[start] += -2 if colours[path[0]] else 2
            balance[end] += -2 if colours[path[-1]] else 2
            for edge in path:
                colours[edge] = not colours[edge]


def _alternating_path(
    start: Any, edges: list[tuple[Any, Any]], colours: list[bool], incident: dict[Any, list[int]],
    balance: dict[Any, int],
) -> list[int] | None:
    """Breadth-first search for a path from `start` whose edges alternate colour, starting with
    the colour `start` has too many of, and ending where flipping it does no harm."""
    first = balance[start] > 0
    parent: dict[Any, tuple[Any, int] | None] = {start: None}
    frontier = [(start, first)]
    while frontier:
        following = []
        for vertex, colour in frontier:
            for edge in incident[vertex]:
                if colours[edge] != colour:
                    continue
                u, v = edges[edge]
                other = v if vertex == u else u
                if other in parent:
                    continue
                parent[other] = (vertex, edge)
                after = balance[other] + (-2 if colour else 2)
                if abs(after) <= 1 or abs(after) < abs(balance[other]):
                    path = []
                    node = other
                    while parent[node] is not None:
                        node, step = parent[node]  # type: ignore[misc]
                        path.append(step)
                    return path[::-1]
                following.append((other, not colour))
        frontier = following
    return None


def _unbalanced(assignments: Iterable[Assignment]) -> list[str]:
    annotator: dict[str, int] = defaultdict(int)
    item: dict[str, int] = defaultdict(int)
    for a in assignments:
        sign = 1 if a.swapped else -1
        annotator[a.annotator] += sign
        if a.purpose != "repeat":
            item[a.item_id] += sign
    return [f"annotator {k}" for k, d in sorted(annotator.items()) if abs(d) > 1] + [
        f"item {k}" for k, d in sorted(item.items()) if abs(d) > 1
    ]


# -- queues and repeats ----------------------------------------------------------------------------


def _queue(
    state: _State, name: str, new: list[_New], rates: Rates, seed: int, notes: list[str],
) -> tuple[int, list[_New]]:
    """Where the annotator's new assignments start, and them in queue order with repeats mixed in."""
    mine = [a for a in state.existing if a.annotator == name]
    start = max((a.position for a in mine), default=-1) + 1
    rng = _rng(seed, "order", name, start)
    segment = list(new)
    rng.shuffle(segment)
    want = _targets(state.main_load[name], rates)["repeat"] - state.purpose_count[name, "repeat"]
    if want > 0:
        _mix_repeats(state, name, segment, start, want, rng, notes)
    return start, segment


def _mix_repeats(
    state: _State, name: str, segment: list[_New], start: int, want: int, rng: random.Random,
    notes: list[str],
) -> None:
    """Insert up to `want` repeats into the new segment, each at least MIN_REPEAT_GAP positions
    after its first showing (a main item, repeated once at most). Rounds repeat while they make
    room for more, so planning again with the same inputs finds nothing left to add."""
    repeated = {a.item_id for a in state.planned if a.annotator == name and a.purpose == "repeat"}
    fixed_mains: list[tuple[int, _New | Assignment]] = [
        (a.position, a) for a in state.planned if a.annotator == name and a.purpose == "main"
    ]
    placed = 0
    while placed < want:
        originals = fixed_mains + [(start + i, n) for i, n in enumerate(segment) if n.purpose == "main"]
        last = start + len(segment)
        eligible = [(p, o) for p, o in originals if o.item_id not in repeated and p + MIN_REPEAT_GAP <= last]
        lean = sum(1 if a.swapped else -1 for a in state.planned if a.annotator == name) + sum(
            1 if not n.original.swapped else -1 for n in segment if isinstance(n.original, Assignment)
        )
        chosen = _pick_originals(eligible, min(want - placed, len(eligible)), lean, rng)
        if not chosen:
            break
        for _, original in sorted(chosen, key=lambda pair: pair[0]):
            if isinstance(original, _New):
                at = start + next(i for i, n in enumerate(segment) if n is original)
                original.repeated = True
            else:
                at = original.position
            index = rng.randint(max(0, at + MIN_REPEAT_GAP - start), len(segment))
            segment.insert(index, _New(name, original.item_id, "repeat", original=original))
            repeated.add(original.item_id)
            state.purpose_count[name, "repeat"] += 1
        placed += len(chosen)
    if placed < want:
        notes.append(f"{name}: {plural(want, 'repeat')} wanted, {placed} fit (a repeat comes at least "
                     f"{MIN_REPEAT_GAP} positions after the first showing)")


def _pick_originals(
    eligible: list[tuple[int, Any]], count: int, lean: int, rng: random.Random,
) -> list[tuple[int, Any]]:
    """`count` of the eligible first showings, at random, except that already stored ones (whose
    side is fixed, and so their repeat's) are taken only while they keep the annotator's fixed
    balance `lean` (swapped minus unswapped) within one, unless nothing else is left."""
    order = list(eligible)
    rng.shuffle(order)
    chosen: list[tuple[int, Any]] = []
    backlog: list[tuple[int, Any]] = []
    for pair in order:
        if len(chosen) == count:
            break
        original = pair[1]
        if isinstance(original, _New):
            chosen.append(pair)
            continue
        sign = -1 if original.swapped else 1
        if abs(lean + sign) <= max(1, abs(lean)):
            chosen.append(pair)
            lean += sign
        else:
            backlog.append(pair)
    return chosen + backlog[: count - len(chosen)]


# -- the store-facing part -------------------------------------------------------------------------


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
            annotators, overlap, rates, seed, existing, pairwise=spec.kind == "pairwise",
        )
        if dry_run:
            return AppliedPlan(plan, (), tuple(dropped), previous, dry_run=True)
        if dropped:
            store.delete_assignments([a.id for a in dropped])
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


# -- writing the plan into the spec's [plan] table -------------------------------------------------

_TABLE_HEADER = re.compile(r"^\s*\[\[?\s*[A-Za-z0-9_.\- ]+\s*\]\]?\s*(#.*)?$")
_PLAN_HEADER = re.compile(r"^\s*\[\s*plan\s*\]\s*(#.*)?$")
_KEY_LINE = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


def plan_table_values(annotators: Iterable[str], overlap: int, rates: Rates) -> dict[str, Any]:
    """The [plan] keys `annotate plan` writes into the spec."""
    return {
        "annotators": list(dict.fromkeys(annotators)), "overlap": overlap, "gold_rate": rates.gold,
        "attention_rate": rates.attention, "repeat_rate": rates.repeat,
    }


def rewrite_plan_table(text: str, values: Mapping[str, Any]) -> str:
    """The spec text with the [plan] table's keys set to `values`.

    Only the lines of those keys change (a trailing comment on such a line is kept); every other
    line, comments included, stays as it was. Keys missing from the table are added after its
    last line; a missing table is appended at the end.
    """
    lines = text.splitlines()
    rendered = {key: f"{key} = {_toml_value(value)}" for key, value in values.items()}
    header = next((i for i, line in enumerate(lines) if _PLAN_HEADER.match(line)), None)
    if header is None:
        tail = [""] if lines and lines[-1].strip() else []
        return "\n".join([*lines, *tail, "[plan]", *rendered.values()]) + "\n"
    out = lines[: header + 1]
    index = header + 1
    written: set[str] = set()
    last_content = len(out)
    while index < len(lines) and not _TABLE_HEADER.match(lines[index]):
        line = lines[index]
        match = _KEY_LINE.match(line)
        if match and match.group(1) in values:
            key = match.group(1)
            code, comment = _split_comment(line)
            depth = _depth(code)
            while depth > 0 and index + 1 < len(lines):
                index += 1
                code, comment = _split_comment(lines[index])
                depth += _depth(code)
            out.append(rendered[key] + (f"  {comment}" if comment else ""))
            written.add(key)
        else:
            out.append(line)
        if line.strip():
            last_content = len(out)
        index += 1
    missing = [rendered[key] for key in values if key not in written]
    out[last_content:last_content] = missing
    out += lines[index:]
    return "\n".join(out) + "\n"


def write_plan_to_spec(path: Path, values: Mapping[str, Any]) -> bool:
    """Rewrite the spec file's [plan] table (see `rewrite_plan_table`) atomically, after checking
    that the result parses and holds exactly `values`. Returns False, leaving the file untouched,
    when the table already holds those values (annotators compared as a set, as the plan does)."""
    import os
    import tomllib

    raw = path.read_text(encoding="utf-8")
    bom = "\ufeff" if raw.startswith("\ufeff") else ""  # kept as it was, like every other byte
    text = raw[len(bom):]
    if _table_holds(tomllib.loads(text).get("plan", {}), values):
        return False
    updated = rewrite_plan_table(text, values)
    table = tomllib.loads(updated).get("plan", {})
    if any(table.get(key) != value for key, value in values.items()):
        raise ValueError(f"{path}: could not update the [plan] table safely; edit it by hand to {dict(values)}")
    if updated == text:
        return False
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(bom + updated, encoding="utf-8")
    os.replace(tmp, path)
    return True


def _table_holds(table: Mapping[str, Any], values: Mapping[str, Any]) -> bool:
    """Whether a parsed [plan] table already says `values` (the annotators in any order)."""
    for key, value in values.items():
        found = table.get(key)
        if key == "annotators" and isinstance(found, list):
            if sorted(map(str, found)) != sorted(value) or len(set(found)) != len(found):
                return False
        elif isinstance(found, bool) or found != value:
            return False
    return True


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def _split_comment(line: str) -> tuple[str, str]:
    """A TOML line's code and its trailing comment ('#' outside strings)."""
    quote = None
    escaped = False
    for index, char in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:index], line[index:]
    return line, ""


def _depth(code: str) -> int:
    """Open minus closed brackets outside strings."""
    depth = 0
    quote = None
    for char in code:
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
    return depth


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
        lines.append(
            f"  {name:<{width}}  " + "  ".join(f"{p} {c}" for p, c in counts.items())
            + f"  total {len(mine)} ({new} new), slot B on the left {sum(a.swapped for a in mine)}"
        )
    if applied.dropped:
        lines.append(f"dropped {plural(len(applied.dropped), 'default-queue assignment')} (never shown)")
    lines += [f"note: {note}" for note in plan.notes]
    return lines
