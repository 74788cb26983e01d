"""Sides: which slot is shown on the left, balanced per annotator and per item (DESIGN.md section 4).

An equitable two-colouring of the annotator-item graph built from Euler circuits (de Werra 1971),
repaired along alternating paths around assignments whose sides are already fixed.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from annotate.model import Assignment


def colour_sides(planned: Sequence[Assignment], segments: list[Any], rng: random.Random) -> None:
    """Set `swapped` on the new assignments so that every annotator and every item is balanced
    within one, counting the sides already fixed.

    A repeat shows its first showing's other side, so the two cancel out in the annotator's
    balance: a first showing that a new repeat copies is tied, in the graph, to a vertex of its
    own instead of the annotator's, and counts for its item only. Repeats never count for items.
    """
    new = [n for n in segments if n.purpose != "repeat"]
    repeats = [n for n in segments if n.purpose == "repeat"]
    balance: dict[Any, int] = defaultdict(int)
    for a in planned:
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
    colours = _euler_colours(edges, rng)
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


def unbalanced(assignments: Iterable[Assignment]) -> list[str]:
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
