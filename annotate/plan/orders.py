"""Display orders of ranking items: which response is shown at which position (DESIGN.md section 4).

The orders are the rows of one Latin square over the k slots: in a k x k Latin square every slot is
at every position exactly once over the rows, so counting a response's positions comes down to
counting rows. The square is a Williams design (Williams 1949; first row 0, 1, k-1, 2, k-2, ...,
each further row adds 1 mod k), which for even k also puts every slot directly before every other
exactly once over the rows; its symbols become slots through one seeded permutation per plan.

Which row an assignment shows is an edge colouring of the annotator-item graph with k colours, made
*equitable* (at every annotator and every item the colours differ by at most one) as de Werra (1971)
shows it can be for bipartite graphs: a greedy colouring first, then, while some vertex has two
colours apart by two or more, the edges of those two colours are coloured again equitably with the
two-colour method of `annotate.plan.sides` (Euler circuits, then alternating paths around the
assignments already fixed). So:

- per item, over its annotators, each response is at each position at most once when the overlap is
  at most k (and within one of equally often beyond);
- per annotator, over their queue, each slot is at each position equally often within one.

Repeats show the first showing's order reversed (for k = 2 that is the other side) and are left out
of both counts. A plan extended around fixed assignments keeps them and balances the new ones as far
as they allow; `unbalanced_orders` says where that fell short.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from annotate.model import Assignment
from annotate.plan.sides import _euler_colours, _repair

MAX_PASSES = 2000
"""Bound on the pairwise recolourings of `colour_orders` (each lowers the imbalance; far fewer run)."""


def williams_rows(k: int) -> list[tuple[int, ...]]:
    """The k rows of a Williams Latin square over 0..k-1 (module docstring)."""
    first = [0]
    low, high = 1, k - 1
    while len(first) < k:
        first.append(low)
        low += 1
        if len(first) < k:
            first.append(high)
            high -= 1
    return [tuple((s + r) % k for s in first) for r in range(k)]


def square(slots: Sequence[str], rng: random.Random) -> list[tuple[str, ...]]:
    """The Latin square of display orders: Williams rows with the symbols relabelled by `rng`."""
    relabel = list(slots)
    rng.shuffle(relabel)
    return [tuple(relabel[s] for s in row) for row in williams_rows(len(slots))]


def reversed_order(order: Sequence[str]) -> tuple[str, ...]:
    """A repeat's order: its first showing's, back to front."""
    return tuple(reversed(order))


def colour_orders(
    planned: Sequence[Assignment], new: list[Any], rows: list[tuple[str, ...]], rng: random.Random,
) -> None:
    """Set `order` on the new assignments (objects with annotator, item_id, purpose, order and, for
    repeats, `original`) so that every annotator and every item is balanced within one over the
    rows of `rows`, counting the orders already fixed in `planned` (module docstring)."""
    k = len(rows)
    row_of = {row: c for c, row in enumerate(rows)}
    firsts = [n for n in new if n.purpose != "repeat"]
    counts: dict[Any, list[int]] = defaultdict(lambda: [0] * k)
    for a in planned:
        colour = row_of.get(tuple(a.order))
        if a.purpose == "repeat" or colour is None:
            continue
        counts["a", a.annotator][colour] += 1
        counts["i", a.item_id][colour] += 1
    edges = [(("a", n.annotator), ("i", n.item_id)) for n in firsts]
    colours = _greedy(edges, counts, k, rng)
    _balance(edges, colours, counts, k, rng)
    for n, colour in zip(firsts, colours, strict=True):
        n.order = rows[colour]
    for n in new:
        if n.purpose == "repeat":
            n.order = reversed_order(n.original.order)


def _greedy(edges: list[tuple[Any, Any]], counts: dict[Any, list[int]], k: int, rng: random.Random) -> list[int]:
    """A first colouring, edge by edge in random order: the colour least used at both ends."""
    colours = [0] * len(edges)
    order = list(range(len(edges)))
    rng.shuffle(order)
    for e in order:
        u, v = edges[e]
        cu, cv = counts[u], counts[v]
        best = min(range(k), key=lambda c: (cv[c] + cu[c], max(cv[c], cu[c]), rng.random()))
        colours[e] = best
        cu[best] += 1
        cv[best] += 1
    return colours


def _balance(edges: list[tuple[Any, Any]], colours: list[int], counts: dict[Any, list[int]], k: int,
             rng: random.Random) -> None:
    """Recolour pairs of colours equitably until no vertex has two colours apart by two or more (or
    the fixed edges leave no way to get there)."""
    incident: dict[Any, list[int]] = defaultdict(list)
    for index, (u, v) in enumerate(edges):
        incident[u].append(index)
        incident[v].append(index)
    stuck: set[tuple[Any, int, int]] = set()
    for _ in range(MAX_PASSES):
        worst = _worst(counts, incident, stuck)
        if worst is None:
            return
        vertex, high, low = worst
        chosen = [e for e in range(len(edges)) if colours[e] in (high, low)]
        sub = [edges[e] for e in chosen]
        fixed: dict[Any, int] = defaultdict(int)
        touched = {x for edge in sub for x in edge}
        for x in touched:  # what the other (fixed) edges at x put on high minus low
            fixed[x] = (counts[x][high] - counts[x][low]) - sum(
                1 if colours[e] == high else -1 for e in incident[x] if colours[e] in (high, low))
        before = _spread(counts[vertex])
        two = _euler_colours(sub, rng)
        _repair(sub, two, fixed)
        for e, is_high in zip(chosen, two, strict=True):
            new = high if is_high else low
            if new != colours[e]:
                for x in edges[e]:
                    counts[x][colours[e]] -= 1
                    counts[x][new] += 1
                colours[e] = new
        if _spread(counts[vertex]) >= before:
            stuck.add((vertex, high, low))


def _spread(row: list[int]) -> int:
    return max(row) - min(row)


def _worst(counts: dict[Any, list[int]], incident: dict[Any, list[int]], stuck: set[tuple[Any, int, int]],
           ) -> tuple[Any, int, int] | None:
    """The vertex (with new edges) whose colours are furthest apart, and its most and least used colour."""
    best: tuple[int, Any, int, int] | None = None
    for vertex in sorted(incident, key=repr):
        row = counts[vertex]
        high = max(range(len(row)), key=lambda c: (row[c], -c))
        low = min(range(len(row)), key=lambda c: (row[c], c))
        gap = row[high] - row[low]
        if gap >= 2 and (vertex, high, low) not in stuck and (best is None or gap > best[0]):
            best = (gap, vertex, high, low)
    return None if best is None else (best[1], best[2], best[3])


def default_orders(n: int, slots: Sequence[str], rng: random.Random) -> list[tuple[str, ...]]:
    """Display orders for one annotator's `n` assignments before a plan: the rows of a seeded Latin
    square, each used n / k times within one, in a random order."""
    rows = square(slots, rng)
    start = list(range(len(rows)))
    rng.shuffle(start)
    picks = [rows[start[i % len(rows)]] for i in range(n)]
    rng.shuffle(picks)
    return picks


def position_counts(assignments: Iterable[Assignment]) -> tuple[dict[tuple[str, str, int], int],
                                                                 dict[tuple[str, str, int], int]]:
    """How often each slot was at each position: per (annotator, slot, position) and per (item, slot,
    position), repeats left out; positions count from 1."""
    per_annotator: dict[tuple[str, str, int], int] = defaultdict(int)
    per_item: dict[tuple[str, str, int], int] = defaultdict(int)
    for a in assignments:
        if a.purpose == "repeat" or not a.order:
            continue
        for position, slot in enumerate(a.order, start=1):
            per_annotator[a.annotator, slot, position] += 1
            per_item[a.item_id, slot, position] += 1
    return per_annotator, per_item


def unbalanced_orders(assignments: Iterable[Assignment], k: int) -> list[str]:
    """Annotators and items where some slot is at some position two or more times more often than
    another slot at the same position (repeats left out)."""
    assignments = list(assignments)
    per_annotator, per_item = position_counts(assignments)
    slots = sorted({s for a in assignments for s in a.order})
    out = []
    for label, counts, owners in (("annotator", per_annotator, sorted({a.annotator for a in assignments})),
                                  ("item", per_item, sorted({a.item_id for a in assignments}))):
        for owner in owners:
            for position in range(1, k + 1):
                seen = [counts.get((owner, s, position), 0) for s in slots]
                if seen and max(seen) - min(seen) > 1:
                    out.append(f"{label} {owner}")
                    break
    return out
