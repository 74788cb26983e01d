"""Integer columns of a large query read as SQLite text aggregates, so no Python object is made per row.

sqlite3 builds every row it returns as a tuple of Python objects, one per value: at millions of rows
that is most of what a report's read costs. Here SQLite joins each integer column of a range of rows
into one string (``group_concat``) and numpy parses it (``np.fromstring``), so a range of 200,000 rows
costs a handful of Python objects. Small fields (codes of text columns with few values, flags) are packed
into one integer per row first, as each aggregated value costs about as much as the next.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import sqlite3

    import numpy as np

T = TypeVar("T")


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
    `step` keys at a time (two ranges at once where `side_connection` gives a second connection).
    with_keys: the keys first."""
    import numpy as np

    sql = (f"SELECT count(*), {', '.join(f'group_concat({e})' for e in (key, *exprs))} {source}"
           f" AND {key} BETWEEN ? AND ?")
    low, high = bounds
    ranges = [(begin, min(begin + step - 1, high)) for begin in range(low, high + 1, step)]

    def read(on: sqlite3.Connection, span: tuple[int, int]) -> list[Any] | None:
        count, *texts = on.execute(sql, [*select_params, *params, *span]).fetchone()
        return [_parsed(text, count) for text in texts] if count else None

    chunks = [chunk for chunk in _read_ranges(conn, ranges, read) if chunk is not None]
    columns = []
    for i in range(len(exprs) + 1):  # each column's chunks let go once joined: the peak is one column over
        columns.append(np.concatenate([chunk[i] for chunk in chunks]) if chunks else np.zeros(0, dtype=np.int64))
        for chunk in chunks:
            chunk[i] = None
    keys, values = columns[0], columns[1:]
    if keys.size > 1 and not (keys[1:] > keys[:-1]).all():  # SQLite aggregated in another order
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], [v[order] for v in values]
    return [keys, *values] if with_keys else values


def _read_ranges(conn: sqlite3.Connection, ranges: list[tuple[int, int]],
                 read: Callable[[sqlite3.Connection, tuple[int, int]], T]) -> list[T]:
    """`read` of every range, in the order of `ranges`: on `conn` alone, or shared with a thread reading on
    a second connection (`side_connection`) when there are two ranges or more. SQLite lets go of the GIL
    while it steps, so on two cores the scan takes about half the wall clock for the same CPU."""
    import threading

    side = side_connection(conn) if len(ranges) > 1 else None
    if side is None:
        return [read(conn, span) for span in ranges]
    results: dict[int, T] = {}
    failure: list[BaseException] = []
    left = iter(range(len(ranges)))
    lock = threading.Lock()

    def work(on: sqlite3.Connection) -> None:
        while not failure:
            with lock:
                index = next(left, None)
            if index is None:
                return
            try:
                results[index] = read(on, ranges[index])
            except BaseException as error:  # raised again in the caller's thread, below
                failure.append(error)

    def side_work() -> None:
        try:
            work(side)
        finally:
            side.close()

    helper = threading.Thread(target=side_work, name="annotate-read", daemon=True)
    helper.start()
    try:
        work(conn)
    finally:
        helper.join()
    if failure:
        raise failure[0]
    return [results[i] for i in range(len(ranges))]


READ_THREADS_ENV = "ANNOTATE_READ_THREADS"
"""Set to 1 to read on one connection only (the environment is read at each read)."""


def side_connection(conn: sqlite3.Connection) -> sqlite3.Connection | None:
    """A second, read-only connection to `conn`'s file, to be used in another thread; None when a second
    connection would not read what `conn` reads (an in-memory or temporary database, a transaction open on
    `conn`, whose writes or snapshot another connection would not see), when the host has one core, when
    `ANNOTATE_READ_THREADS` is 1, or when SQLite cannot open it."""
    import os
    import sqlite3

    if conn.in_transaction or (os.cpu_count() or 1) < 2 or os.environ.get(READ_THREADS_ENV, "").strip() == "1":
        return None
    path = next((row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"), "")
    if not path:
        return None
    from annotate.store.health import read_only_uri
    from annotate.store.locking import BUSY_TIMEOUT_MS

    try:
        side = sqlite3.connect(read_only_uri(Path(path)), uri=True, check_same_thread=False,
                               timeout=BUSY_TIMEOUT_MS / 1000)  # waits for a lock as the store's own does
        side.execute("SELECT count(*) FROM sqlite_schema").fetchone()  # opens the file now, not in the thread
    except sqlite3.Error:
        return None
    return side


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
