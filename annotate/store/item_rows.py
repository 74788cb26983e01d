"""Every item with what a report reads of it, from one scan of the items, kept until the file changes.

An item's row holds its texts, so it fills about a page: any scan of `items` reads the whole file (at
220k items, 0.6 s of CPU and more of waiting per scan on a busy host). The items frame, the stored style
counts and the empty responses were three such scans per report; `item_rows` makes them one.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from annotate.store.item_facts import FACT_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store.store import Store

ITEM_ROWS_SQL = (
    "SELECT i.rowid AS rowid, i.id AS item, i.kind, i.category, i.gold, f.item_id IS NOT NULL AS known, "
    + ", ".join(f"f.{c}" for c in FACT_COLUMNS) + ","
    " CASE WHEN json_valid(i.metadata) AND json_type(i.metadata, '$.turn') = 'integer'"
    " THEN json_extract(i.metadata, '$.turn') END AS turn"
    " FROM items i LEFT JOIN item_facts f ON f.item_id = i.id AND f.content_hash = i.content_hash ORDER BY i.rowid"
)
"""Every item in rowid order: its columns, whether the facts of its current content are stored (known),
those facts (`annotate.store.item_facts`; None where not known) and its metadata's whole-number turn."""

_KEPT: weakref.WeakKeyDictionary[Store, tuple[tuple[int, int], pd.DataFrame]] = weakref.WeakKeyDictionary()


def item_rows(store: Store) -> pd.DataFrame:
    """The frame of `ITEM_ROWS_SQL` (as `Store.frame` types it), read once while the file is unchanged
    (no write on this connection, PRAGMA data_version the same). Callers must not change it."""
    version = (store.db.conn.total_changes, store.db.conn.execute("PRAGMA data_version").fetchone()[0])
    kept = _KEPT.get(store)
    if kept is not None and kept[0] == version:
        return kept[1]
    frame = _shared_texts(store.frame(ITEM_ROWS_SQL))
    _KEPT[store] = (version, frame)
    return frame


def _shared_texts(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with each repeated text (kind, category, model names...) one object, not one per row: the
    frame is kept, and the votes frame takes its columns by position (same values and dtypes)."""
    import pandas as pd

    for column in frame.columns.drop("item"):
        dtype = frame[column].dtype
        if isinstance(dtype, pd.StringDtype):
            codes, distinct = pd.factorize(frame[column])
            if len(distinct) < len(frame) // 2:
                shared = pd.array(distinct, dtype=dtype).take(codes, allow_fill=True)
                frame[column] = pd.Series(shared, index=frame.index)
    return frame
