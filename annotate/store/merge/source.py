"""The copy being merged: opened read-only and checked whole before anything of it is read, its rows
read once, and the columns of a table (the two files may be of different schema versions)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

from annotate.model import Span
from annotate.store import health
from annotate.store.codec import content_hash, item_from_row
from annotate.store.spans import span_key, spans_by_judgment
from annotate.store.store import StoreError

_NEEDED_TABLES = ("items", "annotators", "assignments", "judgments", "events")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def open_read_only(path: Path) -> sqlite3.Connection:
    """The other session file, read-only (never migrated, never written), checked whole first
    (`PRAGMA quick_check`): a damaged copy is refused before anything of it is merged."""
    if not path.is_file():
        raise StoreError(f"{path}: no such session file")
    health.check_before_open(path, create=False)
    try:
        conn = sqlite3.connect(health.read_only_uri(path, health.copy_mode(path)), uri=True)
    except sqlite3.Error as exc:
        raise _copy_error(exc, path) from None
    conn.row_factory = sqlite3.Row
    try:
        health.check_opened(conn, path)
        problems = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            raise health.SessionFileError(
                f"{health.shown(path)}: the copy is damaged (SQLite's check: {problems[0]}); nothing was merged"
            )
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise _copy_error(exc, path) from None
    except BaseException:
        conn.close()
        raise
    missing = [t for t in _NEEDED_TABLES if t not in tables]
    if missing or version < 1:
        conn.close()
        raise StoreError(f"{path}: not a session file (no {', '.join(missing) or 'schema version'})")
    return conn


def _copy_error(exc: sqlite3.Error, path: Path) -> StoreError:
    """An SQLite error reading the copy, as one line naming the copy (not the session)."""
    message = health.describe(exc, path)
    return health.SessionFileError(message) if message else StoreError(f"{path}: not a session file ({exc})")


class _Source:
    """The other file's rows, read once."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        try:
            self.annotators = {r["id"]: (r["name"], r["cohort"], r["created"]) for r in conn.execute(
                "SELECT id, name, cohort, created FROM annotators")}
            self.assignments = {r["id"]: dict(r) for r in conn.execute("SELECT * FROM assignments")}
            self.judgments = [dict(r) for r in conn.execute("SELECT * FROM judgments ORDER BY id")]
            self.events = [dict(r) for r in conn.execute("SELECT * FROM events ORDER BY id")]
            spans = _spans_of(conn, [j["id"] for j in self.judgments])
        except sqlite3.DatabaseError as exc:
            raise _copy_error(exc, path) from None
        self.spans = spans
        """The copy's judgment id -> its error spans (none when the copy predates them)."""
        for row in self.judgments:
            row["_spans"] = span_key(spans.get(row["id"], ()))

    def item(self, item_id: str) -> dict[str, Any] | None:
        """The copy's item row with its content hash recomputed from its content (the stored hash
        is not trusted: an edit in place leaves it stale); `content_hash` is "" when the row cannot
        be read back as an item."""
        try:
            row = self.conn.execute("SELECT * FROM items WHERE id = ?", [item_id]).fetchone()
        except sqlite3.DatabaseError as exc:
            raise _copy_error(exc, self.path) from None
        if row is None:
            return None
        found = dict(row)
        try:
            found["content_hash"] = content_hash(item_from_row(found))
        except (ValueError, KeyError, TypeError):
            found["content_hash"] = ""
        return found

    def key(self, assignment_id: int) -> tuple[str, str, int]:
        row = self.assignments[assignment_id]
        return self.annotators[row["annotator_id"]][0], row["item_id"], row["position"]


def _spans_of(conn: Any, judgment_ids: list[int]) -> dict[int, tuple[Span, ...]]:
    """Judgment id -> error spans, in a file that may predate the spans table (then none)."""
    has_table = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'spans'").fetchone()
    return spans_by_judgment(conn, judgment_ids) if has_table and judgment_ids else {}


def _columns(db: Any, table: str) -> list[str]:
    return [r[1] for r in db.execute(f"PRAGMA table_info({table})").fetchall()]
