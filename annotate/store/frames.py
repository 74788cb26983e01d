"""DataFrames read from a session for analysis, reports and exports (pandas imported lazily).

The analysis never sees SQL: it works on these frames, so it can run on any source that builds
frames of the same shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from annotate.model import slot_to_side
from annotate.store.store import Store

if TYPE_CHECKING:
    import pandas as pd

    from annotate.design import LabelSchema

VOTE_COLUMNS = (
    "item", "rater", "cohort", "label", "source", "raw", "category", "model_a", "model_b",
    "len_a", "len_b", "gold", "swapped", "label_side", "confidence", "active_ms", "submit_ms",
    "purpose", "condition", "initial_label", "judgment_id", "shown_first", "turn", "display_order",
)


def items_frame(store: Store) -> pd.DataFrame:
    """One row per item: item, kind, category, gold, model_a, model_b, len_a, len_b (characters
    of each slot's final response; NaN when the slot is empty), turn (the metadata's whole-number
    ``turn``, as MT-Bench items carry it; None otherwise). Models and lengths are the ones the import
    kept (`annotate.store.item_facts`); an item without them is read from its responses."""
    return _items_by_rowid(store).drop(columns=["rowid"])


def _items_by_rowid(store: Store) -> pd.DataFrame:
    """`items_frame` with each item's rowid first (the frame is in rowid order)."""
    columns = ["rowid", "item", "kind", "category", "gold", "model_a", "model_b", "len_a", "len_b", "turn"]
    from annotate.store.item_rows import item_rows

    frame = item_rows(store)[["rowid", "item", "kind", "category", "gold", "known", "model_a", "model_b", "len_a",
                              "len_b", "turn"]].copy()
    missing = frame.index[~frame["known"].astype(bool)]
    if len(missing):
        import pandas as pd

        read = _items_read(store, None if len(missing) == len(frame) else frame.loc[missing, "rowid"].tolist())
        for column in ("model_a", "model_b", "len_a", "len_b"):
            values = frame[column].to_numpy(dtype=object, copy=True)
            values[missing] = read[column].to_numpy(dtype=object)
            # typed as a query's column is (store.frame), None kept
            frame[column] = pd.DataFrame({column: values.tolist()}, index=frame.index)[column]
    frame["len_a"] = frame["len_a"].astype("float64")  # NaN where the item has no such slot
    frame["len_b"] = frame["len_b"].astype("float64")
    frame["turn"] = frame["turn"].astype(object).where(frame["turn"].notna(), None)
    return frame[columns]


def _items_read(store: Store, rowids: list[int] | None) -> pd.DataFrame:
    """Models and lengths of the items (all, or those at `rowids`, ascending) read from their responses."""
    import pandas as pd

    if rowids is None:
        frame = store.frame(_ITEMS_SQL.format(where=""))
    else:
        parts = [store.frame(_ITEMS_SQL.format(where=f"WHERE i.rowid IN ({','.join('?' * len(chunk))})"), chunk)
                 for chunk in (rowids[k:k + 500] for k in range(0, len(rowids), 500))]
        frame = pd.concat(parts, ignore_index=True)
    for row in frame.index[frame["nul"] > 0]:  # SQLite's text functions stop at a NUL: Python reads these
        slots: dict[str, Any] = {}
        for r in json.loads(store.frame("SELECT responses FROM items WHERE id = ?",
                                        [frame.at[row, "item"]])["responses"].iloc[0]):
            slots.setdefault(r["slot"], r)
        for slot in ("A", "B"):
            response = slots.get(slot)
            frame.at[row, f"model_{slot.lower()}"] = None if response is None else response.get("model")
            frame.at[row, f"len_{slot.lower()}"] = None if response is None else len(response["text"])
    return frame


def _slot(slot: str, what: str) -> str:
    """SQL for one slot's response `model`, or its text's length in characters (code points, as len()):
    the first response in that slot. The first two responses are tried by path (SQLite parses an item's
    responses once for all the paths of a row), then any other by a scan of them all."""
    def value(of: str, prefix: str) -> str:
        return (f"json_extract({of}, '{prefix}.model')" if what == "model"
                else f"length(json_extract({of}, '{prefix}.text'))")

    direct = " ".join(f"WHEN json_extract(i.responses, '$[{k}].slot') = '{slot}' THEN {value('i.responses', f'$[{k}]')}"
                      for k in (0, 1))
    scan = (f"(SELECT {value('r.value', '$')} FROM json_each(i.responses) r"
            f" WHERE json_extract(r.value, '$.slot') = '{slot}' LIMIT 1)")
    return f"CASE {direct} ELSE {scan} END"


_ITEMS_SQL = (
    f"SELECT i.id AS item, {_slot('A', 'model')} AS model_a,"
    f" {_slot('B', 'model')} AS model_b, {_slot('A', 'length')} AS len_a, {_slot('B', 'length')} AS len_b,"
    " instr(i.responses, '\\u0000') AS nul FROM items i {where} ORDER BY i.rowid"
)
"""The items' model names and response lengths read in SQL, so the texts never become Python strings
(the stored JSON escapes nothing but quotes, backslashes and control characters; a NUL, which SQLite's
text functions stop at, sends its item to Python)."""


def votes_frame(store: Store, include_skips: bool = False, codes: bool = False) -> pd.DataFrame:
    """Every vote on every item, one row each: the session's current judgments (source
    `judgment`) and imported external labels (source = their file or format).

    Columns VOTE_COLUMNS. `label` is in slot space (A, B, tie, both_bad for pairwise; the grade
    as text for single; None for rubric judgments, whose scores are in `scores_frame`).
    `swapped`, `label_side`, timings, `purpose`, `condition` and `display_order` (ranking items: the
    slots at display positions 1, 2, ... as one string, `CADB`) are set for judgments only;
    `shown_first` (the slot the rater saw first, A or B) for external labels whose source says.
    Skips are left out unless include_skips. codes: the frame also carries the codes of item and rater
    (`annotate.frame_codes`: columns ``item#codes`` and ``rater#codes``), the items' from the read.
    """
    import numpy as np
    import pandas as pd

    from annotate.store.external_frame import external_frame
    from annotate.store.judged_frame import judged_frame

    items = _items_by_rowid(store)
    judged, at = judged_frame(store, items)
    if at is None and not len(judged):  # no judgments: the labels' items alone
        at = np.zeros(0, dtype=np.int64)
    if not include_skips:
        kept = judged["skip_reason"].isna().to_numpy()
        judged = judged[kept]
        at = None if at is None else at[kept]
    judged = judged.assign(
        source="judgment", raw=judged["label"], swapped=judged["swapped"].astype(bool),
        label_side=per_distinct(judged["label"], judged["swapped"], _side),
    ).drop(columns=["skip_reason"])
    external, found = external_frame(store, items)
    votes = pd.concat([judged, external], ignore_index=True) if len(external) else judged
    if at is not None and len(external):
        found = _item_positions(external["item"], items) if found is None else found
        at = None if found is None else np.concatenate([at, found])
    items = items.drop(columns=["kind", "rowid"])
    out = _with_items(votes, items, at).reindex(columns=list(VOTE_COLUMNS)).reset_index(drop=True)
    if not codes:
        return out
    from annotate.frame_codes import with_vote_codes
    from annotate.store.item_rows import item_ranks

    return with_vote_codes(out, None if at is None else item_ranks(store), at)


def _item_positions(ids: pd.Series, items: pd.DataFrame) -> Any:
    """Each of `ids`' row in `items` (None when one is missing)."""
    import pandas as pd

    codes, distinct = pd.factorize(ids)
    at = pd.Index(items["item"]).get_indexer(distinct)
    if (codes < 0).any() or (at < 0).any():
        return None
    return at[codes]


def _with_items(votes: pd.DataFrame, items: pd.DataFrame, at: Any = None) -> pd.DataFrame:
    """``votes.merge(items, on="item", how="left")``: each vote with its item's columns, taken by position
    (the items are unique by id) when every vote's item is known (`at`: the positions, when the read
    knows them); the merge itself otherwise."""
    import pandas as pd

    if at is None:
        at = _item_positions(votes["item"], items)
    if at is None:
        return votes.merge(items, on="item", how="left")
    extra = items.drop(columns=["item"]).take(at).reset_index(drop=True)
    return pd.concat([votes.reset_index(drop=True), extra], axis=1)


def coded_frame(store: Store, sql: str, params: Sequence[Any] = (), *, text: Sequence[str] = (),
                lookup: dict[str, Sequence[str]] | None = None, lookup_sql: str = "",
                chunk: int = 100_000) -> pd.DataFrame:
    """`Store.frame` of a large query, with the same column types (int64; float64 where a value is NULL or
    not whole; str for the `text` columns, NaN where NULL; object when every value is NULL), read a chunk of
    rows at a time so no Python object per row outlives its chunk: numbers become arrays, each `text`
    column integer codes of its distinct values. `lookup` {column: names}: the column holds keys of
    `lookup_sql`'s rows (key, then one value per name), and is replaced by those values, as text."""
    import numpy as np
    import pandas as pd

    lookup = lookup or {}
    cursor = store.db.conn.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    coded = set(text)
    parts: dict[str, list[Any]] = {name: [] for name in names}
    seen: dict[str, dict[Any, int]] = {name: {} for name in coded}
    while rows := cursor.fetchmany(chunk):
        for name, values in zip(names, zip(*rows, strict=True), strict=True):
            if name in coded:
                codes, distinct = pd.factorize(np.array(values, dtype=object))
                table = seen[name]
                remap = np.array([table.setdefault(v, len(table)) for v in distinct.tolist()] + [-1], dtype=np.int64)
                parts[name].append(remap[codes])
            else:
                parts[name].append(_numbers(values))
    columns: dict[str, Any] = {}
    for name in names:
        if name in coded:
            columns[name] = _text_column(list(seen[name]), _joined(parts[name]))
        elif name in lookup:
            keys = _joined(parts[name])
            columns.update(_looked_up(store, lookup_sql, keys, lookup[name], name))
        else:
            columns[name] = _number_column(parts[name])
    return pd.DataFrame(columns, columns=[c for name in names for c in (name, *lookup.get(name, ())[1:])],
                        copy=False)  # the read's own columns: not copied again


def _joined(parts: list[Any]) -> Any:
    import numpy as np

    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _numbers(values: tuple[Any, ...]) -> Any:
    """One chunk of a number column: float64 (NaN for NULL), or the values as objects when any is not a number."""
    import numpy as np

    if all(v is None or type(v) in (int, float) for v in values):
        return np.array(values, dtype=np.float64)
    return np.array(values, dtype=object)


def _number_column(parts: list[Any]) -> Any:
    """A number column as pandas infers it from the rows: int64 when every value is a whole number, float64
    when one is NULL or not whole, None objects when all are NULL (anything else: pandas infers it)."""
    import numpy as np
    import pandas as pd

    if not parts:
        return np.zeros(0, dtype=object)
    if any(p.dtype == object for p in parts):
        return pd.Series(np.concatenate([p.astype(object) for p in parts]).tolist()).array
    values = np.concatenate(parts)
    missing = np.isnan(values)
    if missing.all():
        return np.full(values.size, None, dtype=object)
    if not missing.any() and (np.abs(values) < 2.0 ** 53).all() and (values == np.floor(values)).all():
        return values.astype(np.int64)
    return values


def _text_column(distinct: list[Any], codes: Any) -> Any:
    """A text column from its distinct values and codes (-1: NULL), typed as pandas infers it from the rows."""
    import numpy as np
    import pandas as pd

    if not distinct:
        return np.full(codes.size, None, dtype=object)
    if not all(isinstance(v, str) for v in distinct):
        return pd.Series(np.array([*distinct, None], dtype=object)[codes].tolist()).array
    return pd.array(np.array(distinct, dtype=object), dtype="str").take(codes, allow_fill=True)


def item_texts(items: pd.DataFrame, positions: Any) -> Any:
    """The ids of `items` (a frame with an ``item`` column) at `positions`, as `_text_column` types them: taken
    from the column's own array when it is of that type already (no list of a million ids made again)."""
    import numpy as np
    import pandas as pd

    column = items["item"]
    typed = column.dtype == pd.array(np.array(["x"], dtype=object), dtype="str").dtype
    if len(column) and typed and not column.hasnans:  # (a missing id makes `_text_column` give objects)
        return column.array.take(positions, allow_fill=True)
    return _text_column(column.to_numpy(dtype=object).tolist(), positions)


def _looked_up(store: Store, sql: str, keys: Any, names: Sequence[str], column: str) -> dict[str, Any]:
    """The values of `names` for each key (rows of `sql`: key, then the values), as text columns; the
    first name takes `column`'s place."""
    import numpy as np

    rows = store.db.conn.execute(sql).fetchall()
    ids = np.array([row[0] for row in rows], dtype=np.int64)
    order = np.argsort(ids)
    at = np.full(keys.size, -1, dtype=np.int64)
    if ids.size:
        found = order[np.minimum(np.searchsorted(ids[order], keys), ids.size - 1)]
        at = np.where(ids[found] == keys, found, -1)
    out = {}
    for k, name in enumerate(names):
        codes, distinct = _codes_of([row[1 + k] for row in rows])
        out[column if k == 0 else name] = _text_column(distinct, np.append(codes, -1)[at])
    return out


def _codes_of(values: list[Any]) -> tuple[Any, list[Any]]:
    import numpy as np

    table: dict[Any, int] = {}
    codes = np.array([-1 if v is None else table.setdefault(v, len(table)) for v in values], dtype=np.int64)
    return codes, list(table)


def judgment_positions(store: Store) -> pd.Series:
    """Queue position (0-based place of its assignment in the annotator's queue) of every current
    judgment that is not a skip, indexed by judgment id."""
    from annotate.store.judged_frame import queue_positions

    read = queue_positions(store)
    if read is not None:
        return read
    frame = coded_frame(
        store, "SELECT j.id AS judgment_id, a.position FROM judgments j JOIN assignments a ON a.id = j.assignment_id"
        " WHERE j.superseded_by IS NULL AND j.skip_reason IS NULL ORDER BY j.id"
    )
    return frame.set_index("judgment_id")["position"]


def scores_frame(store: Store) -> pd.DataFrame:
    """Rubric scores in long form: item, rater, cohort, criterion, score (current judgments)."""
    import pandas as pd

    raw = store.frame(
        "SELECT a.item_id AS item, n.name AS rater, n.cohort, j.scores FROM judgments j"
        " JOIN assignments a ON a.id = j.assignment_id JOIN annotators n ON n.id = a.annotator_id"
        " WHERE j.superseded_by IS NULL AND j.skip_reason IS NULL ORDER BY j.id"
    )
    rows = [
        {"item": item, "rater": rater, "cohort": cohort, "criterion": criterion, "score": score}
        for item, rater, cohort, scores in raw.itertuples(index=False)
        for criterion, score in json.loads(scores or "{}").items()
    ]
    return pd.DataFrame(rows, columns=["item", "rater", "cohort", "criterion", "score"])


def per_distinct(values: pd.Series, flags: pd.Series, fn: Callable[[Any, bool], Any]) -> list[Any]:
    """``[fn(v, bool(f)) for v, f in zip(values, flags)]`` with a missing value (None, NaN) kept as it is,
    calling ``fn`` once per distinct (text, flag) pair instead of once per row (values that are not all
    text: once per row)."""
    import numpy as np
    import pandas as pd

    flag = flags.to_numpy(dtype=bool)
    if pd.api.types.infer_dtype(values, skipna=True) != "string":
        return [v if v is None or v != v else fn(v, bool(f)) for v, f in zip(values, flag, strict=True)]
    codes, distinct = pd.factorize(values)
    pair = codes.astype(np.int64) * 2 + flag
    present, where = np.unique(pair[codes >= 0], return_inverse=True)
    mapped = np.array([fn(distinct[p // 2], bool(p % 2)) for p in present.tolist()] + [None], dtype=object)
    at = np.full(pair.size, present.size, dtype=np.int64)
    at[codes >= 0] = where.ravel()
    out = mapped[at]
    missing = codes < 0
    out[missing] = values.to_numpy(dtype=object)[missing]
    return out.tolist()


def _side(label: str, swapped: bool) -> str:
    """The side a pairwise label was given on; grades have no side and pass through."""
    try:
        return slot_to_side(label, swapped)
    except ValueError:
        return label


ANSWER_COLUMNS = ("judgment_id", "question", "value")


def answers_frame(store: Store, schema: LabelSchema) -> pd.DataFrame:
    """Every question's answer of every current judgment that is not a skip, in long form: one row
    per (judgment, question) with the stored value in slot space (text), as `schema.decode` reads
    `label` and `scores` (a judgment stored before the schema had aspects answers its primary
    question only). Join with `votes_frame` on judgment_id for who, what and how it was shown."""
    import pandas as pd

    raw = store.frame(
        "SELECT j.id AS judgment_id, j.label, j.scores FROM judgments j"
        " WHERE j.superseded_by IS NULL AND j.skip_reason IS NULL ORDER BY j.id"
    )
    rows = [
        (judgment_id, question, value)
        for judgment_id, label, scores in raw.itertuples(index=False)
        for question, value in schema.decode(label, json.loads(scores or "{}")).items()
    ]
    return pd.DataFrame(rows, columns=list(ANSWER_COLUMNS))


def item_turns(store: Store) -> dict[str, int]:
    """Item id -> the turn its judged answer is in: the item's metadata `turn` when it is a positive
    integer, else the number of user messages up to the answer (the shared conversation plus the
    first response's own history), so a two-turn MT-Bench question judged on its second answer is
    turn 2."""
    out: dict[str, int] = {}
    raw = store.frame("SELECT id, conversation, responses, metadata FROM items ORDER BY rowid")
    for item_id, conversation, responses, metadata in raw.itertuples(index=False):
        turn = json.loads(metadata or "{}").get("turn")
        if isinstance(turn, int) and not isinstance(turn, bool) and turn > 0:
            out[item_id] = turn
            continue
        shared = sum(1 for m in json.loads(conversation) if m.get("role") == "user")
        first = (json.loads(responses) or [{}])[0]
        own = sum(1 for m in first.get("history", ()) if m.get("role") == "user")
        out[item_id] = max(1, shared + own)
    return out


SPAN_COLUMNS = ("judgment_id", "slot", "start", "end", "category", "severity")
RESPONSE_COLUMNS = ("judgment_id", "item", "rater", "slot", "model")


def span_frames(store: Store, judgments: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The judged responses and their error spans, for `annotate.analysis.spans`.

    judgments: the judgments that count, with columns judgment_id, item, rater (the report's votes of
    source `judgment`). Returns (responses, spans): responses has one row per judgment and response
    slot of its item (RESPONSE_COLUMNS, the slot's model from the item); spans one row per span of
    those judgments (SPAN_COLUMNS, offsets into the original text)."""
    import pandas as pd

    items = items_frame(store).set_index("item")
    rows = []
    for judgment_id, item, rater in judgments[["judgment_id", "item", "rater"]].itertuples(index=False):
        if item not in items.index:
            continue
        found = items.loc[item]
        for slot, model, length in (("A", found["model_a"], found["len_a"]), ("B", found["model_b"], found["len_b"])):
            if length is None or length != length:  # the item has no response in this slot
                continue
            known = model is not None and model == model  # NaN: the item names no model for the slot
            rows.append((int(judgment_id), str(item), str(rater), slot, str(model) if known else None))
    responses = pd.DataFrame(rows, columns=list(RESPONSE_COLUMNS))
    if not store.has_spans or responses.empty:
        return responses, pd.DataFrame(columns=list(SPAN_COLUMNS))
    ids = sorted(set(responses["judgment_id"]))
    parts = []
    for begin in range(0, len(ids), 500):
        chunk = ids[begin : begin + 500]
        parts.append(store.frame(
            "SELECT judgment_id, slot, char_start AS start, char_end AS \"end\", category, severity FROM spans"
            f" WHERE judgment_id IN ({','.join('?' * len(chunk))}) ORDER BY judgment_id, slot, char_start", chunk))
    return responses, pd.concat(parts, ignore_index=True).reindex(columns=list(SPAN_COLUMNS))
