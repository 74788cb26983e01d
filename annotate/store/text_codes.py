"""Text columns coded by SQLite for the integer reads (`annotate.store.int_columns`): each column's texts
learnt from a sample of its first rows, a CASE that numbers them (0 for NULL, the greatest code of its
width for a text the sample did not show), and the texts back from the codes, the unseen ones read for
their rows alone."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from annotate.store.int_columns import Field, bits_for

if TYPE_CHECKING:
    import sqlite3

    import numpy as np

SAMPLE = 20_000
"""Rows whose texts give each text column's codes (a text not among them is read for its rows alone)."""
CASE_LIMIT = 64
"""A text column of more distinct values than this is read as text (a CASE of many values costs more)."""


def sampled_texts(conn: sqlite3.Connection, columns: Mapping[str, str], source: str, key: str,
                  sample: int | None = None) -> dict[str, list[str]] | None:
    """The distinct texts of each of `columns` ({name: SQL}) among the first `sample` rows of `source`
    (``FROM ... WHERE ...``) in `key` order (`SAMPLE` when not given), in order of first appearance; None
    when one is not text."""
    sample = SAMPLE if sample is None else sample
    picked = ", ".join(f"{sql} AS {name}" for name, sql in columns.items())
    first = f"SELECT {picked} {source} ORDER BY {key} LIMIT {sample}"
    rows = conn.execute(f"SELECT DISTINCT {', '.join(columns)} FROM ({first})").fetchall()
    known = {}
    for k, name in enumerate(columns):
        known[name] = list(dict.fromkeys(r[k] for r in rows if r[k] is not None))
        if any(type(v) is not str for v in known[name]):
            return None
    return known


def case_field(name: str, sql: str, known: Sequence[str]) -> tuple[Field, list[str], int]:
    """The field coding `sql` by `known` (1, 2, ...; 0 for NULL), its parameters, and the code of a text
    not among them."""
    bits = bits_for(len(known) + 1)
    other = (1 << bits) - 1
    whens = " ".join(f"WHEN {sql} = ? THEN {k + 1}" for k in range(len(known)))
    return Field(name, f"CASE WHEN {sql} IS NULL THEN 0 {whens} ELSE {other} END", bits), list(known), other


def case_fields(columns: Mapping[str, str], known: Mapping[str, Sequence[str]], limit: int | None = None
                ) -> tuple[list[Field], list[str], dict[str, int], list[str]]:
    """The `case_field` of every text column (name -> SQL) of at most `limit` (`CASE_LIMIT`) known texts,
    their parameters in order, each one's code of a text not known; and the names of the columns of more
    texts, which are read as text instead."""
    limit = CASE_LIMIT if limit is None else limit
    as_text = [name for name in columns if len(known[name]) > limit]
    fields: list[Field] = []
    params: list[str] = []
    other: dict[str, int] = {}
    for name, sql in columns.items():
        if name not in as_text:
            field, values_of, other[name] = case_field(name, sql, known[name])
            fields.append(field)
            params += values_of
    return fields, params, other, as_text


def decoded_columns(conn: sqlite3.Connection, columns: Mapping[str, str], known: Mapping[str, Sequence[str]],
                    other: Mapping[str, int], values: Mapping[str, np.ndarray], keys: np.ndarray, source: str,
                    key: str) -> dict[str, Any]:
    """The text columns `case_fields` coded, decoded (`decoded`), the rows of an unknown text read from
    `source` by `key`."""
    return {name: decoded(values[name], known[name], code, keys,
                          lambda picked, sql=columns[name]: texts_at(conn, sql, source, key, picked))
            for name, code in other.items()}


def decoded(values: np.ndarray, known: Sequence[str], other: int, keys: np.ndarray,
            read: Callable[[list[int]], list[Any]]) -> Any:
    """A text column from its codes (`case_field`'s), typed as pandas types it from the rows; the rows
    coded `other` are read by `read` (their keys, ascending -> their texts)."""
    import numpy as np

    from annotate.store.frames import _text_column

    codes = values - 1
    distinct = list(known)
    unseen = np.flatnonzero(values == other)
    if unseen.size:
        table = {v: k for k, v in enumerate(distinct)}
        codes[unseen] = [table.setdefault(v, len(table)) for v in read(keys[unseen].tolist())]
        distinct = list(table)
    return _text_column(distinct, codes) if values.size else np.zeros(0, dtype=object)


def texts_at(conn: sqlite3.Connection, sql: str, source: str, key: str, keys: list[int]) -> list[Any]:
    """The value of `sql` in the rows of `source` whose `key` is among `keys` (ascending), in that order."""
    out: list[Any] = []
    for begin in range(0, len(keys), 500):
        chunk = keys[begin:begin + 500]
        out += [v for (v,) in conn.execute(
            f"SELECT {sql} {source} AND {key} IN ({','.join('?' * len(chunk))}) ORDER BY {key}", chunk)]
    return out
