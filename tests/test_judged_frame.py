"""The judged frame read as integer columns (annotate.store.judged_frame) is the frame `coded_frame` reads,
values and dtypes, whatever the judgments hold; and the packed integer reader it stands on."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import make_item

from annotate.model import Assignment, ExternalLabel, Judgment, Timings
from annotate.store import Store
from annotate.store import judged_frame as jf
from annotate.store.frames import _items_by_rowid, votes_frame
from annotate.store.int_columns import Field, NotIntegers, pack, read_ints, unpack

T = Timings("2026-11-30T10:00:00+00:00", 100, 2000, 1900)


def _session(store: Store) -> None:
    """Judgments of every kind the votes frame meets: skips, a revision, a repeat and an attention check,
    labels, grades as text, an initial label, confidence given or not, an LLM judge, gold items, a
    ranking item's display order."""
    store.add_items([make_item("i1", gold="A"), make_item("i2"), make_item("i3", gold="tie"), make_item("i4")])
    rows = [Assignment(0, "alice", "i1", 0, swapped=True), Assignment(0, "alice", "i2", 1),
            Assignment(0, "bob", "i1", 0), Assignment(0, "bob", "i3", 1, condition="upfront"),
            Assignment(0, "gpt-judge", "i2", 0), Assignment(0, "gpt-judge", "i4", 1, purpose="attention"),
            Assignment(0, "carol", "i4", 0, purpose="repeat", order=("B", "A")), Assignment(0, "carol", "i3", 1)]
    a = store.add_assignments(rows)
    store.submit(Judgment(a[0].id, "A", T, confidence=3))
    store.submit(Judgment(a[1].id, None, T, skip_reason="unsure"))
    store.submit(Judgment(a[2].id, "tie", T))
    store.submit(Judgment(a[2].id, "B", T, initial_label="tie"))  # a revision: the first is superseded
    store.submit(Judgment(a[3].id, "both_bad", T, confidence=5))
    store.submit(Judgment(a[4].id, "+2", T))
    store.submit(Judgment(a[5].id, "B", T))
    store.submit(Judgment(a[6].id, "4", T, skip_reason=None))
    store.submit(Judgment(a[7].id, None, T, skip_reason="other: the prompt is cut off"))
    store.db.execute("UPDATE annotators SET cohort = 'llm' WHERE name = 'gpt-judge'")
    store.add_external_labels([ExternalLabel("arena", "v1", "crowd", "i1", "B", "model_b")])


def _same(store: Store) -> pd.DataFrame:
    items = _items_by_rowid(store)
    new, _ = jf.judged_frame(store, items)
    old = jf.coded_judged(store)
    pd.testing.assert_frame_equal(new, old)
    return new


def test_the_integer_read_is_the_coded_frame(store: Store) -> None:
    _session(store)
    new = _same(store)
    assert len(new) == 8 and new["initial_label"].tolist()[2] == "tie"
    assert str(new["confidence"].dtype) == "float64" and str(new["label"].dtype) == "str"


def test_items_and_raters_found_by_position(store: Store) -> None:
    _session(store)
    items = _items_by_rowid(store)
    new, at = jf.judged_frame(store, items)
    assert at is not None and items["item"].to_numpy()[at].tolist() == new["item"].tolist()
    votes = votes_frame(store, include_skips=True)
    gold = {"i1": "A", "i3": "tie"}
    assert [g if g == g else None for g in votes["gold"]] == [gold.get(i) for i in votes["item"]]
    assert votes["item"].tolist() == ["i1", "i2", "i1", "i3", "i2", "i4", "i4", "i3", "i1"]


@pytest.mark.parametrize("sample, limit", [(1, 64), (20_000, 1), (2, 2)])
def test_texts_the_sample_did_not_show_and_columns_of_many_texts(store: Store, monkeypatch: pytest.MonkeyPatch,
                                                                 sample: int, limit: int) -> None:
    """Codes learnt from one judgment (the rest read alone), or text columns read as text: the same frame."""
    _session(store)
    monkeypatch.setattr(jf, "SAMPLE", sample)
    monkeypatch.setattr(jf, "CASE_LIMIT", limit)
    _same(store)


def test_values_of_another_type_fall_back_to_the_row_read(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Text or a real in a number column, a blob among the sampled texts, a rater not among the annotators:
    read by `coded_frame` itself."""
    _session(store)
    _same(store)
    calls = []
    row_read = jf.coded_judged
    monkeypatch.setattr(jf, "coded_judged", lambda s: calls.append(1) or row_read(s))
    steps = [("UPDATE judgments SET confidence = 'high' WHERE confidence = 5", 1),
             ("UPDATE judgments SET confidence = 2.5 WHERE confidence = 'high'", 2),
             ("UPDATE judgments SET confidence = 5 WHERE confidence = 2.5", 2),
             ("UPDATE judgments SET label = x'41' WHERE label = 'both_bad'", 3),  # in the sample: a row read
             ("UPDATE judgments SET label = 'B' WHERE label = x'41'", 3),
             ("UPDATE assignments SET annotator_id = 99 WHERE annotator_id = 1", 4)]
    store.db.execute("PRAGMA foreign_keys = OFF")
    for sql, row_reads in steps:
        store.db.execute(sql)
        new, _ = jf.judged_frame(store, _items_by_rowid(store))
        pd.testing.assert_frame_equal(new, _reference(store))
        assert len(calls) == row_reads


def test_numbers_past_two_to_the_53_and_missing_items(store: Store) -> None:
    _session(store)
    store.db.execute("UPDATE judgments SET active_ms = 9007199254740993")
    store.db.execute("UPDATE judgments SET confidence = NULL")
    new = _same(store)
    assert str(new["active_ms"].dtype) == "float64" and new["confidence"].isna().all()
    store.db.execute("PRAGMA foreign_keys = OFF")
    store.db.execute("UPDATE assignments SET item_id = 'gone' WHERE item_id = 'i4'")
    new = _same(store)
    assert "gone" in new["item"].tolist()
    assert "gone" in votes_frame(store)["item"].tolist()


def _reference(store: Store) -> pd.DataFrame:
    from annotate.store.frames import coded_frame

    return coded_frame(store, jf.JUDGED_SQL, text=jf.JUDGED_TEXT, lookup=jf.JUDGED_LOOKUP,
                       lookup_sql=jf.ANNOTATORS_SQL)


def test_votes_frame_is_the_merge_of_judgments_labels_and_items(store: Store) -> None:
    """The votes frame with items taken by position is the plain merge of the coded judgments."""
    _session(store)
    votes = votes_frame(store, include_skips=True)
    judged = _reference(store)
    assert votes["judgment_id"].dropna().astype(int).tolist() == judged["judgment_id"].tolist()
    assert votes["item"].tolist()[:len(judged)] == judged["item"].tolist()


def test_read_ints_packs_and_unpacks_in_key_order(store: Store) -> None:
    store.db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, small INTEGER, big INTEGER)")
    rows = [(k, k % 3, (k * 7919) << 38) for k in range(1, 2001)]
    store.db.conn.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
    packing = pack([Field("small", "small", 2), Field("odd", "k % 2", 1), Field("wide", "k", 61)])
    assert len(packing) == 2
    words = read_ints(store.db.conn, "FROM t WHERE k > ?", [10], [sql for sql, _ in packing] + ["big"], "k",
                      (1, 2000), step=333, with_keys=True)
    keys, fields, big = words[0], unpack(words[1:3], packing), words[3]
    assert keys.tolist() == list(range(11, 2001))
    assert fields["small"].tolist() == [k % 3 for k in range(11, 2001)]
    assert fields["odd"].tolist() == [k % 2 for k in range(11, 2001)] and fields["wide"].tolist() == keys.tolist()
    assert big.tolist() == [(k * 7919) << 38 for k in range(11, 2001)]
    with pytest.raises(NotIntegers):
        read_ints(store.db.conn, "FROM t WHERE 1", [], ["CASE WHEN k = 5 THEN NULL ELSE k END"], "k", (1, 10))


def test_queue_positions_are_the_row_read(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from annotate.store.frames import judgment_positions

    _session(store)
    fast = judgment_positions(store)
    monkeypatch.setattr(jf, "queue_positions", lambda s: None)
    slow = judgment_positions(store)
    pd.testing.assert_series_equal(fast, slow)
    assert fast.tolist() == [0, 0, 1, 0, 1, 0] and fast.index.tolist() == [1, 4, 5, 6, 7, 8]


def test_a_blob_the_sample_did_not_show_is_read_alone(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    _session(store)
    monkeypatch.setattr(jf, "SAMPLE", 1)
    store.db.execute("UPDATE judgments SET label = x'41' WHERE label = 'both_bad'")
    monkeypatch.setattr(jf, "coded_judged", lambda s: pytest.fail("read row by row"))
    new, _ = jf.judged_frame(store, _items_by_rowid(store))
    pd.testing.assert_frame_equal(new, _reference(store))
    assert b"A" in new["label"].tolist()


def test_external_labels_read_as_integers_are_the_plain_frame(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Codes from the sample, texts it did not show, a column of many texts, a label on an unknown item."""
    from annotate.store import external_frame as ef
    from annotate.store import text_codes

    _session(store)
    store.add_external_labels([ExternalLabel("mt", f"r{k}", "crowd" if k % 2 else "expert", "i2", "A" if k else "tie",
                                             None if k % 3 else "model_a", shown_first="B" if k == 4 else None)
                               for k in range(6)])
    for sample, limit in ((20_000, 64), (1, 64), (20_000, 2)):
        monkeypatch.setattr(text_codes, "CASE_LIMIT", limit)
        monkeypatch.setattr(text_codes, "SAMPLE", sample)
        new, at = ef.external_frame(store, _items_by_rowid(store))
        pd.testing.assert_frame_equal(new, store.frame(ef.EXTERNAL_SQL))
        assert at is not None and _items_by_rowid(store)["item"].to_numpy()[at].tolist() == new["item"].tolist()
    store.db.execute("PRAGMA foreign_keys = OFF")
    store.db.execute("UPDATE external_labels SET item_id = 'gone' WHERE rater = 'r3'")
    new, at = ef.external_frame(store, _items_by_rowid(store))
    pd.testing.assert_frame_equal(new, store.frame(ef.EXTERNAL_SQL))
    assert at is None and "gone" in votes_frame(store)["item"].tolist()


def test_a_crowds_raters_coded_by_their_annotator_rows(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Raters of more texts than a CASE takes are coded by their annotator's id; a rater without an annotator row
    is read by its key, and annotator ids with a gap leave the raters to the text read."""
    from annotate.store import external_frame as ef
    from annotate.store import text_codes

    _session(store)
    store.add_external_labels([ExternalLabel("mt", f"r{k}", "crowd", "i2" if k % 2 else "i1", "A" if k % 3 else "B")
                               for k in range(40)])
    monkeypatch.setattr(text_codes, "CASE_LIMIT", 4)
    monkeypatch.setattr(text_codes, "SAMPLE", 5)
    asked: list[str] = []
    store.db.conn.set_trace_callback(asked.append)
    new, _ = ef.external_frame(store, _items_by_rowid(store))
    store.db.conn.set_trace_callback(None)
    pd.testing.assert_frame_equal(new, store.frame(ef.EXTERNAL_SQL))
    assert any("SELECT a.id FROM annotators" in q for q in asked)
    assert not any(q.startswith("SELECT e.rater AS rater") for q in asked)  # not read as text
    store.db.execute("PRAGMA foreign_keys = OFF")
    top = store.db.execute("SELECT max(id) FROM annotators").fetchone()[0]
    store.db.execute("UPDATE annotators SET name = 'someone else' WHERE name = 'r7'")  # r7's row is not found
    new, _ = ef.external_frame(store, _items_by_rowid(store))
    pd.testing.assert_frame_equal(new, store.frame(ef.EXTERNAL_SQL))
    store.db.execute("UPDATE annotators SET id = ? WHERE id = ?", [top + 5, top])  # a gap in the ids
    new, _ = ef.external_frame(store, _items_by_rowid(store))
    pd.testing.assert_frame_equal(new, store.frame(ef.EXTERNAL_SQL))
