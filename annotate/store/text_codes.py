"""Text columns coded by SQLite for the integer reads (`annotate.store.int_columns`): each column's texts
learnt from a sample of its first rows, a CASE that numbers them (0 for NULL, the greatest code of its
width for a text the sample did not show), and the texts back from the codes, the unseen ones read for
their rows alone."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from annotate.store.int_columns import Field, bits_for

if TYPE_CHECKING:
    import sqlite3

    import numpy as np

SAMPLE = 20_000
"""Rows whose texts give each text column's codes (a text not among them is read for its rows alone)."""
CASE_LIMIT = 64
"""A text column of more distinct values than this is read as text (a CASE of many values costs more)."""
TREE_FROM = 16
"""A CASE of this many texts or more is a search tree (`case_tree`): about log2(n) comparisons a row, not n."""
TREE_LIMIT = 4096
"""The most texts of a column learnt from all its distinct values (`distinct_texts`), coded by a tree."""


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
    if len(known) >= TREE_FROM and len(set(known)) == len(known):
        tree, params = case_tree(sql, sorted((text, k + 1) for k, text in enumerate(known)), other)
        return Field(name, f"CASE WHEN {sql} IS NULL THEN 0 ELSE {tree} END", bits), params, other
    whens = " ".join(f"WHEN {sql} = ? THEN {k + 1}" for k in range(len(known)))
    return Field(name, f"CASE WHEN {sql} IS NULL THEN 0 {whens} ELSE {other} END", bits), list(known), other


def case_tree(sql: str, texts: Sequence[tuple[str, int]], other: int, leaf: int = 4) -> tuple[str, list[str]]:
    """SQL giving the code of `sql`'s text among `texts` ((text, code), sorted by text, distinct), `other`
    for any other value, by a binary search: ``<`` against the middle text (BINARY collation, the order
    Python sorts str in: UTF-8 bytes sort as code points), then at most `leaf` equalities; and its
    parameters in order. A value the search sends the wrong way (not text) fails the equalities: `other`."""
    if len(texts) <= leaf:
        whens = " ".join(f"WHEN {sql} = ? COLLATE BINARY THEN {code}" for _, code in texts)
        return f"CASE {whens} ELSE {other} END", [text for text, _ in texts]
    middle = len(texts) // 2
    low, low_params = case_tree(sql, texts[:middle], other, leaf)
    high, high_params = case_tree(sql, texts[middle:], other, leaf)
    return f"CASE WHEN {sql} < ? COLLATE BINARY THEN {low} ELSE {high} END", [texts[middle][0], *low_params,
                                                                             *high_params]


def distinct_texts(conn: sqlite3.Connection, column: str, table: str, limit: int | None = None) -> list[str] | None:
    """The distinct non-NULL values of `column` in all of `table` (a small table's scan, or an index's),
    when they are all text and at most `limit` (`TREE_LIMIT`); None otherwise."""
    limit = TREE_LIMIT if limit is None else limit
    rows = conn.execute(f"SELECT DISTINCT {column} FROM {table} WHERE {column} IS NOT NULL"
                        f" LIMIT {limit + 1}").fetchall()
    if len(rows) > limit or any(type(v) is not str for (v,) in rows):
        return None
    return [v for (v,) in rows]


def case_fields(columns: Mapping[str, str], known: Mapping[str, Sequence[str]], limit: int | None = None,
                wide: Collection[str] = ()) -> tuple[list[Field], list[str], dict[str, int], list[str]]:
    """The `case_field` of every text column (name -> SQL) of at most `limit` (`CASE_LIMIT`) known texts
    (the columns of `wide` whatever their number: they were learnt by `distinct_texts`), their parameters in
    order, each one's code of a text not known; and the names of the columns of more texts, which are read
    as text instead."""
    limit = CASE_LIMIT if limit is None else limit
    as_text = [name for name in columns if len(known[name]) > limit and name not in wide]
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
    present = np.bincount(codes[codes >= 0], minlength=len(distinct)) > 0
    if not present.all():  # texts known (of the whole table) that no row read has: left out, as a sample's are
        kept = np.flatnonzero(present)
        remap = np.full(len(distinct), -1, dtype=np.int64)
        remap[kept] = np.arange(kept.size)
        codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
        distinct = [distinct[k] for k in kept.tolist()]
    return _text_column(distinct, codes) if values.size else np.zeros(0, dtype=object)


def texts_at(conn: sqlite3.Connection, sql: str, source: str, key: str, keys: list[int]) -> list[Any]:
    """The value of `sql` in the rows of `source` whose `key` is among `keys` (ascending), in that order."""
    out: list[Any] = []
    for begin in range(0, len(keys), 500):
        chunk = keys[begin:begin + 500]
        out += [v for (v,) in conn.execute(
            f"SELECT {sql} {source} AND {key} IN ({','.join('?' * len(chunk))}) ORDER BY {key}", chunk)]
    return out
