"""The ids a default queue draws from, without reading a million of them before the first item.

A first start draws a permutation of the session's items and writes it a chunk at a time; only the
chunk being written needs its items' ids. Items are never deleted and get rowids in the order they were
added, so when a session's rowids run without a gap (every file annotate writes), the k-th item in rowid
order is the one with rowid `first + k`: `RowidIds` reads the ids of a chunk by rowid when asked. A file
with gaps (made by other tools) gets the ids as a list, read through the id index (its pages are a
fraction of the items table's, whose rows hold every text).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from annotate.store import Store

GATHER_ROWS = 500
"""Rowids asked for in one query."""
ITER_ROWS = 50_000
"""Rowids read in one query when every id is read in turn (a queue extended: the ids not yet in it)."""


class RowidIds(Sequence[str]):
    """The ids of the items with rowids `first` to `first + count - 1` (none missing), in rowid order,
    read from the store when asked for (on the thread that owns the store's connection)."""

    def __init__(self, store: Store, first: int, count: int) -> None:
        self.store, self.first, self.count = store, first, count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[str]:
        """Every id in rowid order, a range of rowids a query (not a query an id, as `Sequence` would)."""
        for low in range(self.first, self.first + self.count, ITER_ROWS):
            high = min(low + ITER_ROWS, self.first + self.count) - 1
            rows = self.store.db.execute("SELECT rowid, id FROM items WHERE rowid BETWEEN ? AND ? ORDER BY rowid",
                                         [low, high]).fetchall()
            if len(rows) != high - low + 1:
                found = {row[0] for row in rows}
                self._missing(next(r for r in range(low, high + 1) if r not in found))
            yield from (row[1] for row in rows)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return self.gather(range(*index.indices(self.count)))
        if index < 0:
            index += self.count
        if not 0 <= index < self.count:
            raise IndexError(index)
        return self.gather([index])[0]

    def gather(self, indices: Iterable[int]) -> list[str]:
        """The ids at `indices` (positions in rowid order), in the order asked."""
        wanted = [self.first + i for i in indices]
        found: dict[int, str] = {}
        for low in range(0, len(wanted), GATHER_ROWS):
            part = wanted[low : low + GATHER_ROWS]
            marks = ", ".join("?" * len(part))
            found.update(self.store.db.execute(f"SELECT rowid, id FROM items WHERE rowid IN ({marks})", part))
        missing = [r for r in wanted if r not in found]
        if missing:  # never for a file annotate wrote: items are never deleted
            self._missing(missing[0])
        return [found[r] for r in wanted]

    def _missing(self, rowid: int) -> None:
        raise LookupError(f"no item with rowid {rowid} in {self.store.path}: the items changed under the draw")


def queue_item_ids(store: Store, upto: int | None = None) -> tuple[Sequence[str], int]:
    """The ids of the session's items (those up to rowid `upto` when given) in rowid order, with the
    newest rowid among them (0 without items): lazily (`RowidIds`) when the rowids have no gap."""
    count, first, last = store.db.execute("SELECT count(*), min(rowid), max(rowid) FROM items").fetchone()
    if not count:
        return [], 0
    high = last if upto is None else min(upto, last)
    if high < first:
        return [], 0
    if last - first + 1 == count:  # no gap anywhere, so none below `high` either
        return RowidIds(store, first, high - first + 1), high
    rows = sorted(store.db.execute("SELECT rowid, id FROM items ORDER BY id").fetchall())  # the covering index
    kept = [r for r in rows if r[0] <= high]
    return [r[1] for r in kept], int(kept[-1][0]) if kept else 0
