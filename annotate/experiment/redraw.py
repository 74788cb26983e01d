"""Re-drawing the conditions with other seeds, all draws at once (numpy, imported lazily), for the
anchoring analysis's randomization test."""

from __future__ import annotations

import hashlib
import itertools
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotate.experiment.conditions import _MAX_PASSES, TAKING_PART, _between, _rng, _Work
from annotate.model import Assignment


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
