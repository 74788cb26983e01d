"""The one scan of the items a report makes (annotate.store.item_rows): the readers built on it give what
their own queries gave, and it is read again once the file changes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import make_item

from annotate.store import Store
from annotate.store import item_rows as rows_module
from annotate.store.frames import items_frame
from annotate.store.item_facts import STYLE_COLUMNS, stored_item_facts
from annotate.store.response_frames import empty_responses_frame

FACTS_SQL = (
    "SELECT i.rowid AS rowid, i.id AS item, i.kind, i.category, i.gold, f.item_id IS NOT NULL AS known,"
    " f.model_a, f.model_b, f.len_a, f.len_b,"
    " CASE WHEN json_valid(i.metadata) AND json_type(i.metadata, '$.turn') = 'integer'"
    " THEN json_extract(i.metadata, '$.turn') END AS turn"
    " FROM items i LEFT JOIN item_facts f ON f.item_id = i.id AND f.content_hash = i.content_hash ORDER BY i.rowid"
)
"""The items frame's own query before the one scan."""


def _items(store: Store) -> None:
    store.add_items([make_item("i1", a="", b="ok", gold="A", category="code"), make_item("i2", metadata={"turn": 2}),
                     make_item("i3", a=" \n", b="fine")])


def test_the_readers_read_what_their_queries_read(store: Store) -> None:
    _items(store)
    store.db.execute("DELETE FROM item_facts WHERE item_id = 'i3'")  # an item whose facts are read from its texts
    frame = store.frame(FACTS_SQL)
    pd.testing.assert_frame_equal(rows_module.item_rows(store)[list(frame.columns)], frame)  # dtypes included
    assert items_frame(store)["turn"].tolist() == [None, 2, None] and items_frame(store)["len_a"].tolist()[:2] == [0, 9]
    picked = ", ".join(f"f.{c}" for c in STYLE_COLUMNS)
    stored = store.frame(f"SELECT i.id AS item, f.item_id IS NOT NULL AS known, {picked} FROM items i LEFT JOIN"
                         " item_facts f ON f.item_id = i.id AND f.content_hash = i.content_hash WHERE i.kind = ?"
                         " ORDER BY i.rowid", ["pairwise"])
    new = stored_item_facts(store, STYLE_COLUMNS, kind="pairwise")
    assert new["item"].tolist() == stored["item"].tolist() and new["known"].tolist() == stored["known"].tolist()
    assert new[list(STYLE_COLUMNS)].fillna(-1).astype(int).equals(stored[list(STYLE_COLUMNS)].fillna(-1).astype(int))
    assert list(zip(*empty_responses_frame(store).to_dict("list").values(), strict=True)) == [("i1", "A"), ("i3", "A")]


def test_one_scan_until_the_file_changes(store: Store, monkeypatch) -> None:
    _items(store)
    scans = []
    plain, read = store.frame, rows_module._read
    monkeypatch.setattr(store, "frame", lambda sql, params=(): scans.append(sql) or plain(sql, params))
    monkeypatch.setattr(rows_module, "_read", lambda s: scans.append(rows_module.ITEM_ROWS_SQL) or read(s))
    items_frame(store)
    stored_item_facts(store, STYLE_COLUMNS, kind="pairwise")
    empty_responses_frame(store)
    assert scans.count(rows_module.ITEM_ROWS_SQL) == 1  # the integer read, which found every value
    store.add_items([make_item("i4")])
    assert items_frame(store)["item"].tolist() == ["i1", "i2", "i3", "i4"]
    assert scans.count(rows_module.ITEM_ROWS_SQL) == 2


def test_repeated_texts_are_one_object_and_the_frame_is_the_same(store: Store) -> None:
    store.add_items([make_item(f"i{k}", category=None if k % 3 else "code") for k in range(10)])
    kept = rows_module.item_rows(store)
    pd.testing.assert_frame_equal(kept, store.frame(rows_module.ITEM_ROWS_SQL))
    models = kept["model_a"].to_numpy(dtype=object)
    assert all(m is models[0] for m in models) and kept["category"].isna().sum() == 6


def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _varied(store: Store) -> None:
    """Items with and without stored facts, gold, categories or none, turns (and metadata that is no JSON),
    an empty slot, a long text."""
    store.add_items([make_item("i1", a="", b="ok", gold="A", category="code"), make_item("i2", metadata={"turn": 2}),
                     make_item("i3", a=" \n", b="fine"), make_item("i4", metadata={"turn": -7}, category="math"),
                     make_item("i5", a="x" * 5000, gold="tie", metadata={"turn": "3"})])
    from annotate.store.item_facts import FACT_COLUMNS

    store.db.execute("DELETE FROM item_facts")
    for k, item in enumerate(("i1", "i2", "i4", "i5")):  # i3 has none; i5's are of other content
        values = ["m-a" if k % 2 else "m-b", "m-b", 10 * k, 7] + [k + j for j in range(8)] + ["A" if k == 0 else None]
        store.db.execute(f"INSERT INTO item_facts (item_id, content_hash, {', '.join(FACT_COLUMNS)}) SELECT id,"
                         f" {'content_hash' if item != 'i5' else quote('old')}, {', '.join('?' * len(values))}"
                         " FROM items WHERE id = ?", [*values, item])
    store.db.execute("UPDATE items SET metadata = 'not json' WHERE id = 'i1'")
    assert store.db.conn.execute("SELECT count(*) FROM item_facts").fetchone()[0] == 4


@pytest.mark.parametrize("sample, limit", [(20_000, 64), (1, 64), (2, 1), (20_000, 0)])
def test_the_integer_read_is_the_rows_frame(store: Store, monkeypatch: pytest.MonkeyPatch, sample: int,
                                            limit: int) -> None:
    """Read as integer columns (codes learnt from one item and the rest read alone, or texts read as text),
    the frame is `Store.frame`'s, values and dtypes."""
    _varied(store)
    monkeypatch.setattr(rows_module, "SAMPLE", sample)
    monkeypatch.setattr(rows_module, "CASE_LIMIT", limit)
    read = rows_module._read(store)
    assert read is not None
    pd.testing.assert_frame_equal(read, store.frame(rows_module.ITEM_ROWS_SQL))
    assert read["turn"].fillna(0).tolist() == [0, 2, 0, -7, 0] and read["known"].tolist() == [1, 1, 0, 1, 0]


@pytest.mark.parametrize("change", [
    "UPDATE item_facts SET len_a = 'long' WHERE item_id = 'i1'",
    "UPDATE item_facts SET len_b = 2.5 WHERE item_id = 'i2'",
    "UPDATE items SET metadata = '{\"turn\": 99999999999999999999}' WHERE id = 'i2'",
])
def test_a_value_of_another_type_is_read_by_rows(store: Store, change: str) -> None:
    """Text or a real in a count, a turn whose word passes 64 bits: no integer read; `item_rows` reads the rows."""
    _varied(store)
    store.db.execute(change)
    assert rows_module._read(store) is None
    pd.testing.assert_frame_equal(rows_module.item_rows(store), store.frame(rows_module.ITEM_ROWS_SQL))


def test_every_value_missing_and_no_item(store: Store) -> None:
    """Columns all NULL are None objects, as the rows give them; no item: the rows' empty frame."""
    assert rows_module._read(store) is None
    pd.testing.assert_frame_equal(rows_module.item_rows(store), store.frame(rows_module.ITEM_ROWS_SQL))
    store.add_items([make_item("i1"), make_item("i2")])
    store.db.execute("DELETE FROM item_facts")
    pd.testing.assert_frame_equal(rows_module._read(store), store.frame(rows_module.ITEM_ROWS_SQL))


@pytest.mark.parametrize("chunk", [1, 2, 5, 200_000])
def test_the_ids_are_read_in_chunks_of_the_index(store: Store, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """The ids come from the index a chunk at a time, however the chunks fall (ids inserted out of their order,
    the empty id, ids of other scripts), and the frame is the rows' one."""
    monkeypatch.setattr(rows_module, "ID_CHUNK", chunk)
    store.add_items([make_item(i) for i in ("b", "", "a", "é", "a2", "Z", "日本", "a1")])
    read = rows_module._read(store)
    assert read is not None and read["item"].tolist() == ["b", "", "a", "é", "a2", "Z", "日本", "a1"]
    pd.testing.assert_frame_equal(read, store.frame(rows_module.ITEM_ROWS_SQL))


@pytest.mark.parametrize("change", [
    "UPDATE items SET id = 'i' || char(31) || '2' WHERE id = 'i2'",  # the separator in an id: more parts than ids
    "UPDATE items SET id = NULL WHERE id = 'i2'",  # NULL sorts before every text: outside the chunks
    "UPDATE items SET id = x'6932' WHERE id = 'i2'",  # a blob sorts after every text: inside the last chunk
])
def test_an_id_the_chunks_cannot_hold_is_read_by_rows(store: Store, change: str) -> None:
    _varied(store)
    store.db.execute(change)
    rowids = np.array([r[0] for r in store.db.conn.execute("SELECT rowid FROM items ORDER BY rowid")], dtype=np.int64)
    assert rows_module._ids_by_rowid(store.db.conn, rowids) is None
    assert rows_module._read(store) is None
    pd.testing.assert_frame_equal(rows_module.item_rows(store), store.frame(rows_module.ITEM_ROWS_SQL))


@pytest.mark.parametrize("ids", [["a", "b", "é"], ["a", None, "é"]])
@pytest.mark.parametrize("dtype", ["str", object])
def test_the_item_texts_are_the_text_columns_ones(dtype: object, ids: list) -> None:
    """A vote's item text taken from the items' own array is what `_text_column` makes of the ids (-1 and a
    missing id included), dtype and all."""
    from annotate.store.frames import _text_column, item_texts

    items = pd.DataFrame({"item": pd.Series(ids, dtype=dtype)})
    positions = np.array([2, 0, -1, 2, 1])
    expected = _text_column(items["item"].to_numpy(dtype=object).tolist(), positions)
    got = item_texts(items, positions)
    pd.testing.assert_series_equal(pd.Series(got), pd.Series(expected))
    assert pd.Series(got).dtype == pd.Series(expected).dtype
