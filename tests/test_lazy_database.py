"""The Store's LazyDatabase (store/database.py) does what sqlite-utils' Database does, and imports it
only when more than a read needs it.

Each check runs the same statements on a LazyDatabase and on a sqlite_utils.Database over two copies
of one file, and compares what they return and what another connection then sees (committed or not).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from annotate.store._sqlite_utils import sqlite_utils
from annotate.store.database import LazyDatabase


def _pair(tmp_path: Path) -> tuple[LazyDatabase, sqlite_utils.Database, Path, Path]:
    paths = []
    for name in ("lazy.db", "real.db"):
        path = tmp_path / name
        conn = sqlite3.connect(path)
        conn.executescript("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b INTEGER);"
                           "CREATE TABLE u (id INTEGER PRIMARY KEY, a TEXT);"
                           "INSERT INTO t VALUES (1, 'x', 10), (2, 'y', 20); INSERT INTO u VALUES (1, 'ux');")
        conn.close()
        paths.append(path)
    lazy = LazyDatabase(sqlite3.connect(paths[0], check_same_thread=False))
    real = sqlite_utils.Database(sqlite3.connect(paths[1], check_same_thread=False), execute_plugins=False)
    return lazy, real, paths[0], paths[1]


def _seen_from_outside(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT * FROM t ORDER BY id").fetchall()
    finally:
        conn.close()


QUERIES = [
    ("SELECT * FROM t ORDER BY id", None),
    ("SELECT a, b FROM t WHERE id = ?", [2]),
    ("SELECT t.id, u.id, t.a, u.a FROM t JOIN u ON u.id = t.id", None),  # duplicate names: renamed
    ("  select count(*) AS n FROM t", None),
]


@pytest.mark.parametrize(("sql", "params"), QUERIES)
def test_a_select_query_gives_what_sqlite_utils_gives(tmp_path: Path, sql: str, params: list | None) -> None:
    lazy, real, _, _ = _pair(tmp_path)
    assert list(lazy.query(sql, params)) == list(real.query(sql, params))
    assert lazy.conn.in_transaction is real.conn.in_transaction is False
    lazy.execute("BEGIN IMMEDIATE")
    real.execute("BEGIN IMMEDIATE")
    assert list(lazy.query(sql, params)) == list(real.query(sql, params))
    assert lazy.conn.in_transaction and real.conn.in_transaction
    assert not lazy.loaded or "u.id" in sql


def test_reads_pragmas_and_begin_do_not_import_sqlite_utils_writes_go_to_it(tmp_path: Path) -> None:
    lazy, real, lazy_path, real_path = _pair(tmp_path)
    for db in (lazy, real):
        assert db.execute("PRAGMA recursive_triggers").fetchone() == (1,)
        assert db.execute("SELECT b FROM t WHERE id = ?", [1]).fetchone() == (10,)
    assert not lazy.loaded
    for db in (lazy, real):  # a write outside a transaction: sqlite-utils commits it at once
        db.execute("INSERT INTO t (a, b) VALUES (?, ?)", ["z", 30])
        assert not db.conn.in_transaction
    assert lazy.loaded
    assert _seen_from_outside(lazy_path) == _seen_from_outside(real_path)


def test_a_write_in_a_transaction_is_committed_only_by_commit(tmp_path: Path) -> None:
    lazy, real, lazy_path, real_path = _pair(tmp_path)
    for db in (lazy, real):
        db.execute("BEGIN IMMEDIATE")
        db.execute("UPDATE t SET b = b + 1")
    assert not lazy.loaded  # inside a transaction every statement runs as it is
    assert _seen_from_outside(lazy_path) == _seen_from_outside(real_path) == [(1, "x", 10), (2, "y", 20)]
    for db in (lazy, real):
        db.execute("COMMIT")
    assert _seen_from_outside(lazy_path) == _seen_from_outside(real_path) == [(1, "x", 11), (2, "y", 21)]


def test_once_sqlite_utils_is_loaded_reads_and_statements_in_a_transaction_still_run_here(tmp_path: Path) -> None:
    """Loaded (the app loads it after the first paint), sqlite-utils' `execute` would only wrap the same
    calls: they skip it (its tracer sees none of them), and what they do is what it does."""
    lazy, real, lazy_path, real_path = _pair(tmp_path)
    traced: list[str] = []
    with lazy.load().tracer(lambda sql, params: traced.append(sql)):
        for db in (lazy, real):
            assert list(db.query("SELECT a FROM t WHERE id = ?", [2])) == [{"a": "y"}]
            db.execute("BEGIN IMMEDIATE")
            db.execute("UPDATE t SET b = b + 1 WHERE id = ?", [1])
            assert db.execute("SELECT b FROM t WHERE id = 1").fetchone() == (11,)
            assert list(db.query("SELECT b FROM t ORDER BY id")) == [{"b": 11}, {"b": 20}]
            db.execute("COMMIT")
        assert traced == []
        lazy.execute("INSERT INTO t (a, b) VALUES (?, ?)", ["z", 30])  # outside a transaction: its own
        real.execute("INSERT INTO t (a, b) VALUES (?, ?)", ["z", 30])
    assert traced == ["INSERT INTO t (a, b) VALUES (?, ?)"]
    assert not lazy.conn.in_transaction
    assert _seen_from_outside(lazy_path) == _seen_from_outside(real_path) == [(1, "x", 11), (2, "y", 20), (3, "z", 30)]


def test_prepare_compiles_without_running_reading_or_locking(tmp_path: Path) -> None:
    """`prepare` leaves no transaction open and takes no lock (another connection writes meanwhile), a
    bad statement fails as it would when run, and one without parameters (which would run) is refused."""
    lazy, _, lazy_path, _ = _pair(tmp_path)
    lazy.prepare("INSERT INTO t (a, b) VALUES (?, ?)", "UPDATE t SET b = ? WHERE id = ?")
    assert not lazy.conn.in_transaction
    other = sqlite3.connect(lazy_path, timeout=0)
    other.execute("BEGIN IMMEDIATE")
    lazy.conn.execute("PRAGMA busy_timeout = 0")  # a lock asked for now would fail at once
    lazy.prepare("DELETE FROM t WHERE id = ?")
    with pytest.raises(sqlite3.OperationalError, match="no such column"):
        lazy.prepare("UPDATE t SET c = ? WHERE id = ?")
    other.execute("INSERT INTO t (a, b) VALUES ('o', 1)")
    other.commit()
    assert _seen_from_outside(lazy_path) == [(1, "x", 10), (2, "y", 20), (3, "o", 1)]
    with pytest.raises(ValueError, match="without parameters"):
        lazy.prepare("DELETE FROM t")
    rows = lazy.conn.execute("SELECT id FROM t ORDER BY id")  # a read streaming meanwhile goes on
    assert rows.fetchone() == (1,)
    lazy.prepare("INSERT INTO u (a) VALUES (?)")
    assert rows.fetchall() == [(2,), (3,)]
    assert not lazy.conn.in_transaction and lazy.conn.isolation_level == ""
    lazy.execute("BEGIN IMMEDIATE")
    lazy.execute("INSERT INTO t (a, b) VALUES (?, ?)", ["p", 2])
    lazy.execute("COMMIT")
    assert _seen_from_outside(lazy_path)[-1] == (4, "p", 2)


def test_the_table_api_and_atomic_are_sqlite_utils_own(tmp_path: Path) -> None:
    lazy, real, lazy_path, real_path = _pair(tmp_path)
    for db in (lazy, real):
        with db.atomic():
            db["t"].insert({"id": 3, "a": "w", "b": 40})
        assert db["t"].count == 3
        assert db.table_names() == ["t", "u"]
    assert _seen_from_outside(lazy_path) == _seen_from_outside(real_path)
    lazy.close()
    with pytest.raises(sqlite3.ProgrammingError):
        lazy.conn.execute("SELECT 1")


def test_a_statement_that_is_not_a_select_is_not_queried_here(tmp_path: Path) -> None:
    lazy, real, _, _ = _pair(tmp_path)
    for db in (lazy, real):
        with pytest.raises(ValueError, match="returns rows"):
            list(db.query("UPDATE t SET b = 0"))
    assert lazy.loaded
    assert list(lazy.query("SELECT b FROM t")) == list(real.query("SELECT b FROM t")) == [{"b": 10}, {"b": 20}]


OPEN_AND_READ = """
import sys
from pathlib import Path
from annotate.model import Assignment, Judgment, Timings
from annotate.store import Store
with Store.open(Path(sys.argv[1])) as store:
    store.get_meta("plan_hash")
    store.newest_item_rowid()
    print("sqlite_utils" in sys.modules, store.db.loaded)
    store.set_meta("x", "1")
    [a] = store.add_assignments([Assignment(0, "ann", "i1", 0, False)])
    store.submit(Judgment(a.id, "A", Timings("2026-01-01T00:00:00Z", 1, 2, 2)), [])
    print("sqlite_utils" in sys.modules, store.db.loaded)
    store.db["meta"].count
    print("sqlite_utils" in sys.modules, store.db.loaded, store.get_meta("x"))
"""


def test_opening_a_session_reading_and_a_first_start_s_writes_do_not_import_sqlite_utils(tmp_path: Path) -> None:
    """Opening and reading, the meta a start writes, a first queue (the annotator made with it) and a
    submit run without sqlite-utils; what needs more than that imports it then."""
    from conftest import make_item

    from annotate.store import Store

    path = tmp_path / "s.db"
    with Store.open(path, create=True) as store:
        store.add_items([make_item("i1")])
    result = subprocess.run([sys.executable, "-c", OPEN_AND_READ, str(path)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False", "False", "False", "True", "True", "1"]
