"""Every item with what a report reads of it, from one scan of the items, kept until the file changes.

An item's row holds its texts, so it fills about a page: any scan of `items` reads the whole file (at
220k items, 0.6 s of CPU and more of waiting per scan on a busy host). The items frame, the stored style
counts and the empty responses were three such scans per report; `item_rows` makes them one.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from annotate.store.item_facts import FACT_COLUMNS

if TYPE_CHECKING:
    import numpy as np
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
    read = _read(store)
    # the integer read's texts are taken from their distinct values (frames._text_column): shared already
    frame = _shared_texts(store.frame(ITEM_ROWS_SQL)) if read is None else read
    _KEPT[store] = (version, frame)
    return frame


_RANKS: weakref.WeakKeyDictionary[Store, tuple[pd.DataFrame, Any]] = weakref.WeakKeyDictionary()


def item_ranks(store: Store) -> tuple[np.ndarray, pd.Index] | None:
    """Each row of `item_rows` (rowid order)'s place among the item ids sorted, and the ids sorted (one Index,
    so frames coded by it share it): the codes of item that the report's frames carry (`annotate.frame_codes`),
    made once per `item_rows` frame; None when an id is not text."""
    import pandas as pd

    from annotate.frame_codes import sorted_ranks

    frame = item_rows(store)
    kept = _RANKS.get(store)
    if kept is None or kept[0] is not frame:
        ranks = sorted_ranks(frame["item"].to_numpy(dtype=object))
        kept = _RANKS[store] = (frame, None if ranks is None else (ranks[0], pd.Index(ranks[1], dtype="str")))
    return kept[1]


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


_SOURCE = ("FROM items i LEFT JOIN item_facts f ON f.item_id = i.id AND f.content_hash = i.content_hash WHERE 1")
"""`ITEM_ROWS_SQL`'s rows, for the integer read (`_read`)."""
_TEXT = {"kind": "i.kind", "category": "i.category", "gold": "i.gold", "model_a": "f.model_a",
         "model_b": "f.model_b", "empty_slots": "f.empty_slots"}
_FACT_TEXTS = ("model_a", "model_b", "empty_slots")
"""The text columns of `item_facts` (`_TEXT`'s ``f.`` columns)."""
_TURN = ("CASE WHEN json_valid(i.metadata) AND json_type(i.metadata, '$.turn') = 'integer'"
         " THEN json_extract(i.metadata, '$.turn') END")
_NUMBER = {**{c: f"f.{c}" for c in FACT_COLUMNS if c not in _TEXT}, "turn": _TURN}
"""The number columns: the facts' counts (integers or NULL, checked) and the turn (an integer or NULL by its
CASE; a real, which a JSON integer past 64 bits becomes, stops the read)."""
SAMPLE = 20_000
"""Items whose texts give each text column's codes (`annotate.store.text_codes`)."""
CASE_LIMIT = 64
"""A text column of more distinct values than this is read as text (`annotate.store.text_codes`)."""


def _read(store: Store) -> pd.DataFrame | None:
    """`ITEM_ROWS_SQL`'s frame as `Store.frame` types it, without a Python object per value: the ids fetched,
    the other columns aggregated as integers by SQLite (`annotate.store.int_columns`), each number as
    ``2 x value + 1`` (0 for NULL), the few texts of a column as codes (`annotate.store.text_codes`), the
    presence of the facts as a bit; None (the caller reads the rows) when there is no item, an id is not text,
    or a number column holds something else than integers."""
    import numpy as np

    from annotate.store import text_codes
    from annotate.store.frames import _text_column, coded_frame
    from annotate.store.int_columns import Field, NotIntegers, pack, read_ints, unpack

    conn = store.db.conn
    bounds = conn.execute("SELECT min(rowid), max(rowid) FROM items").fetchone()
    if bounds[0] is None:
        return None
    known = text_codes.sampled_texts(conn, _TEXT, _SOURCE, "i.rowid", SAMPLE)
    if known is None:
        return None
    wide = []
    for name in _FACT_TEXTS:  # the facts' texts from all of their small table: a sample in item order can miss
        texts = text_codes.distinct_texts(conn, name, "item_facts")  # most models (Arena's come in model order)
        if texts is not None:
            known[name], wide = texts, [*wide, name]
    typed = " OR ".join(f"typeof({sql}) NOT IN ('integer', 'null')" for name, sql in _NUMBER.items() if name != "turn")
    fields = [Field("bad", typed, 1), Field("known", "f.item_id IS NOT NULL", 1)]
    text_fields, params, other, as_text = text_codes.case_fields(_TEXT, known, CASE_LIMIT, wide)
    packing = pack(fields + text_fields)
    try:
        words = read_ints(conn, _SOURCE, (), [sql for sql, _ in packing] +
                          [f"coalesce(({sql}) * 2 + 1, 0)" for sql in _NUMBER.values()], "i.rowid", bounds,
                          select_params=params, with_keys=True)
    except NotIntegers:
        return None
    rowids, values, numbers = words[0], unpack(words[1:1 + len(packing)], packing), words[1 + len(packing):]
    if values["bad"].any():
        return None
    ids = _ids_by_rowid(conn, rowids)
    if ids is None:
        return None
    columns: dict[str, Any] = {"rowid": rowids, "item": _text_column(ids, np.arange(len(ids))),
                               "known": values["known"]}
    columns.update(text_codes.decoded_columns(conn, _TEXT, known, other, values, rowids, _SOURCE, "i.rowid"))
    if as_text:
        picked = ", ".join(f"{_TEXT[name]} AS {name}" for name in as_text)
        read = coded_frame(store, f"SELECT {picked} {_SOURCE} ORDER BY i.rowid", text=as_text)
        for name in as_text:
            columns[name] = read[name].array
    words_by_name = dict(zip(_NUMBER, numbers, strict=True))
    whole = [name for name, words_of in words_by_name.items() if not (words_of == 0).any()]
    block = np.empty((2 + len(whole), rowids.size), dtype=np.int64)
    block[0], block[1] = rowids, values["known"]
    for row, name in enumerate(whole, start=2):  # 2 x value + 1 -> value, written where the frame keeps it
        np.subtract(words_by_name[name], 1, out=block[row])
        np.right_shift(block[row], 1, out=block[row])
    for name in words_by_name.keys() - set(whole):
        columns[name] = _integers(words_by_name[name])
    order = ["rowid", "item", "kind", "category", "gold", "known", *FACT_COLUMNS, "turn"]
    return _framed(order, block, ["rowid", "known", *whole], columns)


def _framed(order: list[str], block: np.ndarray, in_block: list[str], columns: dict[str, Any]) -> pd.DataFrame:
    """The frame of `order`'s columns: those of `in_block` (its rows, int64) kept as the frame's one block of
    integers, the others (`columns`) set beside it. The constructor would copy each integer column into a
    block of its own making, and `insert` each array it is given (a Series it takes as it is): some 1.5 s and
    250 MB more at peak for the 1.67M Arena items."""
    import pandas as pd

    frame = pd.DataFrame(block.T, columns=in_block, copy=False)
    for at, name in enumerate(order):  # in order: the columns before `at` are in place
        if name not in in_block:
            frame.insert(at, name, pd.Series(columns[name], copy=False))  # as a Series: not copied
    return frame


ID_SEPARATOR = "\x1f"
"""Joins the ids of a chunk in `_ids_by_rowid` (an id holding it is read as rows: the parts outnumber the ids)."""
ID_CHUNK = 200_000
"""Ids aggregated into one text by `_ids_by_rowid`."""


def _ids_by_rowid(conn: Any, rowids: np.ndarray) -> list[str] | None:
    """The items' ids in rowid order (`rowids`, ascending: every item's), read in id order from the index of
    the ids alone (a scan in rowid order reads every item's page), a chunk of `ID_CHUNK` ids joined by SQLite
    into one text, so no row is a Python tuple; None (the caller reads the rows) when an id is not text or
    holds `ID_SEPARATOR`, or the items are not those of `rowids` (they changed between the two reads)."""
    import numpy as np

    # text sorts after NULL and numbers and before blobs: an id that is no text falls outside the chunks
    sql = ("SELECT count(*), group_concat(rowid), group_concat(id, ?) FROM"
           " (SELECT rowid, id FROM items WHERE id {} ? AND id < x'' ORDER BY id LIMIT ?)")
    keys: list[np.ndarray] = []
    ids: list[str] = []
    last, first = "", True
    while True:
        count, keys_text, ids_text = conn.execute(sql.format(">=" if first else ">"),
                                                  [ID_SEPARATOR, last, ID_CHUNK]).fetchone()
        if not count:
            break
        parts = ids_text.split(ID_SEPARATOR)
        if len(parts) != count:
            return None
        keys.append(np.fromstring(keys_text, dtype=np.int64, sep=","))
        ids.extend(parts)
        last, first = max(parts), False
        if count < ID_CHUNK:
            break
    by_id = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    if by_id.size != len(ids) or by_id.size != rowids.size:
        return None  # an id that is not text; or the items changed
    order = np.argsort(by_id, kind="stable")
    if not np.array_equal(by_id[order], rowids):
        return None  # the items changed between the two reads
    return np.array(ids, dtype=object)[order].tolist()


def _integers(words: np.ndarray) -> Any:
    """An integer column from its words (``2 x value + 1``, 0 for NULL), typed as pandas types the rows'
    values: int64 without NULL, float64 (NaN for NULL) with some, None objects when all are NULL."""
    import numpy as np

    null = words == 0
    values = (words - 1) // 2
    if null.all():
        return np.full(words.size, None, dtype=object)
    if null.any():
        out = values.astype(np.float64)
        out[null] = np.nan
        return out
    return values
