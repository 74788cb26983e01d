"""The current judgments of a session as the votes frame reads them, as integer columns straight from SQLite.

`judged_frame` gives the frame `coded_frame` gives for `JUDGED_SQL` (same columns, values and dtypes),
without a Python object per row, in one pass over the judgments: SQLite codes each text column (CASE
over the texts the first `SAMPLE` judgments show; the rows of a text they did not show are read alone),
packs the codes, NULL flags and a flag for a value of the wrong type into one integer per row, and
aggregates it and each number column as text (`annotate.store.int_columns`). The item is read as its row
in `items` (a join), the rater as the annotator's id, looked up once. A text column of many distinct
values is read as text (coded in chunks); a session with a value of another type than its column's
(text in a number column) is read by `coded_frame` itself.
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

JUDGED_SQL = (
    "SELECT j.id AS judgment_id, a.item_id AS item, a.annotator_id AS rater, j.label,"
    " j.skip_reason, a.swapped, j.confidence, j.active_ms, j.submit_ms, a.purpose, a.condition,"
    " j.initial_label, a.display_order FROM judgments j JOIN assignments a ON a.id = j.assignment_id"
    " WHERE j.superseded_by IS NULL ORDER BY j.id"
)
"""The query the frame is the result of (with item and rater as the texts of `JUDGED_TEXT` and `JUDGED_LOOKUP`)."""
JUDGED_TEXT = ("item", "label", "skip_reason", "purpose", "condition", "initial_label", "display_order")
JUDGED_LOOKUP = {"rater": ("name", "cohort")}
ANNOTATORS_SQL = "SELECT id, name, cohort FROM annotators"

_FROM = "FROM judgments j NOT INDEXED JOIN assignments a ON a.id = j.assignment_id WHERE j.superseded_by IS NULL"
"""The current judgments in id order (not the partial index's, which is in assignment order)."""
_SOURCE = ("FROM judgments j NOT INDEXED JOIN assignments a ON a.id = j.assignment_id"
           " LEFT JOIN items i ON i.id = a.item_id WHERE j.superseded_by IS NULL")
"""`_FROM` with each judgment's item row."""
_TEXT = {"label": "j.label", "skip_reason": "j.skip_reason", "purpose": "a.purpose", "condition": "a.condition",
         "initial_label": "j.initial_label", "display_order": "a.display_order"}
_NUMBER = {"confidence": "j.confidence", "active_ms": "j.active_ms", "submit_ms": "j.submit_ms"}
_ORDER = ("judgment_id", "item", "rater", "cohort", "label", "skip_reason", "swapped", "confidence", "active_ms",
          "submit_ms", "purpose", "condition", "initial_label", "display_order")
SAMPLE = text_codes.SAMPLE
CASE_LIMIT = text_codes.CASE_LIMIT


def coded_judged(store: Store) -> pd.DataFrame:
    """The judged frame as `coded_frame` reads it (the reference `judged_frame` keeps to)."""
    from annotate.store.frames import coded_frame

    return coded_frame(store, JUDGED_SQL, text=JUDGED_TEXT, lookup=JUDGED_LOOKUP, lookup_sql=ANNOTATORS_SQL)


def judged_frame(store: Store, items: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray | None]:
    """The current judgments (`coded_judged`'s frame), and each one's item as its row in `items` (the
    items frame with a `rowid` column, in rowid order; None when an item is not among them)."""
    known = _sampled_texts(store)
    read = None if known is None else _read(store, known, items)
    return (coded_judged(store), None) if read is None else read


def _sampled_texts(store: Store) -> dict[str, list[str]] | None:
    """The texts of each text column the first `SAMPLE` judgments show; None when one is not text (the
    frame is then read row by row)."""
    return text_codes.sampled_texts(store.db.conn, _TEXT, _FROM, "j.id", SAMPLE)


def _read(store: Store, known: dict[str, list[str]],
          items: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray | None] | None:
    """The frame from one pass of aggregated words (the text columns of many values read as text); None
    when a value read is not of its column's type, or there are no judgments."""
    import numpy as np
    import pandas as pd

    from annotate.store.frames import _looked_up, item_texts

    bounds = store.db.conn.execute("SELECT min(id), max(id) FROM judgments").fetchone()
    if bounds[0] is None:
        return None
    raters_low, raters_high = store.db.conn.execute("SELECT min(id), max(id) FROM annotators").fetchone()
    items_low, items_high = store.db.conn.execute("SELECT min(rowid), max(rowid) FROM items").fetchone()
    if raters_low is None:
        return None
    # text and reals in the number columns do not parse (NotIntegers); a blob in a text column is a text
    # the sample did not show, read alone
    typed = ["typeof(a.annotator_id) != 'integer'", "coalesce(a.swapped NOT IN (0, 1), 1)"]
    typed += [f"typeof({sql}) = 'blob'" for sql in _NUMBER.values()]
    rater = (f"CASE WHEN a.annotator_id BETWEEN {raters_low} AND {raters_high} THEN a.annotator_id - {raters_low - 1}"
             " ELSE 0 END")
    fields = [Field("bad", " OR ".join(typed), 1), Field("swapped", "coalesce(a.swapped = 1, 0)", 1),
              Field("rater", rater, bits_for(raters_high - raters_low + 1))]
    if items_low is not None:
        fields.append(Field("item", f"coalesce(i.rowid - {items_low - 1}, 0)", bits_for(items_high - items_low + 1)))
    fields += [Field(f"{name}.null", f"{sql} IS NULL", 1) for name, sql in _NUMBER.items()]
    text_fields, params, other, as_text = case_fields(_TEXT, known, CASE_LIMIT)
    packing = pack(fields + text_fields)
    try:
        words = read_ints(store.db.conn, _SOURCE, (), [sql for sql, _ in packing] +
                          [f"coalesce({sql}, 0)" for sql in _NUMBER.values()], "j.id", bounds,
                          select_params=params, with_keys=True)
    except NotIntegers:  # a number column holds text or a real
        return None
    ids, values, numbers = words[0], unpack(words[1:1 + len(packing)], packing), words[1 + len(packing):]
    if values["bad"].any() or not (values["rater"] > 0).all():  # a rater not among the annotators
        return None
    raters = values["rater"] + (raters_low - 1)
    rowids = values["item"] + (items_low - 1) if items_low is not None else np.full(ids.size, -1, dtype=np.int64)
    rowids[values.get("item", rowids) == 0] = -1
    n = ids.size
    columns: dict[str, Any] = {"judgment_id": ids, "swapped": values["swapped"]}
    positions = _positions(items, rowids)
    if positions is not None:
        columns["item"] = item_texts(items, positions)
    columns.update(_looked_up(store, ANNOTATORS_SQL, raters, JUDGED_LOOKUP["rater"], "rater"))
    for name, ints in zip(_NUMBER, numbers, strict=True):
        columns[name] = _number(ints, values[f"{name}.null"].astype(bool))
    columns.update(decoded_columns(store.db.conn, _TEXT, known, other, values, ids, _FROM, "j.id"))
    missing = [*as_text, *([] if positions is not None else ["item"])]
    if missing:
        from annotate.store.frames import coded_frame

        picked = ", ".join("a.item_id AS item" if m == "item" else f"{_TEXT[m]} AS {m}" for m in missing)
        read = coded_frame(store, f"SELECT {picked} {_FROM} ORDER BY j.id", text=missing)
        for name in missing:
            columns[name] = read[name].array
    if not n:
        return None
    return pd.DataFrame({name: columns[name] for name in _ORDER}, copy=False), positions  # the read's own columns


def _positions(items: pd.DataFrame, rowids: np.ndarray) -> np.ndarray | None:
    """Each judgment's item as its place in `items` (rowid order), from the item's rowid (-1: none); None
    when an item is not there."""
    import numpy as np

    known = items["rowid"].to_numpy(dtype=np.int64)
    if (rowids < 0).any() or not known.size:
        return None
    at = np.minimum(np.searchsorted(known, rowids), known.size - 1)
    return at if (known[at] == rowids).all() else None  # a rowid not in `items`: it changed since


def _number(ints: np.ndarray, null: np.ndarray) -> Any:
    """A number column typed as `coded_frame` types it: int64 when never NULL (and within 2**53), float64
    (NaN for NULL) otherwise, None objects when every value is NULL."""
    import numpy as np

    if null.all():
        return np.full(ints.size, None, dtype=object)
    if null.any():
        out = ints.astype(np.float64)
        out[null] = np.nan
        return out
    if (np.abs(ints) < 2 ** 53).all():
        return ints
    return ints.astype(np.float64)


def queue_positions(store: Store) -> pd.Series | None:
    """`frames.judgment_positions` read as integer columns: the queue position of every current judgment
    that is not a skip, indexed by judgment id (named judgment_id, the series position); None when there
    is none or a position is not an integer (then read row by row)."""
    import numpy as np
    import pandas as pd

    bounds = store.db.conn.execute("SELECT min(id), max(id) FROM judgments").fetchone()
    if bounds[0] is None:
        return None
    try:
        ids, positions = read_ints(store.db.conn, f"{_FROM} AND j.skip_reason IS NULL", (), ["a.position"], "j.id",
                                   bounds, with_keys=True)
    except NotIntegers:
        return None
    if not ids.size:
        return None
    return pd.Series(_number(positions, np.zeros(ids.size, dtype=bool)), index=pd.Index(ids, name="judgment_id"),
                     name="position")
