"""The cells of a plain delimited file (no quotes, every line as wide as the header) coded on its UTF-8
bytes with numpy: one Python string per distinct cell, not one per cell.

A column's cells are packed into unsigned 64-bit words (a cell's bytes, zero-padded: no cell of a plain
file holds a NUL byte, so two cells pack alike only when they are the same bytes) and coded by sorting
the packed words. A cell of at most 8 bytes is one word, its own key; a longer cell is several words
keyed by a hash of them, and every cell is checked against the first cell of its key, so a collision
never merges two cells (the column is then coded cell by cell, as is a column whose cells run past
`MAX_PACKED` bytes). The codes and distinct cells are what `raw_codes` gives for the cells as strings.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["MAX_PACKED", "Coded", "plain_columns", "raw_codes"]

MAX_PACKED = 64
"""The longest cell (in bytes) a column is packed for; past it the column is coded cell by cell."""

_MIX = ((np.uint64(30), np.uint64(0xBF58476D1CE4E5B9)), (np.uint64(27), np.uint64(0x94D049BB133111EB)))
"""The shifts and multipliers of splitmix64's finalizer, which mixes the words of a long cell into one key."""


def raw_codes(cells: Sequence[str | None]) -> tuple[np.ndarray, list[str | None]]:
    """Cells as int64 codes into their distinct values, which stand in the order they first occur."""
    distinct = dict.fromkeys(cells)
    position = dict(zip(distinct, range(len(distinct)), strict=True))
    return np.fromiter(map(position.__getitem__, cells), dtype=np.int64, count=len(cells)), list(distinct)


Coded = tuple[np.ndarray, list[str], "np.ndarray | None"]
"""A column's `raw_codes` and, when known, the order of its distinct cells sorted as Python sorts them."""


def plain_columns(raw: bytes, start: int, stop: int, delimiter: str, width: int,
                  cell: Callable[[int, int], str]) -> list[Coded] | None:
    """Each column's `raw_codes` and the sorted order of its distinct cells (positions among them, smallest
    first) when every ``\\n``-separated line of ``raw[start:stop]`` holds exactly `width` cells (split at
    `delimiter`, an ASCII character); else None. cell(a, b): the text of the bytes ``raw[a:b]``.

    >>> raw = b"u2,a,1\\nu10,a, 2\\nu2,b,"
    >>> [(codes.tolist(), cells, order.tolist()) for codes, cells, order in plain_columns(
    ...     raw, 0, len(raw), ",", 3, lambda a, b: raw[a:b].decode())]
    [([0, 1, 0], ['u2', 'u10'], [1, 0]), ([0, 0, 1], ['a', 'b'], [0, 1]), ([0, 1, 2], ['1', ' 2', ''], [2, 1, 0])]
    """
    every = np.frombuffer(raw, dtype=np.uint8)
    data = every[start:stop]
    at_break = data == ord(delimiter)
    at_break |= data == ord("\n")
    breaks = np.flatnonzero(at_break)
    del at_break
    if (breaks.size + 1) % width:
        return None
    ends = np.append(data[breaks] == ord("\n"), True).reshape(-1, width)  # where each row's cells end
    if not ends[:, -1].all() or ends[:, :-1].any():
        return None
    breaks += start  # offsets in `raw`
    line_ends = breaks[width - 1::width]
    columns = []
    for j in range(width):
        starts = np.concatenate(([start], line_ends + 1)) if j == 0 else breaks[j - 1::width] + 1
        stops = np.append(line_ends, stop) if j == width - 1 else breaks[j::width]
        columns.append(_coded(every, starts, stops, cell))
    return columns


def _coded(every: np.ndarray, starts: np.ndarray, ends: np.ndarray, cell: Callable[[int, int], str]) -> Coded:
    """The cells at ``[starts, ends)`` of the bytes `every` as `raw_codes` gives them, and the sorted order of
    the distinct ones (UTF-8 bytes compare as their code points: the packed words of the distinct cells
    sorted as numbers, the first word first); `cell(start, end)`: one cell as text."""
    lengths = ends - starts
    longest = int(lengths.max())
    if longest <= MAX_PACKED:
        words = _packed(every, starts, lengths, longest)
        codes, at = _codes(words[:, 0] if words.shape[1] == 1 else _mixed(words))
        if words.shape[1] == 1 or (words[at][codes] == words).all():  # else two cells' keys collided
            return codes, _texts(words[at]), np.lexsort(words[at].T[::-1])
    codes, cells = raw_codes(list(map(cell, starts.tolist(), ends.tolist())))
    return codes, cells, None  # type: ignore[return-value]


def _codes(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Int64 codes of `key` (its distinct values numbered in the order they first occur) and where each
    first occurs. Runs of one key (a unit's ratings one after the other) are coded as one."""
    runs = np.flatnonzero(key[1:] != key[:-1]) + 1
    if runs.size * 2 > key.size:
        return _few(key) or _sorted(key)
    runs = np.concatenate(([0], runs))
    codes, at = _few(key[runs]) or _sorted(key[runs])
    return np.repeat(codes, np.diff(runs, append=key.size)), runs[at]


def _sorted(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`_codes` of `key` by sorting it."""
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    seen = np.argsort(first)  # the distinct keys in the order they first occur
    rank = np.empty(seen.size, dtype=np.int64)
    rank[seen] = np.arange(seen.size)
    return rank[inverse.ravel()], first[seen]


_FEW = 16
"""Columns of at most this many distinct keys (raters, labels) are coded key by key, without a sort."""


def _few(key: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """`_codes` of `key` found one distinct key at a time, without a sort; None when there are more than
    `_FEW` (judged first on the first keys)."""
    if np.unique(key[:4 * _FEW], return_counts=True)[0].size > _FEW // 2:
        return None
    codes = np.zeros(key.size, dtype=np.int64)
    todo = np.ones(key.size, dtype=bool)
    first: list[int] = []
    at = 0
    while True:
        same = key == key[at]
        codes[same] = len(first)
        first.append(at)
        todo &= ~same
        at = int(todo.argmax())
        if not todo[at]:
            return codes, np.array(first, dtype=np.int64)
        if len(first) == _FEW:
            return None


_BIG_ENDIAN = sys.byteorder == "big"


def _packed(every: np.ndarray, starts: np.ndarray, lengths: np.ndarray, longest: int) -> np.ndarray:
    """Each cell's bytes in ``(n, ceil(longest / 8))`` uint64 words, zero past the cell's end, the first
    byte the most significant (so words compare as the bytes do)."""
    width = max(1, -(-longest // 8))
    block = np.zeros((starts.size, 8 * width), dtype=np.uint8)
    last = every.size - 1
    for k in range(longest):
        at = starts + k
        np.minimum(at, last, out=at)  # past the end of the bytes: masked below
        byte = every[at]
        byte[lengths <= k] = 0
        block[:, k if _BIG_ENDIAN else k - k % 8 + 7 - k % 8] = byte
    return block.view(np.uint64)


def _texts(words: np.ndarray) -> list[str]:
    """The cells `_packed` into these rows of words, as text: their bytes in order, a line break after
    each, decoded at once and split (the padding is NUL bytes, which no cell of a plain file holds)."""
    cells = words.view(np.uint8).reshape(words.shape[0], -1, 8)
    lines = np.empty((words.shape[0], words.shape[1] * 8 + 1), dtype=np.uint8)
    lines[:, :-1] = (cells if _BIG_ENDIAN else cells[:, :, ::-1]).reshape(words.shape[0], -1)
    lines[:, -1] = ord("\n")
    return lines.tobytes().decode("utf-8").replace("\0", "").split("\n")[:-1]


def _mixed(words: np.ndarray) -> np.ndarray:
    """One uint64 key per row of `words`: a hash (splitmix64's finalizer after each word; rows that differ
    may still share one, which the caller checks)."""
    key = np.zeros(words.shape[0], dtype=np.uint64)
    for j in range(words.shape[1]):
        key ^= words[:, j]
        for shift, multiplier in _MIX:
            key ^= key >> shift
            key *= multiplier
        key ^= key >> np.uint64(31)
    return key
