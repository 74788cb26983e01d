"""The imported external labels as the votes frame reads them, as integer columns straight from SQLite.

`external_frame` gives the frame `Store.frame` gives for `EXTERNAL_SQL` (same columns, values and dtypes)
without a Python object per label: the item is read as its row in `items` (a join), each text column of
few values as codes (`annotate.store.text_codes`), packed into one integer per label and aggregated as
text (`annotate.store.int_columns`). A column of many texts (the raters of a crowd) is read as text, a
chunk at a time, coded as it comes (`coded_frame`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.store import text_codes
from annotate.store.int_columns import Field, NotIntegers, bits_for, pack, read_ints, unpack
from annotate.store.text_codes import case_fields, decoded_columns

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from annotate.store.store import Store

EXTERNAL_SQL = "SELECT item_id AS item, rater, cohort, label, source, raw, shown_first FROM external_labels ORDER BY id"
"""The query the frame is the result of."""
_COLUMNS = ("item", "rater", "cohort", "label", "source", "raw", "shown_first")
_TEXT = {"rater": "e.rater", "cohort": "e.cohort", "label": "e.label", "source": "e.source", "raw": "e.raw",
         "shown_first": "e.shown_first"}
_FROM = "FROM external_labels e WHERE 1"
_SOURCE = "FROM external_labels e LEFT JOIN items i ON i.id = e.item_id WHERE 1"


def external_frame(store: Store, items: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray | None]:
    """The external labels (`EXTERNAL_SQL`'s frame), and each one's item as its row in `items` (the items
    frame with a `rowid` column, in rowid order; None when an item is not among them)."""
    read = _read(store, items)
    return (store.frame(EXTERNAL_SQL), None) if read is None else read


def _read(store: Store, items: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray | None] | None:
    """The frame from one pass of aggregated codes (None: no labels, or a value is not text)."""
    import pandas as pd

    from annotate.store.frames import coded_frame, item_texts
    from annotate.store.judged_frame import _positions

    conn = store.db.conn
    bounds = conn.execute("SELECT min(id), max(id) FROM external_labels").fetchone()
    known = None if bounds[0] is None else text_codes.sampled_texts(conn, _TEXT, _FROM, "e.id")
    if known is None:
        return None
    items_low, items_high = conn.execute("SELECT min(rowid), max(rowid) FROM items").fetchone()
    fields = []
    if items_low is not None:
        fields.append(Field("item", f"coalesce(i.rowid - {items_low - 1}, 0)", bits_for(items_high - items_low + 1)))
    text_fields, params, other, as_text = case_fields(_TEXT, known)
    fields += text_fields
    if "rater" in as_text:  # a crowd: each rater coded by its annotator row instead of read as text
        named = _annotator_names(conn)
        if named is not None:
            field, other["rater"] = _rater_field(len(named))
            fields.append(field)
            known = {**known, "rater": named}
            as_text = [name for name in as_text if name != "rater"]
    packing = pack(fields) if fields else []
    try:
        words = read_ints(conn, _SOURCE, (), [sql for sql, _ in packing] or ["0"], "e.id", bounds,
                          select_params=params, with_keys=True)
    except NotIntegers:
        return None
    ids, values = words[0], unpack(words[1:1 + len(packing)], packing)
    if not ids.size:
        return None
    columns: dict[str, Any] = {}
    positions = None
    if items_low is not None:
        rowids = values["item"] + (items_low - 1)
        rowids[values["item"] == 0] = -1
        positions = _positions(items, rowids)
    if positions is not None:
        columns["item"] = item_texts(items, positions)
    columns.update(decoded_columns(conn, {c: _TEXT[c] for c in other}, known, other, values, ids, _FROM, "e.id"))
    missing = [*([] if positions is not None else ["item"]), *as_text]
    if missing:
        picked = ", ".join("e.item_id AS item" if m == "item" else f"{_TEXT[m]} AS {m}" for m in missing)
        read = coded_frame(store, f"SELECT {picked} {_FROM} ORDER BY e.id", text=missing)
        for name in missing:
            columns[name] = read[name].array
    # copy=False: the columns are this read's own (a copy of each text column cost 0.6 s for 1.67M labels)
    return pd.DataFrame({name: columns[name] for name in _COLUMNS}, copy=False), positions


def _annotator_names(conn: Any) -> list[str] | None:
    """The annotators' names by id (id k at place k - 1), when the ids run 1, 2, ... without a gap; else None.
    An import adds every rater of its file as an annotator, so a crowd's raters are found by their row."""
    count, high = conn.execute("SELECT count(*), max(id) FROM annotators").fetchone()
    if not count or count != high:
        return None
    names = [name for (name,) in conn.execute("SELECT name FROM annotators ORDER BY id")]
    return names if all(type(n) is str for n in names) else None


def _rater_field(n_names: int) -> tuple[Field, int]:
    """The rater's code: its annotator's id (the names' place + 1), or the code of a text not known (a rater
    without an annotator row: read by its key, as a text the sample did not show)."""
    bits = bits_for(n_names + 1)
    other = (1 << bits) - 1
    sql = f"coalesce((SELECT a.id FROM annotators a WHERE a.name = e.rater), {other})"
    return Field("rater", sql, bits), other
