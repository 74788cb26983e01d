"""The Store's items and imported labels (what `annotate import` brings): adding them atomically,
refusing an id stored with other content, and reading them back (streamed for exports).
Mixed into Store (store.py), whose `db` and `transaction` it uses."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from annotate.model import ExternalLabel, Item
from annotate.store.codec import content_hash, item_from_row, item_row
from annotate.store.records import AddResult, ItemConflict, utc_now

if TYPE_CHECKING:
    from annotate.store._sqlite_utils import sqlite_utils


class ItemsMixin:
    """Items and external labels; part of Store."""

    db: sqlite_utils.Database

    # -- items -----------------------------------------------------------------------------

    def add_items(self, items: Sequence[Item], source: str = "") -> AddResult:
        """Add items atomically. An id already stored with the same content is left alone
        (so importing a file twice changes nothing); with different content the whole add is
        refused with ItemConflict naming the id."""
        ids = [item.id for item in items]
        seen: set[str] = set()
        for item_id in ids:
            if item_id in seen:
                raise ItemConflict(f"item id {item_id!r} appears twice in the input")
            seen.add(item_id)
        created = utc_now()
        with self.transaction() as db:
            stored = self._hashes(ids)
            new_rows = []
            for item in items:
                old = stored.get(item.id)
                if old is None:
                    new_rows.append(item_row(item, source, created))
                elif old != content_hash(item):
                    raise ItemConflict(
                        f"item id {item.id!r} is already stored with different content; "
                        "give the new version another id"
                    )
            if new_rows:
                db["items"].insert_all(new_rows, batch_size=500)
        return AddResult(added=len(new_rows), unchanged=len(items) - len(new_rows))

    def conflicting_item_ids(self, items: Sequence[Item]) -> list[str]:
        """Ids of `items` already stored with different content (what add_items would refuse),
        in input order; lets an importer name the offending line before it writes anything."""
        stored = self._hashes([item.id for item in items])
        return [
            item.id for item in items
            if item.id in stored and stored[item.id] != content_hash(item)
        ]

    def add_items_and_labels(
        self, items: Sequence[Item], labels: Sequence[ExternalLabel], source: str = ""
    ) -> tuple[AddResult, AddResult]:
        """add_items then add_external_labels in ONE transaction: an import that brings items
        and their votes (Arena, MT-Bench) lands whole or not at all. The inner calls' own
        transactions (and ensure_annotator's) nest as savepoints of this one."""
        with self.transaction():
            added_items = self.add_items(items, source)
            added_labels = self.add_external_labels(labels)
        return added_items, added_labels

    def _hashes(self, ids: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT id, content_hash FROM items WHERE id IN ({marks})"
            found.update(dict(self.db.execute(sql, chunk).fetchall()))
        return found

    def item(self, item_id: str) -> Item:
        rows = list(self.db.query("SELECT * FROM items WHERE id = ?", [item_id]))
        if not rows:
            raise KeyError(f"no item {item_id!r}")
        return item_from_row(rows[0])

    def items(self) -> list[Item]:
        return [item_from_row(r) for r in self.db.query("SELECT * FROM items ORDER BY rowid")]

    def iter_items(self) -> Iterator[Item]:
        """Every item in the order they were added, decoded one at a time (for exports that stream)."""
        for row in self._stream("SELECT * FROM items ORDER BY rowid"):
            yield item_from_row(row)

    def _stream(self, sql: str, params: Sequence[Any] = (), batch: int = 1000) -> Iterator[dict[str, Any]]:
        """Rows of a read query as dicts, fetched `batch` at a time from a cursor of their own."""
        cursor = self.db.conn.execute(sql, list(params))
        keys = [d[0] for d in cursor.description]
        while rows := cursor.fetchmany(batch):
            for row in rows:
                yield dict(zip(keys, row, strict=True))

    def item_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT id FROM items ORDER BY rowid")]

    def newest_item_rowid(self) -> int:
        """The largest item rowid (0 without items); items are never deleted, so it only grows."""
        return int(self.db.execute("SELECT coalesce(max(rowid), 0) FROM items").fetchone()[0])

    def count_items(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM items").fetchone()[0])

    def has_answers(self) -> bool:
        """Whether any judgment, imported vote or suggestion is stored (answers in the label schema)."""
        return any(
            self.db.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()[0]
            for table in ("judgments", "external_labels", "suggestions")
        )

    # -- external labels -----------------------------------------------------------------

    def add_external_labels(self, labels: Sequence[ExternalLabel]) -> AddResult:
        """Add imported votes atomically; a (source, rater, item) already stored is unchanged.
        Raters become annotators of their cohort."""
        created = utc_now()
        for name, cohort in sorted({(lab.rater, lab.cohort) for lab in labels}):
            self.ensure_annotator(name, cohort)
        with self.transaction() as db:
            before = db.execute("SELECT count(*) FROM external_labels").fetchone()[0]
            db.conn.executemany(
                "INSERT OR IGNORE INTO external_labels (source, rater, cohort, item_id, label,"
                " raw, shown_first, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(lab.source, lab.rater, lab.cohort, lab.item_id, lab.label, lab.raw, lab.shown_first, created)
                 for lab in labels],
            )
            after = db.execute("SELECT count(*) FROM external_labels").fetchone()[0]
        return AddResult(added=after - before, unchanged=len(labels) - (after - before))

    def external_labels(self) -> list[ExternalLabel]:
        return list(self.iter_external_labels())

    def iter_external_labels(self) -> Iterator[ExternalLabel]:
        """The imported labels in the order they were stored, read a batch at a time."""
        cursor = self.db.conn.execute(
            "SELECT source, rater, cohort, item_id, label, raw, shown_first FROM external_labels ORDER BY id"
        )
        while rows := cursor.fetchmany(1000):
            yield from (ExternalLabel(*row) for row in rows)
