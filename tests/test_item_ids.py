"""The ids a default queue draws from (`annotate.store.item_ids`): read by rowid when asked for where the
rowids have no gap, as a list read through the id index where they have; the same queue either way."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import make_item

from annotate.plan import ensure_default_queue
from annotate.plan.default import draw_default_queue
from annotate.session import create_session
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.store.item_ids import GATHER_ROWS, RowidIds


def _session(tmp_path: Path, n: int, name: str = "s") -> SessionSpec:
    spec = create_session(name, "pairwise", seed=3, folder=tmp_path / name)
    with Store.open(spec.db) as store:
        store.add_items([make_item(f"i{(i * 7919) % 10007:05d}") for i in range(n)])  # ids not in rowid order
    return spec


def _delete_items(spec: SessionSpec, ids: list[str]) -> None:
    """What another tool may do to the file (annotate never deletes an item)."""
    with sqlite3.connect(spec.db) as db:
        db.executemany("DELETE FROM items WHERE id = ?", [(i,) for i in ids])


def test_without_gaps_the_ids_are_read_by_rowid_when_asked_for(tmp_path: Path) -> None:
    n = 2 * GATHER_ROWS + 17
    spec = _session(tmp_path, n)
    with Store.open(spec.db) as store:
        every = store.item_ids()
        ids, newest = store.queue_item_ids()
        assert isinstance(ids, RowidIds) and newest == store.newest_item_rowid()
        assert list(ids) == every and len(ids) == n
        assert ids[5] == every[5] and ids[-1] == every[-1] and ids[3:9] == every[3:9]
        places = [n - 1, 0, 700, 3, 700]
        assert ids.gather(places) == [every[p] for p in places]
        with pytest.raises(IndexError):
            ids[n]
        upto_ids, upto = store.queue_item_ids(400)
        assert list(upto_ids) == every[:400] and upto == 400
        assert store.queue_item_ids(10 ** 9)[1] == newest


def test_with_gaps_the_ids_are_a_list_in_rowid_order(tmp_path: Path) -> None:
    spec = _session(tmp_path, 60)
    with Store.open(spec.db) as store:
        every = store.item_ids()
    _delete_items(spec, [every[0], every[31]])
    with Store.open(spec.db) as store:
        ids, newest = store.queue_item_ids()
        assert not isinstance(ids, RowidIds)
        assert list(ids) == store.item_ids() == [i for i in every if i not in (every[0], every[31])]
        assert newest == store.newest_item_rowid()
        head, upto = store.queue_item_ids(40)
        assert list(head) == [i for i in every[:40] if i not in (every[0], every[31])] and upto == 40


def test_a_queue_drawn_from_lazy_ids_is_the_one_drawn_from_the_list(tmp_path: Path) -> None:
    spec = _session(tmp_path, 1234)
    with Store.open(spec.db) as store:
        lazy, _ = store.queue_item_ids()
        assert isinstance(lazy, RowidIds)
        drawn = draw_default_queue(lazy, spec.seed, "ann")
        listed = draw_default_queue(store.item_ids(), spec.seed, "ann")
        assert list(drawn) == list(listed)
        assert [drawn[i] for i in (0, 5, 1233)] == [listed[i] for i in (0, 5, 1233)]
        ensure_default_queue(store, spec, "ann", chunk_rows=100)
        assert [(a.item_id, a.position, a.swapped) for a in store.assignments("ann")] == [
            (a.item_id, a.position, a.swapped) for a in listed]


def test_a_gapped_file_still_gets_every_item_once(tmp_path: Path) -> None:
    spec = _session(tmp_path, 300)
    with Store.open(spec.db) as store:
        every = store.item_ids()
    _delete_items(spec, every[100:110])
    with Store.open(spec.db) as store:
        ensure_default_queue(store, spec, "ann", chunk_rows=50)
        queue = store.assignments("ann")
        assert sorted(a.item_id for a in queue) == sorted(store.item_ids())
        assert [a.position for a in queue] == list(range(290))


def test_an_item_gone_under_the_draw_is_an_error_naming_the_file(tmp_path: Path) -> None:
    spec = _session(tmp_path, 20)
    with Store.open(spec.db) as store:
        ids, _ = store.queue_item_ids()
        assert isinstance(ids, RowidIds)
        store.db.execute("DELETE FROM items WHERE rowid = 7")
        with pytest.raises(LookupError, match=r"rowid 7 in .*s\.db"):
            ids.gather([1, 6])


def test_reading_every_id_in_turn_takes_ranges_not_an_id_a_query(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    from annotate.store import item_ids

    monkeypatch.setattr(item_ids, "ITER_ROWS", 100)
    spec = _session(tmp_path, 345)
    with Store.open(spec.db) as store:
        ids, _ = store.queue_item_ids()
        queries: list[str] = []
        store.db.conn.set_trace_callback(queries.append)
        assert list(ids) == store.item_ids()
        store.db.conn.set_trace_callback(None)
        assert sum("BETWEEN" in q for q in queries) == 4 and not any("IN (" in q for q in queries)
        store.db.execute("DELETE FROM items WHERE rowid = 250")
        with pytest.raises(LookupError, match="rowid 250"):
            list(ids)
