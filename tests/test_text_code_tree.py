"""Text columns coded in SQL (annotate.store.text_codes): a CASE of many texts is a search tree that codes as
the plain CASE does, and the items' model names are learnt from all of item_facts, so names the first items do
not show are coded by SQLite, not read one row at a time."""

from __future__ import annotations

import sqlite3

import pandas as pd
from conftest import make_item

from annotate.model import Item, Message, Response
from annotate.store import Store, text_codes
from annotate.store import item_rows as rows_module


def test_the_tree_codes_as_the_plain_case() -> None:
    known = [*[f"model-{k:02d}" for k in range(40)][::-1], "", "é", "Zed", "a'quote"]
    values = [*known, None, "unknown", "model-4", "model-99", 7, 2.5, b"model-03", "MODEL-01", "zzz"]
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
    conn.execute("CREATE TABLE u (k INTEGER PRIMARY KEY, v)")  # no affinity: numbers and blobs stay what they are
    for table in ("t", "u"):
        conn.executemany(f"INSERT INTO {table} (v) VALUES (?)", [(v,) for v in values])
    field, params, other = text_codes.case_field("v", "v", known)
    assert "<" in field.sql and len(params) > len(known)  # the tree, not the plain CASE
    assert len(known) >= text_codes.TREE_FROM
    whens = " ".join(f"WHEN v = ? THEN {k + 1}" for k in range(len(known)))
    plain = f"CASE WHEN v IS NULL THEN 0 {whens} ELSE {other} END"
    for table in ("t", "u"):
        tree = [c for (c,) in conn.execute(f"SELECT {field.sql} FROM {table} ORDER BY k", params)]
        expected = [c for (c,) in conn.execute(f"SELECT {plain} FROM {table} ORDER BY k", known)]
        assert tree == expected
        assert tree[:len(known)] == list(range(1, len(known) + 1))
    assert text_codes.distinct_texts(conn, "v", "t", limit=100) is None  # a blob: not all text
    assert sorted(text_codes.distinct_texts(conn, "v", "(SELECT v FROM t WHERE typeof(v) = 'text')")) == sorted(
        {v for v in values if isinstance(v, str)} | {"7", "2.5"})
    assert text_codes.distinct_texts(conn, "v", "(SELECT v FROM t WHERE typeof(v) = 'text')", limit=3) is None


def _item(item_id: str, model_a: str, model_b: str) -> Item:
    return Item(id=item_id, kind="pairwise", conversation=(Message("user", f"prompt {item_id}"),),
                responses=(Response("A", "left", model_a), Response("B", "right", model_b)))


def test_models_past_the_sample_are_coded_in_sql(store: Store, monkeypatch) -> None:
    """Items in model order (as the Arena's come): the first items show one pair of models, the rest 24 more."""
    models = {f"a{k}": ("m-a", "m-b") for k in range(3)}
    models.update({f"b{k:02d}": (f"model-{k % 24:02d}", f"model-{(k + 5) % 24:02d}") for k in range(48)})
    store.add_items([make_item(f"a{k}") for k in range(3)] + [_item(i, *pair) for i, pair in models.items()
                                                                if i.startswith("b")])
    store.db.execute("DELETE FROM item_facts")
    for item, (model_a, model_b) in models.items():  # the facts an import keeps
        store.db.execute("INSERT INTO item_facts (item_id, content_hash, model_a, model_b, len_a, len_b)"
                         " SELECT id, content_hash, ?, ?, 4, 5 FROM items WHERE id = ?", [model_a, model_b, item])
    # facts of an item's other content: a model and empty slots no current row has (not in the frame)
    store.db.execute("UPDATE item_facts SET content_hash = 'old', model_a = 'gone', empty_slots = 'A'"
                     " WHERE item_id = 'b47'")
    monkeypatch.setattr(rows_module, "SAMPLE", 3)  # the sample sees m-a and m-b alone
    read_alone: list[int] = []
    texts_at = text_codes.texts_at
    monkeypatch.setattr(text_codes, "texts_at",
                        lambda conn, sql, source, key, keys: read_alone.extend(keys) or texts_at(conn, sql, source,
                                                                                                key, keys))
    read = rows_module._read(store)
    assert read is not None and not read_alone  # every name coded by SQLite
    pd.testing.assert_frame_equal(read, store.frame(rows_module.ITEM_ROWS_SQL))  # the same frame, dtypes included
    assert read["model_a"].tolist()[3:6] == ["model-00", "model-01", "model-02"]
    assert pd.isna(read["model_a"].iloc[-1]) and read["empty_slots"].isna().all()
