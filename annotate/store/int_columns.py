"""Integer columns of a large query read as SQLite text aggregates, so no Python object is made per row.

sqlite3 builds every row it returns as a tuple of Python objects, one per value: at millions of rows
that is most of what a report's read costs. Here SQLite joins each integer column of a range of rows
into one string (``group_concat``) and numpy parses it (``np.fromstring``), so a range of 200,000 rows
costs a handful of Python objects. Small fields (codes of text columns with few values, flags) are packed
into one integer per row first, as each aggregated value costs about as much as the next.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3

    import numpy as np

class NotIntegers(ValueError):
    """An aggregated column held something else than one integer per row (a NULL, text, a real)."""


WORD_BITS = 62
"""Bits of one packed integer (SQLite's are signed 64-bit: two to spare keep every word positive)."""


@dataclass(frozen=True)
class Field:
    """A small non-negative integer of a row: SQL that gives it (never NULL), and its width in bits."""

    name: str
    sql: str
    bits: int


def pack(fields: Sequence[Field]) -> list[tuple[str, list[tuple[Field, int]]]]:
    """The fields packed into as few words as fit WORD_BITS each, in order: (the SQL of the word, [(field,
    its shift)])."""
    words: list[list[tuple[Field, int]]] = []
    used = WORD_BITS
    for field in fields:
        if field.bits > WORD_BITS:
            raise ValueError(f"field {field.name} is wider than a word ({field.bits} bits)")
        if used + field.bits > WORD_BITS:
            words.append([])
            used = 0
        words[-1].append((field, used))
        used += field.bits
    return [(" | ".join(f"(({f.sql}) << {shift})" if shift else f"({f.sql})" for f, shift in word), word)
            for word in words]


def unpack(words: Sequence[np.ndarray], packing: list[tuple[str, list[tuple[Field, int]]]]) -> dict[str, np.ndarray]:
    """Each field's values (int64) from the words read for `packing`."""
    import numpy as np

    out = {}
    for values, (_, word) in zip(words, packing, strict=True):
        for field, shift in word:
            out[field.name] = (values >> shift) & np.int64((1 << field.bits) - 1)
    return out


def read_ints(conn: sqlite3.Connection, source: str, params: Sequence[Any], exprs: Sequence[str], key: str,
              bounds: tuple[int, int], step: int = 200_000, select_params: Sequence[Any] = (),
              with_keys: bool = False) -> list[np.ndarray]:
    """The values of `exprs` (SQL giving a non-NULL integer per row, with `select_params` for their
    placeholders) over the rows of `source` (``FROM ... WHERE ...``, with `params`), one int64 array each,
    in the order of `key` (an integer unique per row, e.g. a rowid, between `bounds`): read a range of
    `step` keys at a time. with_keys: the keys first."""
    import numpy as np

    sql = (f"SELECT count(*), {', '.join(f'group_concat({e})' for e in (key, *exprs))} {source}"
           f" AND {key} BETWEEN ? AND ?")
    parts: list[list[np.ndarray]] = [[] for _ in range(len(exprs) + 1)]
    low, high = bounds
    for begin in range(low, high + 1, step):
        count, *texts = conn.execute(sql, [*select_params, *params, begin, min(begin + step - 1, high)]).fetchone()
        if not count:
            continue
        for part, text in zip(parts, texts, strict=True):
            part.append(_parsed(text, count))
    columns = [np.concatenate(p) if p else np.zeros(0, dtype=np.int64) for p in parts]
    keys, values = columns[0], columns[1:]
    if keys.size > 1 and not (keys[1:] > keys[:-1]).all():  # SQLite aggregated in another order
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], [v[order] for v in values]
    return [keys, *values] if with_keys else values


def _parsed(text: str | None, count: int) -> np.ndarray:
    """A comma-joined list of `count` integers as int64 (NotIntegers when it is anything else)."""
    import numpy as np

    if text is None:
        raise NotIntegers("an aggregated integer column had a NULL")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns (and stops) at text it cannot read: make that an error
        try:
            values = np.fromstring(text, dtype=np.int64, sep=",")
        except (ValueError, DeprecationWarning) as error:
            raise NotIntegers(str(error)) from error
    if values.size != count:
        raise NotIntegers(f"read {values.size} integers of {count}")
    return values


def bits_for(n: int) -> int:
    """Bits that hold every value 0 .. n."""
    return max(1, int(n).bit_length())
