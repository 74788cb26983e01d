"""The Store's connection: sqlite-utils' Database, imported only when something needs more than a read.

Importing sqlite-utils costs ~0.13 s of CPU (its own large module, dateutil, pluggy, decimal), and
the annotation app's way to its first item needs none of it: opening the file, the health and
schema checks, reading the queue and the first item are plain reads, PRAGMAs and `BEGIN`s. So the
Store holds a `LazyDatabase`: it runs those statements on the connection itself, and hands
everything else (writes outside a transaction, `db["table"]`, `atomic()`, ...) to a real
`sqlite_utils.Database` on the same connection, made the first time one is needed (the app makes
it on its store thread right after the first paint, before any answer is written). Once it is made,
those statements still run here. A first start's writes (the default queue, the meta, a submit)
need none of it.

`prepare` compiles write statements ahead, outside the write lock (a write's first statements on a
connection are compiled while every other writer waits: the judgments' INSERT and UPDATE carry some
2,000 instructions of tally, vote and queue triggers each, about 1 ms apiece).

What it runs itself is exactly what sqlite-utils would run for those statements (checked against
it in tests/test_lazy_database.py): sqlite-utils' `execute` only adds a COMMIT after a statement
that opened an implicit transaction (a write outside one; SQLite's Python driver opens one before
INSERT, UPDATE, DELETE and REPLACE only), and its `query` of a SELECT reads the same rows inside a
savepoint, as dicts keyed by column name (duplicate names renamed: that rare case goes to it).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annotate.store._sqlite_utils import sqlite_utils

_RUN_HERE = frozenset({"SELECT", "PRAGMA", "BEGIN"})
"""Statements whose sqlite-utils `execute` is the connection's own: none opens an implicit transaction."""


def _first_word(sql: str) -> str:
    """The statement's first word, upper-cased ("" or a comment's `--`/`/*` when it starts with one:
    such a statement is left to sqlite-utils)."""
    words = sql.split(None, 1)
    return words[0].upper() if words else ""


class LazyDatabase:
    """A connection's reads run here; everything else on a `sqlite_utils.Database` made on first use."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.conn.execute("PRAGMA recursive_triggers=on;")  # what sqlite_utils.Database does on opening
        self._real: sqlite_utils.Database | None = None
        self._lock = threading.Lock()

    def load(self) -> sqlite_utils.Database:
        """The sqlite-utils Database on this connection (imported and made on the first call)."""
        if self._real is None:
            with self._lock:
                if self._real is None:
                    from annotate.store._sqlite_utils import sqlite_utils

                    self._real = sqlite_utils.Database(self.conn, execute_plugins=False)  # no plugin scan
        return self._real

    @property
    def loaded(self) -> bool:
        """Whether the sqlite-utils Database has been made (and sqlite-utils imported)."""
        return self._real is not None

    def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] | None = None) -> sqlite3.Cursor:
        """sqlite-utils' `execute`: run here inside a transaction or for a read, a PRAGMA or a BEGIN, also
        once sqlite-utils is loaded (its `execute` of those is the connection's own, behind a tracer
        annotate never sets: a submit's dozen statements skip its wrapper)."""
        if self.conn.in_transaction or _first_word(sql) in _RUN_HERE:
            return self.conn.execute(sql) if parameters is None else self.conn.execute(sql, parameters)
        return self.load().execute(sql, parameters)

    def prepare(self, *statements: str) -> None:
        """Compile `statements` into the connection's statement cache without running them: nothing is
        read or written and no lock is taken, so a write's first use of them compiles nothing while it
        holds the write lock. Python's sqlite3 compiles a statement (and caches it by its text) before
        binding its parameters, so running it with none bound stops right after the compile; each
        statement must take parameters (one without `?` is refused: it would run). An SQL error is
        raised as running the statement would raise it. Outside a transaction the driver would open its
        implicit one (a deferred BEGIN) before binding a write's parameters: it is told not to for these
        calls, so no transaction is opened or ended here (ending one would abort a read still streaming)."""
        level = self.conn.isolation_level
        if not self.conn.in_transaction:
            self.conn.isolation_level = None  # no implicit BEGIN (and, outside a transaction, no COMMIT)
        try:
            for sql in statements:
                if "?" not in sql:
                    raise ValueError(f"prepare: a statement without parameters would run: {sql[:60]!r}")
                try:
                    self.conn.execute(sql, ())
                except sqlite3.ProgrammingError as exc:
                    if "Incorrect number of bindings" not in str(exc):
                        raise
                else:
                    raise ValueError(f"prepare: {sql[:60]!r} ran: it takes no parameters")
        finally:
            if self.conn.isolation_level != level:
                self.conn.isolation_level = level

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """sqlite-utils' `query`: a SELECT's rows as dicts, run here (loaded or not); any other statement
        goes to it."""
        if _first_word(sql) != "SELECT":
            return self.load().query(sql, params)
        in_transaction = self.conn.in_transaction
        if not in_transaction:
            self.conn.execute('SAVEPOINT "sqlite_utils_query"')
        try:
            cursor = self.conn.execute(sql) if params is None else self.conn.execute(sql, params)
            keys = [d[0] for d in cursor.description]
        except BaseException:
            if not in_transaction and self.conn.in_transaction:
                self.conn.execute('ROLLBACK TO "sqlite_utils_query"')
                self.conn.execute('RELEASE "sqlite_utils_query"')
            raise
        if not in_transaction:
            self.conn.execute('RELEASE "sqlite_utils_query"')
        if len(set(keys)) != len(keys):  # duplicate column names: sqlite-utils renames them
            from annotate.store._sqlite_utils import sqlite_utils

            keys = sqlite_utils.utils.dedupe_keys(keys)
        return (dict(zip(keys, row, strict=True)) for row in cursor)

    def close(self) -> None:
        """Close the connection (all sqlite-utils' `close` does)."""
        self.conn.close()

    def __getitem__(self, table_name: str) -> Any:
        return self.load()[table_name]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_real", "_lock", "conn"):
            raise AttributeError(name)
        return getattr(self.load(), name)
