"""Style counts kept per pairwise item from its import (migration v14), so a report reads them with
one query instead of recounting every response's text.

A row holds the counts of the item's slot A and slot B text (`annotate.analysis.style`: tokens,
markdown headers, list items, bold spans; each side's answer plus its own earlier assistant turns),
or NULLs for a pairwise item without both slots. It is keyed by the item's id and content hash: a
row whose hash is not the item's (an item stored again with other content) counts as missing, and
an item without a row (stored before v14, or by a path that does not count) is counted from its
texts by the reader's caller.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store._sqlite_utils import sqlite_utils
    from annotate.store.store import Store

STYLE_FEATURES = ("tokens", "headers", "list_items", "bold")
"""The features, in `annotate.analysis.style.FEATURES` order (a test keeps them the same)."""
STYLE_COLUMNS = tuple(f"{feature}_{side}" for side in "ab" for feature in STYLE_FEATURES)
"""slot A's counts, then slot B's."""

_COLUMNS_SQL = ", ".join(f"{c} INTEGER" for c in STYLE_COLUMNS)
STAGE_TABLE = f"CREATE TABLE {{s}}.stage_style (seq INTEGER PRIMARY KEY, {_COLUMNS_SQL})"
"""The counts of staged items, by their staging seq (an id settled later is taken from stage_items)."""
STAGE_INSERT = f"INSERT OR REPLACE INTO {{s}}.stage_style VALUES ({', '.join('?' * (1 + len(STYLE_COLUMNS)))})"


def create_style_counts(db: sqlite_utils.Database) -> None:
    """The table of migration v14 (empty: items stored before it are counted by the report)."""
    db.execute(f"CREATE TABLE style_counts (item_id TEXT PRIMARY KEY, content_hash TEXT NOT NULL, {_COLUMNS_SQL})")


def copy_staged_sql(schema: str) -> str:
    """SQL copying the staged counts of staged items into the session, for items whose stored counts
    are missing or of other content (an import again of items stored before v14 fills theirs in)."""
    columns = ", ".join(f"c.{c}" for c in STYLE_COLUMNS)
    return (
        f"INSERT OR REPLACE INTO main.style_counts (item_id, content_hash, {', '.join(STYLE_COLUMNS)})"
        f" SELECT s.id, s.content_hash, {columns} FROM {schema}.stage_items s JOIN {schema}.stage_style c"
        " ON c.seq = s.seq WHERE NOT EXISTS (SELECT 1 FROM main.style_counts m WHERE m.item_id = s.id"
        " AND m.content_hash = s.content_hash) ORDER BY s.seq"
    )


def staged_rows(first_seq: int, counts: Iterable[tuple[int, Sequence[int] | None]]) -> Iterator[tuple[int | None, ...]]:
    """Rows of stage_style for (place in the batch staged from `first_seq` on, counts); None counts (a
    pairwise item without both slots) are stored as NULLs."""
    for place, row in counts:
        yield (first_seq + place, *(row if row is not None else (None,) * len(STYLE_COLUMNS)))


def stored_style_counts(store: Store) -> pd.DataFrame:
    """Every pairwise item in item order: item, counted (whether a row of its current content is
    stored) and STYLE_COLUMNS (NaN where not counted, or where the item lacks slot A or B)."""
    columns = ", ".join(f"c.{c}" for c in STYLE_COLUMNS)
    return store.frame(
        f"SELECT i.id AS item, c.item_id IS NOT NULL AS counted, {columns} FROM items i"
        " LEFT JOIN style_counts c ON c.item_id = i.id AND c.content_hash = i.content_hash"
        " WHERE i.kind = 'pairwise' ORDER BY i.rowid"
    )
