"""`read_ints` reading its ranges on two connections at once: the same arrays as on one, errors raised in the
caller, and one connection only where a second would not read what the first reads."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

from annotate.store import int_columns
from annotate.store.int_columns import READ_THREADS_ENV, NotIntegers, read_ints, side_connection


def _file(tmp_path: Path, rows: int = 5000) -> sqlite3.Connection:
    conn = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER)")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(k, (k * 7919) % 1009 - 500) for k in range(1, rows + 1)])
    conn.execute("COMMIT")
    return conn


def _read(conn: sqlite3.Connection, high: int = 5000) -> list[np.ndarray]:
    return read_ints(conn, "FROM t WHERE k % 7 != 3", [], ["v", "v * 2"], "k", (1, high), step=97, with_keys=True)


def test_two_connections_read_the_same_arrays_as_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = _file(tmp_path)
    threads: set[str] = set()
    real = int_columns._parsed

    def parsed(text: str | None, count: int) -> np.ndarray:
        threads.add(threading.current_thread().name)
        return real(text, count)

    monkeypatch.setattr(int_columns, "_parsed", parsed)
    both = _read(conn)
    assert "annotate-read" in threads  # the side connection read some of the ranges
    monkeypatch.setenv(READ_THREADS_ENV, "1")
    threads.clear()
    one = _read(conn)
    assert threads == {threading.current_thread().name}
    expected = [k for k in range(1, 5001) if k % 7 != 3]
    assert one[0].tolist() == expected
    assert one[1].tolist() == [(k * 7919) % 1009 - 500 for k in expected]
    for a, b in zip(both, one, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_an_error_on_either_connection_is_raised_in_the_caller(tmp_path: Path) -> None:
    conn = _file(tmp_path)
    for bad in (2, 4999):  # an early range (read first on the caller's connection) and a late one
        conn.execute("UPDATE t SET v = NULL WHERE k = ?", [bad])
        with pytest.raises(NotIntegers):
            _read(conn)
        conn.execute("UPDATE t SET v = 1 WHERE k = ?", [bad])
    assert threading.active_count() == 1  # the reading thread has ended


def test_one_connection_where_a_second_would_read_otherwise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = _file(tmp_path)
    side = side_connection(conn)
    assert side is not None
    side.close()
    conn.execute("BEGIN")
    conn.execute("UPDATE t SET v = 0")  # not committed: a second connection would read the old values
    assert side_connection(conn) is None
    assert set(_read(conn)[1].tolist()) == {0}
    conn.execute("ROLLBACK")
    memory = sqlite3.connect(":memory:")
    assert side_connection(memory) is None
    monkeypatch.setenv(READ_THREADS_ENV, "1")
    assert side_connection(conn) is None
