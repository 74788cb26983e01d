"""The pure planner behind `annotate plan`: overlap, gold items, attention checks, repeats and
the queue order; the rules are stated below, once."""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotate.model import Assignment, Item
from annotate.plan.orders import colour_orders, square, unbalanced_orders
from annotate.plan.sides import colour_sides, unbalanced
from annotate.text import plural

# -- the planner: `annotate plan` --------------------------------------------------------------
#
# The rules, in one place (docs/planning.md, "Planning: annotate plan", says the same for leads):
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
# - Ranking items (k responses): over the same assignments, every item shows each response at each
#   position about equally often across its annotators (at most once per position when the overlap
#   is at most k), and every annotator sees each slot at each position equally often within one: the
#   orders are rows of a Latin square, the row an equitable k-colouring (annotate.plan.orders).
# - A repeat is a second showing of one of the annotator's main items with the sides swapped (a
#   ranking item: its order reversed), at least MIN_REPEAT_GAP positions after the first showing.
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
    ranked: Sequence[str] = (),
) -> Plan:
    """Who sees which item, in which order and on which side (the rules are above).

    item_ids: every item of the session; gold_ids and attention_ids: the subsets with a known
    answer and the attention checks (attention wins when an id is in both). existing: every
    assignment already stored (ids kept; `adjudication` ones only reserve their positions).
    pairwise: False for single-response tasks (then nothing is swapped). ranked: the slots of a
    ranking session's items (A, B, C, ...): then each assignment gets a display order, never a side.
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
    if ranked:  # only then, so the hashes of earlier plans stay what they were
        inputs |= {"pairwise": False, "ranking_k": len(ranked)}
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
    new_ones = [n for _, segment in segments.values() for n in segment]
    if ranked:
        rows = square(ranked, _rng(seed, "square"))
        colour_orders(state.planned, new_ones, rows, _rng(seed, "orders", len(state.planned)))
    elif pairwise:
        colour_sides(state.planned, new_ones, _rng(seed, "sides", len(state.planned)))
    added = tuple(
        Assignment(
            id=0, annotator=name, item_id=n.item_id, position=start + offset, swapped=n.swapped,
            purpose=n.purpose, seed=seed, order=n.order,
        )
        for name, (start, segment) in segments.items() for offset, n in enumerate(segment)
    )
    whole = tuple(sorted((*planned, *added), key=lambda a: (a.annotator, a.position)))
    idle = sorted(set(names) - {a.annotator for a in whole})
    if idle:
        notes.append(_idle_note(idle, overlap, main_pool, saturated))
    off = unbalanced_orders(whole, len(ranked)) if ranked else unbalanced(whole) if pairwise else []
    if off:
        what = "display orders" if ranked else "sides"
        notes.append(
            f"{what} could not be balanced within one around the assignments already fixed for: "
            + ", ".join(off[:10]) + (" ..." if len(off) > 10 else "")
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
        [a.annotator, a.item_id, a.position, bool(a.swapped), a.purpose, *(["".join(a.order)] if a.order else [])]
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
    order: tuple[str, ...] = ()
    """Ranking items: the slots at positions 1, 2, ... (set last, like the side)."""
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
