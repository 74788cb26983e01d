"""A table's indexes made again after a bulk insert, instead of kept up row by row.

A vote's unique index is keyed by source, rater and item, which a file of Arena battles lists in
no such order: the copy of 1.67M votes into it inserted each key at a random place of a growing
B-tree (8 s of a one-minute import). Dropped for the copy and created again after it, the index is
built from one sort of its keys and written in order. That pays only where the rows added are at
least as many as those stored before (the index is built again over all of them), and it is sound
only for rows that cannot collide with one another or with stored rows: `rebuilt_indexes` is for
callers that know both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def rebuilt_indexes(conn: sqlite3.Connection, table: str) -> Iterator[None]:
    """Inside a write transaction: the table's indexes (those made by CREATE INDEX, not those of its
    constraints) dropped for the block and created again from their stored SQL at its end, in the
    same transaction: no other connection sees the table without them, and an error (a unique
    index that its rows now break, among others) rolls the whole back."""
    if not conn.in_transaction:
        raise RuntimeError("rebuilt_indexes needs the caller's write transaction")
    indexes = conn.execute("SELECT name, sql FROM main.sqlite_master WHERE type = 'index' AND tbl_name = ?"
                           " AND sql IS NOT NULL ORDER BY name", [table]).fetchall()
    for name, _ in indexes:
        conn.execute('DROP INDEX main."{}"'.format(name.replace('"', '""')))
    yield
    for _, sql in indexes:
        conn.execute(sql)
