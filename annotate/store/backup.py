"""`annotate backup`: a consistent copy of a session file, safe to take while annotators write.

The copy is made with SQLite's online backup API in one step, from one read snapshot: writers carry
on meanwhile (WAL), and the copy holds exactly the judgments committed when it started. It is
written to a temporary file beside the target, turned into a single self-contained file (no
`-wal`), checked with `PRAGMA integrity_check`, and only then renamed into place, so a target is
never left half-written and a damaged session never passes for a good backup.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from annotate.store.errors import StoreError
from annotate.store.health import BACKUP_FOLDER, shown
from annotate.store.store import Store


@dataclass(frozen=True)
class BackupReport:
    """What a backup wrote."""

    path: Path
    bytes: int
    items: int
    annotators: int
    judgments: int


def default_backup_path(db: Path, now: datetime | None = None) -> Path:
    """`backups/<file name>-YYYYmmdd-HHMMSS.db` (UTC) beside the session file; `-2`, `-3`, ... when
    one already has that name (two backups in the same second)."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    folder = db.parent / BACKUP_FOLDER
    target = folder / f"{db.stem}-{stamp}.db"
    number = 1
    while target.exists():
        number += 1
        target = folder / f"{db.stem}-{stamp}-{number}.db"
    return target


def sidecars(db: Path) -> list[Path]:
    """A database file and what SQLite keeps beside it."""
    return [db, *(Path(f"{db}{suffix}") for suffix in ("-wal", "-shm", "-journal"))]


def backup_session(store: Store, target: Path) -> BackupReport:
    """Copy the open session `store` to `target` (checked first with `annotate.outputs.check_output`) and verify it."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"{shown(target.parent)}: cannot create the backup's folder ({exc.strerror}); write it elsewhere"
            " with -o PATH"
        ) from None
    temporary = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        report = _copy(store, temporary, target)
        os.replace(temporary, target)
    finally:
        for leftover in sidecars(temporary):
            leftover.unlink(missing_ok=True)
    return report


_SOURCE_DAMAGE = (11, 26)
"""SQLITE_CORRUPT, SQLITE_NOTADB: a backup failing so is the session file's fault, not the target's."""


def _copy(store: Store, temporary: Path, target: Path) -> BackupReport:
    try:
        copy = sqlite3.connect(temporary)
    except sqlite3.Error as exc:
        raise _target_error(target, exc) from None
    try:
        try:
            store.db.conn.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, however the session is kept
        except sqlite3.Error as exc:
            if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF in _SOURCE_DAMAGE:
                raise  # the session's own damage: Store.__exit__ says so, naming the session file
            raise _target_error(target, exc) from None
        problems = [row[0] for row in copy.execute("PRAGMA integrity_check").fetchall()]
        if problems != ["ok"]:
            raise StoreError(
                f"{shown(store.path)}: the session file is damaged (SQLite's integrity check of the copy: "
                f"{problems[0]}{f' and {len(problems) - 1} more' if len(problems) > 1 else ''}); no backup was"
                " written; restore an earlier backup"
            )
        counts = [copy.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                  for table in ("items", "annotators", "judgments")]
    finally:
        copy.close()
    return BackupReport(target, temporary.stat().st_size, *counts)


def _target_error(target: Path, exc: sqlite3.Error) -> StoreError:
    return StoreError(
        f"{shown(target)}: the backup could not be written ({exc}); check that its folder is writable and has"
        " space (and that `ulimit -f` allows a file this size); nothing was replaced"
    )


def _what(path: Path) -> str:
    name = path.name
    if name.endswith(("-wal", "-shm", "-journal")):
        return f"SQLite {name.rsplit('-', 1)[1]} file ({shown(path)})"
    if path.suffix == ".toml":
        return f"spec ({shown(path)})"
    return f"file ({shown(path)})"
