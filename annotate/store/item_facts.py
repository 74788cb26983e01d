"""Facts of every item kept from its import (migration v14), so a report reads them with one query
instead of parsing every item's responses: slot A's and slot B's model and length (characters of the
first response in that slot, as `frames.items_frame` reads them) and, for pairwise items with both
slots, the style counts of each side (`annotate.analysis.style`: tokens, markdown headers, list items,
bold spans of the side's answer plus its own earlier assistant turns; NULL otherwise), and the slots
whose text is empty or only white space (``empty_slots``: in response order, joined by commas; NULL
when none).

A row is keyed by the item's id and content hash: a row whose hash is not the item's (an item stored
again with other content) counts as missing, and an item without a row (stored before v14, or by a
path that does not record them) is read from its responses by the reader's caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store._sqlite_utils import sqlite_utils
    from annotate.store.store import Store

STYLE_FEATURES = ("tokens", "headers", "list_items", "bold")
"""The features, in `annotate.analysis.style.FEATURES` order (a test keeps them the same)."""
STYLE_COLUMNS = tuple(f"{feature}_{side}" for side in "ab" for feature in STYLE_FEATURES)
"""slot A's counts, then slot B's."""
SLOT_COLUMNS = ("model_a", "model_b", "len_a", "len_b")
FACT_COLUMNS = (*SLOT_COLUMNS, *STYLE_COLUMNS, "empty_slots")
"""What a row holds besides its key, in table order."""

COLUMNS_SQL = ", ".join(f"{c} TEXT" if c.startswith(("model", "empty")) else f"{c} INTEGER" for c in FACT_COLUMNS)
"""The facts' column definitions (of item_facts, and of the staged items, which carry their facts)."""


def create_item_facts(db: sqlite_utils.Database) -> None:
    """The table of migration v14 (empty: items stored before it are read from their responses)."""
    db.execute(f"CREATE TABLE item_facts (item_id TEXT PRIMARY KEY, content_hash TEXT NOT NULL, {COLUMNS_SQL})")


STAGE_STORED_TABLE = "CREATE TABLE {s}.stage_facts_stored (seq INTEGER PRIMARY KEY)"
"""The staged items whose facts the session holds already (of the same content), filled by `copy_staged_sql`."""


def copy_staged_sql(schema: str) -> tuple[str, str]:
    """SQL copying the facts of staged items (columns of their staged rows) into the session, for items
    whose stored facts are missing or of other content (an import again of items stored before v14
    fills theirs in): the staged items whose facts are stored are noted first, so that the copy's
    SELECT does not read main.item_facts (SQLite would copy the whole SELECT into a temporary table
    before inserting; the staged ids are distinct, so no row copied changes which others are to be
    copied)."""
    columns = ", ".join(FACT_COLUMNS)
    return (
        f"INSERT INTO {schema}.stage_facts_stored SELECT s.seq FROM {schema}.stage_items s WHERE EXISTS"
        " (SELECT 1 FROM main.item_facts m WHERE m.item_id = s.id AND m.content_hash = s.content_hash)",
        f"INSERT OR REPLACE INTO main.item_facts (item_id, content_hash, {columns})"
        f" SELECT s.id, s.content_hash, {', '.join(f's.{c}' for c in FACT_COLUMNS)} FROM {schema}.stage_items s"
        " WHERE s.seq NOT IN"
        f" (SELECT seq FROM {schema}.stage_facts_stored) ORDER BY s.seq",
    )


def stored_item_facts(store: Store, columns: Sequence[str] = FACT_COLUMNS, kind: str | None = None) -> pd.DataFrame:
    """Every item (of `kind`, or all) in item order: item, known (whether a row of its current content
    is stored) and `columns` (None / NaN where not known; typed as the scan of all items types them).
    Read from `annotate.store.item_rows`, the one scan of the items a report makes."""
    from annotate.store.item_rows import item_rows

    rows = item_rows(store)
    picked = rows if kind is None else rows.loc[rows["kind"] == kind]
    return picked[["item", "known", *columns]].reset_index(drop=True)
