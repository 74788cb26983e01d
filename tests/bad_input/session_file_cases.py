"""Broken session files of the corpus: each way the SQLite file can be damaged or lost, and the
commands each is tried with. Every case damages a real file (bytes cut, overwritten, a `-wal`
deleted after a writer was killed), never a faked error."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .spec_cases import edit_spec

FILE_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("status", "s"),
    ("import", "s", "ok.jsonl"),
    ("labels", "import", "s", "votes.csv", "--cohort", "expert"),
    ("labels", "import", "s", "judge.csv", "--as-suggestions"),
    ("start", "s", "--annotator", "alice"),
    ("plan", "s", "--annotators", "alice,bob", "--overlap", "2"),
    ("plan", "s", "--verify"),
    ("report", "s", "--bootstrap", "0"),
    ("export", "s"),
    ("export", "s", "--what", "items", "--format", "jsonl"),
    ("adjudicate", "s", "--annotator", "carol"),
    ("adjudicate", "s", "--list", "--annotator", "carol"),
    ("merge", "s", "other.db"),
    ("experiment", "s", "--dry-run"),
    ("debrief", "s", "--annotator", "alice"),
    ("suggest", "s", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--max-retries", "0"),
    ("backup", "s", "-o", "copy.db"),
)
"""Every command that opens the session file (`other.db`, given to merge, is a good copy)."""

ITEM_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("import", "s", "ok.jsonl"),
    ("labels", "import", "s", "votes.csv", "--cohort", "expert"),
    ("plan", "s", "--annotators", "alice,bob", "--overlap", "2"),
    ("report", "s", "--bootstrap", "0"),
    ("export", "s", "--what", "items", "--format", "jsonl"),
    ("backup", "s", "-o", "copy.db"),
)
"""The commands that read the items table (a damaged page there is found when it is read). Not
`start`: it records its sitting (a row of `sittings`, opened and closed) before it reads the queue,
so on this file it fails with the same one line but leaves that row. Not `status`: it reads the
session's running tallies, never the items, so it works whatever the items' size (and cannot see
a damaged page there)."""


def cut(size: int) -> Callable[[Path], None]:
    def damage(db: Path) -> None:
        db.write_bytes(db.read_bytes()[:size])

    return damage


def overwrite(offset: int, data: bytes) -> Callable[[Path], None]:
    def damage(db: Path) -> None:
        with db.open("r+b") as handle:
            handle.seek(offset)
            handle.write(data)

    return damage


def items_page(db: Path) -> None:
    """Overwrite the items table's root page, its page header included."""
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'items'").fetchone()[0]
    conn.close()
    overwrite((root - 1) * page_size, b"\xde\xad\xbe\xef" * (page_size // 4))(db)


def schema_page(db: Path) -> None:
    """Overwrite page 1 after the 100-byte file header: the schema SQLite reads first."""
    overwrite(100 + 8, b"\x5a" * 3000)(db)


def text_file(db: Path) -> None:
    db.write_bytes(b"id,prompt\n1,hello\n" * 200)


def empty(db: Path) -> None:
    db.write_bytes(b"")


def missing(db: Path) -> None:
    db.unlink()


def a_folder(db: Path) -> None:
    db.unlink()
    db.mkdir()


def foreign_database(db: Path) -> None:
    db.unlink()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    conn.execute("INSERT INTO invoices (total) VALUES (9.5)")
    conn.commit()
    conn.close()


def newer_schema(db: Path) -> None:
    from annotate.store.schema import SCHEMA_VERSION

    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()


KILLED_WRITER = """
import os, signal, sys
from annotate.store import Store
store = Store.open(sys.argv[1])
store.ensure_annotator("zed")
store.set_meta("left", sys.argv[2])
os.kill(os.getpid(), signal.SIGKILL)
"""


def killed_writer(db: Path, left: str = "in the -wal only") -> None:
    """A real writer killed with SIGKILL after committing: its changes (annotator zed, meta `left`)
    are only in the -wal file."""
    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(db), left], capture_output=True, check=False)
    assert done.returncode == -9, done.stderr
    assert Path(f"{db}-wal").stat().st_size > 32 and Path(f"{db}-shm").exists()


def wal_deleted(db: Path) -> None:
    killed_writer(db)
    os.unlink(f"{db}-wal")


def wal_cut(db: Path) -> None:
    killed_writer(db)
    wal = Path(f"{db}-wal")
    wal.write_bytes(wal.read_bytes()[:32])


def move_into(folder: str) -> Callable[[Path], None]:
    """The spec names its file in a subfolder, and the file moves there."""

    def prepare(project: Path) -> None:
        (project / "sessions" / folder).mkdir()
        shutil.move(project / "sessions" / "s.db", project / "sessions" / folder / "s.db")
        edit_spec(project, 'db = "s.db"', f'db = "{folder}/s.db"')

    return prepare


def remove_folder(db: Path) -> None:
    shutil.rmtree(db.parent)


@dataclass(frozen=True)
class FileCase:
    name: str
    damage: Callable[[Path], None]
    """Breaks the session file at this path (or what SQLite keeps beside it)."""
    expected: tuple[str, ...]
    """Substrings of the error: what is wrong, and what to do."""
    commands: tuple[tuple[str, ...], ...] = FILE_COMMANDS
    names: str = "sessions/s.db"
    """The file the error must name (relative to the project)."""
    prepare: Callable[[Path], None] | None = None
    """A change to the project before the damage (say, the spec naming the file in a subfolder)."""
    as_copy: bool = True
    """Also tried as the copy given to `annotate merge`, whose error must name the copy."""


RESTORE = "restore it from a backup"

FILE_CASES = [
    FileCase("file: truncated mid-page", cut(50_000), ("the file is truncated", "50,000 bytes of the", RESTORE)),
    FileCase("file: truncated to its first page", cut(4096), ("the file is truncated", "4,096 bytes", RESTORE)),
    FileCase("file: schema page damaged", schema_page, ("damaged inside", RESTORE)),
    FileCase("file: items page damaged", items_page, ("damaged inside", RESTORE), ITEM_COMMANDS),
    FileCase("file: zeroed header", overwrite(0, bytes(100)), ("not a session file", "header is zeroed", RESTORE)),
    FileCase("file: header damaged", overwrite(18, b"\x07\x07\x07\x07"), ("not a session file", "header is damaged")),
    FileCase("file: not an SQLite file", text_file, ("not a session file", "does not start with an SQLite header")),
    FileCase("file: empty", empty, ("the file is empty (0 bytes)", RESTORE)),
    FileCase("file: missing", missing, ("no such session file", RESTORE), as_copy=False),
    FileCase("file: a folder in its place", a_folder, ("a folder, not a session file",), as_copy=False),
    FileCase("file: an SQLite database of something else", foreign_database,
             ("an SQLite database of something else, not a session file", "[session] db")),
    FileCase("file: written by a newer annotate", newer_schema, ("written by a newer annotate", "upgrade annotate")),
    FileCase("file: its folder missing", remove_folder, ("its folder sessions/data does not exist", RESTORE),
             names="sessions/data/s.db", prepare=move_into("data"), as_copy=False),
    FileCase("file: -wal deleted after its writer was killed", wal_deleted,
             ("s.db-wal is missing", "s.db-shm says it held", "pages of changes", "quit it normally",
              "restore", "to go on without those changes, delete")),
    FileCase("file: -wal cut short after its writer was killed", wal_cut,
             ("s.db-wal is cut short", "s.db-shm says it held", "pages of changes")),
]
