"""An import staged outside the session, then swapped in by one transaction.

The importer checks and stages a file a batch of records at a time into temporary tables (SQLite's
temp database: a file of its own, gone when the connection closes), so it holds one batch, never
the file. Nothing touches the session until `commit`, which copies the staged items and votes in
one write transaction: an import lands whole or not at all, and holds the write lock only for the
copy. Each staged row remembers the line (or record) it came from, so a check made on the staged
rows (an id already stored with other content, a vote repeated with another label) still names it.

Items are keyed by what makes them the same item in the file (`key`: the id, or for Arena battles
the question and turn); a key staged twice is reported back (`add_item_rows`) for the importer to
refuse or fold. Arena ids that depend on the whole file (`-t{turn}` when a question comes with
several turns) are settled by `apply_suffixes` before anything is checked against the session.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from annotate.model import Item
from annotate.store.bulk_index import rebuilt_indexes
from annotate.store.codec import content_hash, item_from_row
from annotate.store.item_facts import COLUMNS_SQL, FACT_COLUMNS, STAGE_STORED_TABLE, copy_staged_sql
from annotate.store.store import AddResult, Store
from annotate.store.tally_schema import counted_in_bulk

STAGE_SCHEMA = "stage"
"""The name the staging database is attached under."""
STAGE_PAGE_SIZE = 65536
"""The staging database's pages (the largest SQLite has): items of a few KB each pack into them
instead of taking a page (or an overflow chain) each, in fewer writes."""
STAGE_CACHE_KIB = -65536
"""The staging database's page cache (64 MiB): the staged rows themselves go to its file."""
COPY_CACHE_KIB = -131072
"""The session's page cache during the copy (128 MiB)."""
_NEW_ROWS = {
    "items": "SELECT EXISTS (SELECT 1 FROM {s}.stage_items s WHERE NOT EXISTS"
             " (SELECT 1 FROM main.items i WHERE i.id = s.id))",
    "external_labels": "SELECT EXISTS (SELECT 1 FROM {s}.stage_labels l WHERE NOT EXISTS (SELECT 1 FROM"
                       " main.external_labels e WHERE e.source = l.source AND e.rater = l.rater"
                       " AND e.item_id = l.item_id))",
}
"""Whether the copy adds rows to a table (whose tally is then counted in bulk, `counted_in_bulk`)."""
ITEM_COLUMNS = ("id", "kind", "conversation", "responses", "category", "gold", "metadata", "content_hash")
_STAGED_COLUMNS = ("seq", "key", "grp", "suffix", "line", "idx", *ITEM_COLUMNS, *FACT_COLUMNS)
_HASH_AT = _STAGED_COLUMNS.index("content_hash")
_STAGE_ITEMS = (f"INSERT OR IGNORE INTO {{s}}.stage_items ({', '.join(_STAGED_COLUMNS)})"
                f" VALUES ({', '.join('?' * len(_STAGED_COLUMNS))})")
_TABLES = (
    "CREATE TABLE {s}.stage_items (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, grp TEXT, suffix TEXT,"
    " line INTEGER, idx INTEGER NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, conversation TEXT NOT NULL,"
    f" responses TEXT NOT NULL, category TEXT, gold TEXT, metadata TEXT, content_hash TEXT NOT NULL, {COLUMNS_SQL})",
    "CREATE TABLE {s}.stage_labels (seq INTEGER PRIMARY KEY, line INTEGER, idx INTEGER NOT NULL, key TEXT NOT NULL,"
    " source TEXT NOT NULL, rater TEXT NOT NULL, cohort TEXT NOT NULL, item_id TEXT NOT NULL, label TEXT NOT NULL,"
    " raw TEXT, shown_first TEXT)",
    "CREATE TABLE {s}.stage_stored (seq INTEGER PRIMARY KEY)",
    STAGE_STORED_TABLE,
)
"""The staged items (each with its facts, `annotate.store.item_facts`) and votes; and (`stage_stored`,
filled by `commit`) the staged items whose id the session holds already, (`stage_facts_stored`) those
whose facts it holds."""


@dataclass(frozen=True)
class Where:
    """Where a staged row came from: a line of the file, or a record of a JSON array."""

    line: int | None
    index: int

    @property
    def text(self) -> str:
        return f"line {self.line}" if self.line is not None else f"record {self.index}"


@dataclass(frozen=True)
class Repeat:
    """An item key staged again: `position` in the batch, where it was first, and whether the content is the same."""

    position: int
    first: Where
    same: bool


class ImportStaging:
    """The staging tables of one import on `store`'s connection (use as a context manager).

    They live in a private database of their own, attached for the import (SQLite's `ATTACH ''`:
    a temporary file deleted when it is detached), so the end of an import closes a file instead
    of freeing every page of the staged rows one by one; it is not the session file, so it is
    written without a journal or syncs. Inside a caller's transaction (where a database cannot be
    detached) they are tables of the connection's temp database, dropped at the end."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db
        self._outer = store.db.conn.in_transaction
        """Staged inside a caller's transaction: it is theirs to end."""
        self.schema = "temp" if self._outer else STAGE_SCHEMA
        self._seq = 0
        self._repeats_in_file: bool | None = None
        """Whether a vote key is staged twice, once asked (None: not yet, or votes staged since)."""
        self._close()
        if self.schema == STAGE_SCHEMA:
            self._execute(f"ATTACH '' AS {STAGE_SCHEMA}")
            self._execute(f"PRAGMA {{s}}.page_size = {STAGE_PAGE_SIZE}")
            self._execute("PRAGMA {s}.journal_mode = OFF")
            self._execute("PRAGMA {s}.synchronous = OFF")
        self._execute(f"PRAGMA {{s}}.cache_size = {STAGE_CACHE_KIB}")
        for sql in _TABLES:
            self._execute(sql)
        self._settle()

    def __enter__(self) -> ImportStaging:
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()

    def _close(self) -> None:
        """Remove the staging tables (and the database holding them)."""
        if self.schema == STAGE_SCHEMA:
            self._settle()
            attached = {row[1] for row in self.db.conn.execute("PRAGMA database_list")}
            if STAGE_SCHEMA in attached:
                self.db.conn.execute(f"DETACH {STAGE_SCHEMA}")
            return
        for table in ("stage_items", "stage_labels", "stage_stored", "stage_facts_stored"):
            self._execute(f"DROP TABLE IF EXISTS {{s}}.{table}")
        self._settle()

    def _settle(self) -> None:
        """End the transaction Python's sqlite3 opens by itself before a write to the staging tables
        (they live outside the session file: nothing of the session is written or locked), so the
        session's own transaction can begin."""
        if self.db.conn.in_transaction and not self._outer:
            self.db.conn.commit()

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement; `{s}` in it names the schema of the staging tables."""
        return self.db.conn.execute(sql.replace("{s}", self.schema), list(params))

    def _executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        return self.db.conn.executemany(sql.replace("{s}", self.schema), rows)

    def _stream(self, sql: str, params: Sequence[Any] = ()) -> Iterator[dict[str, Any]]:
        return self.store._stream(sql.replace("{s}", self.schema), params)

    # -- staging ---------------------------------------------------------------------------------

    def add_item_rows(self, rows: Sequence[tuple[Any, ...]]) -> list[Repeat]:
        """Stage a batch of rows: seq (numbered on from `next_seq`), key, group, suffix, line, record
        number, then the ITEM_COLUMNS (`annotate.store.codec.item_row`'s values) and the FACT_COLUMNS
        (`annotate.style_features.item_facts`'s). The rows whose key was staged before (in this batch
        or earlier) are not staged again and come back as Repeats, in batch order."""
        first_seq = self._seq + 1
        if rows and (rows[0][0] != first_seq or rows[-1][0] != first_seq + len(rows) - 1):
            raise ValueError(f"staged rows are numbered from {first_seq}")
        self._seq += len(rows)
        self._executemany(_STAGE_ITEMS, rows)
        stored = self._execute("SELECT count(*) FROM {s}.stage_items WHERE seq >= ?", [first_seq]).fetchone()[0]
        self._settle()
        if stored == len(rows):
            return []
        kept = {r[0] for r in self._execute("SELECT seq FROM {s}.stage_items WHERE seq >= ?", [first_seq])}
        repeats = []
        for position, row in enumerate(rows):
            if row[0] in kept:
                continue
            line, idx, digest = self._execute(
                "SELECT line, idx, content_hash FROM {s}.stage_items WHERE key = ?", [row[1]]
            ).fetchone()
            repeats.append(Repeat(position, Where(line, idx), digest == row[_HASH_AT]))
        return repeats

    def add_label_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Stage votes given as tuples: line, record number, key (of the staged item the vote is on),
        source, rater, cohort, item id, label, raw, shown first (numbered by SQLite, on from the last)."""
        self._executemany(
            "INSERT INTO {s}.stage_labels (line, idx, key, source, rater, cohort, item_id, label, raw,"
            " shown_first) VALUES (?,?,?,?,?,?,?,?,?,?)", rows,
        )
        self._repeats_in_file = None
        self._settle()

    @property
    def n_items(self) -> int:
        return int(self._execute("SELECT count(*) FROM {s}.stage_items").fetchone()[0])

    @property
    def n_labels(self) -> int:
        return int(self._execute("SELECT count(*) FROM {s}.stage_labels").fetchone()[0])

    # -- settling what depends on the whole file -------------------------------------------------

    def apply_suffixes(self) -> None:
        """Items of a group staged under more than one key get their suffix added to the id (and a
        new content hash); votes on them follow."""
        rows = list(self._stream(
            "SELECT seq, key, suffix, id, kind, conversation, responses, category, gold, metadata FROM {s}.stage_items"
            " WHERE grp IN (SELECT grp FROM {s}.stage_items WHERE grp IS NOT NULL GROUP BY grp HAVING count(*) > 1)"
            " AND suffix IS NOT NULL ORDER BY seq"
        ))
        for row in rows:
            new_id = row["id"] + row["suffix"]
            item = item_from_row({**row, "id": new_id})
            self._execute("UPDATE {s}.stage_items SET id = ?, content_hash = ? WHERE seq = ?",
                            [new_id, content_hash(item), row["seq"]])
            self._execute("UPDATE {s}.stage_labels SET item_id = ? WHERE key = ?", [new_id, row["key"]])
        self._repeats_in_file = None
        self._settle()

    def id_repeats(self) -> list[tuple[str, Where, Where, bool]]:
        """Ids staged under two keys (possible only once suffixes are settled): (later key, its
        place, the first's place, same content), in file order."""
        rows = self._execute(
            "SELECT s.key, s.line, s.idx, f.line, f.idx, s.content_hash = f.content_hash FROM {s}.stage_items s"
            " JOIN {s}.stage_items f ON f.id = s.id AND f.seq < s.seq"
            " WHERE f.seq = (SELECT min(seq) FROM {s}.stage_items WHERE id = s.id) ORDER BY s.seq"
        ).fetchall() if self._has_repeated_ids() else []
        return [(key, Where(line, idx), Where(fline, fidx), bool(same)) for key, line, idx, fline, fidx, same in rows]

    def _has_repeated_ids(self) -> bool:
        return bool(self._execute(
            "SELECT EXISTS (SELECT 1 FROM {s}.stage_items GROUP BY id HAVING count(*) > 1)"
        ).fetchone()[0])

    def fold(self, key: str) -> None:
        """Drop the item staged under `key` (the same item as one staged before under another key)."""
        self._execute("DELETE FROM {s}.stage_items WHERE key = ?", [key])
        self._settle()

    # -- checks against the session --------------------------------------------------------------

    def first_conflict(self) -> tuple[Where, str] | None:
        """The first staged item whose id the session holds with other content."""
        row = self._execute(
            "SELECT s.line, s.idx, s.id FROM {s}.stage_items s JOIN main.items i ON i.id = s.id"
            " WHERE i.content_hash != s.content_hash ORDER BY s.seq LIMIT 1"
        ).fetchone()
        return None if row is None else (Where(row[0], row[1]), row[2])

    def label_repeats(self, cap: int) -> tuple[list[str], int]:
        """Votes repeated with another label, in the file (`rater on item: first at where, other at
        where`) or against a stored vote of the same source (`... at where, stored X`): the first
        `cap` descriptions in file order, and how many there are."""
        self._execute(
            "CREATE INDEX IF NOT EXISTS {s}.stage_labels_key ON stage_labels (source, rater, item_id, seq)"
        )
        self._settle()
        if not self._may_repeat_votes():
            return [], 0
        firsts = (
            "SELECT l.* FROM {s}.stage_labels l WHERE l.seq = (SELECT min(seq) FROM {s}.stage_labels f"
            " WHERE f.source = l.source AND f.rater = l.rater AND f.item_id = l.item_id)"
        )
        sql = (
            f"WITH firsts AS ({firsts})"
            " SELECT l.seq, l.rater, l.item_id, f.label, f.line, f.idx, l.label, l.line, l.idx, NULL"
            " FROM {s}.stage_labels l JOIN firsts f ON f.source = l.source AND f.rater = l.rater"
            " AND f.item_id = l.item_id WHERE l.seq != f.seq AND l.label != f.label"
            " UNION ALL SELECT f.seq, f.rater, f.item_id, f.label, f.line, f.idx, NULL, NULL, NULL, e.label"
            " FROM firsts f JOIN main.external_labels e ON e.source = f.source AND e.rater = f.rater"
            " AND e.item_id = f.item_id WHERE e.label != f.label ORDER BY 1"
        )
        found: list[str] = []
        total = 0
        for _seq, rater, item, first, fline, fidx, label, line, idx, stored in self._execute(sql):
            total += 1
            if len(found) >= cap:
                continue
            if stored is not None:
                found.append(f"{rater} on {item}: {first} at {Where(fline, fidx).text}, stored {stored}")
            else:
                found.append(
                    f"{rater} on {item}: {first} at {Where(fline, fidx).text}, {label} at {Where(line, idx).text}"
                )
        return found, total

    @property
    def next_seq(self) -> int:
        """The seq the next staged item gets (`add_item_rows` numbers a batch's rows from it, repeats included)."""
        return self._seq + 1

    def _may_repeat_votes(self) -> bool:
        """Whether a vote key (source, rater, item) is staged twice, or a staged source has stored votes
        (the repeats themselves cost a lookup per staged vote)."""
        return self._votes_repeat_in_file() or bool(self._execute(
            "SELECT EXISTS (SELECT 1 FROM main.external_labels WHERE source IN (SELECT DISTINCT source"
            " FROM {s}.stage_labels))"
        ).fetchone()[0])

    def _votes_repeat_in_file(self) -> bool:
        """Whether a vote key is staged twice: one pass over the key index, made once for the votes as
        they are staged (`add_label_rows` and `apply_suffixes` ask again)."""
        if self._repeats_in_file is None:
            self._repeats_in_file = bool(self._execute(
                "SELECT EXISTS (SELECT 1 FROM {s}.stage_labels GROUP BY source, rater, item_id HAVING count(*) > 1)"
            ).fetchone()[0])
        return self._repeats_in_file

    def responses_between(self, first: int, last: int) -> Iterator[tuple[int, str]]:
        """(seq, responses JSON) of the items staged with seqs `first` to `last`, in file order."""
        yield from self._execute(
            "SELECT seq, responses FROM {s}.stage_items WHERE seq BETWEEN ? AND ? ORDER BY seq", [first, last],
        )

    def items_at(self, seqs: Sequence[int], chunk: int = 500) -> Iterator[tuple[int, Item]]:
        """The items staged with these seqs (ascending), in file order; those folded away are gone."""
        for start in range(0, len(seqs), chunk):
            part = seqs[start:start + chunk]
            marks = ",".join("?" * len(part))
            for row in self._stream(
                "SELECT seq, id, kind, conversation, responses, category, gold, metadata FROM {s}.stage_items"
                f" WHERE seq IN ({marks}) ORDER BY seq", part,
            ):
                yield row["seq"], item_from_row(row)

    def ids_of(self, seqs: Sequence[int], chunk: int = 500) -> dict[int, str]:
        """The ids (settled: suffixes applied) of the staged rows with these seqs that are still staged."""
        ids: dict[int, str] = {}
        for start in range(0, len(seqs), chunk):
            part = seqs[start:start + chunk]
            marks = ",".join("?" * len(part))
            ids.update(self._execute(f"SELECT seq, id FROM {{s}}.stage_items WHERE seq IN ({marks})", part).fetchall())
        return ids

    def cohorts(self) -> tuple[str, ...]:
        return tuple(r[0] for r in self._execute("SELECT DISTINCT cohort FROM {s}.stage_labels ORDER BY 1"))

    # -- the swap --------------------------------------------------------------------------------

    def commit(self, source: str, created: str, check: Any = None) -> tuple[AddResult, AddResult]:
        """Copy the staged items and votes into the session in one write transaction.

        Items already stored (same id, same content) and votes already stored (same source, rater
        and item) are left as they are and counted unchanged; of votes repeated in the file the
        first counts. `check` runs first inside the transaction, under the write lock (e.g. the
        conflict check again, for items another process added meanwhile)."""
        n_items = self.n_items
        n_labels = self.n_labels
        self._settle()
        with self.store.transaction(), self._session_cache():
            if check is not None:
                check()
            new = [table for table, sql in _NEW_ROWS.items() if self._execute(sql).fetchone()[0]]
            with counted_in_bulk(self.db.conn, new):  # nothing new (a file imported again): the file is left as it is
                added = 0
                if "items" in new:
                    # The items stored already are noted first: an INSERT whose SELECT reads main.items
                    # itself is copied whole into a temporary table before the first row is written
                    # (the staged ids are distinct once settled, so no row inserted here changes which
                    # others are new).
                    self._execute(
                        "INSERT INTO {s}.stage_stored SELECT seq FROM {s}.stage_items s"
                        " WHERE EXISTS (SELECT 1 FROM main.items i WHERE i.id = s.id)"
                    )
                    added = int(self._execute(
                        "INSERT INTO main.items (id, kind, conversation, responses, category, gold, metadata,"
                        " content_hash, source, created) SELECT id, kind, conversation, responses, category, gold,"
                        " metadata, content_hash, ?, ? FROM {s}.stage_items s"
                        " WHERE seq NOT IN (SELECT seq FROM {s}.stage_stored) ORDER BY seq",
                        [source, created],
                    ).rowcount)
                items = AddResult(added=added, unchanged=n_items - added)
                for sql in copy_staged_sql("{s}"):
                    self._execute(sql)
                if not n_labels:
                    return items, AddResult(0, 0)
                self._execute(
                    "INSERT OR IGNORE INTO main.annotators (name, cohort, created) SELECT rater, cohort, ?"
                    " FROM {s}.stage_labels GROUP BY rater, cohort ORDER BY rater, cohort", [created],  # one sort
                )
                distinct = n_labels if not self._votes_repeat_in_file() else int(self._execute(
                    "SELECT count(*) FROM (SELECT DISTINCT source, rater, item_id FROM {s}.stage_labels)"
                ).fetchone()[0])
                added = 0
                if "external_labels" in new:
                    in_bulk = self._votes_in_bulk(n_labels)
                    with rebuilt_indexes(self.db.conn, "external_labels") if in_bulk else nullcontext():
                        added = int(self._execute(
                            "INSERT OR IGNORE INTO main.external_labels (source, rater, cohort, item_id, label, raw,"
                            " shown_first, created) SELECT source, rater, cohort, item_id, label, raw, shown_first, ?"
                            " FROM {s}.stage_labels ORDER BY seq", [created],
                        ).rowcount)
                labels = AddResult(added=added, unchanged=distinct - added)
        return items, labels

    def _votes_in_bulk(self, n_labels: int) -> bool:
        """Whether the staged votes may be copied with the votes' indexes made again after the copy
        (`rebuilt_indexes`): no vote key is staged twice or stored already (for any source staged),
        and the session holds no more votes than are staged (its newest rowid says at most how many)."""
        newest = self._execute("SELECT coalesce(max(id), 0) FROM main.external_labels").fetchone()[0]
        return int(newest) <= n_labels and not self._may_repeat_votes()

    @contextmanager
    def _session_cache(self) -> Iterator[None]:
        """A larger page cache for the session file while the copy runs (the votes' index is written
        in rater order, not file order), back to what it was after."""
        before = self.db.conn.execute("PRAGMA main.cache_size").fetchone()[0]
        self.db.conn.execute(f"PRAGMA main.cache_size = {COPY_CACHE_KIB}")
        try:
            yield
        finally:
            self.db.conn.execute(f"PRAGMA main.cache_size = {int(before)}")
