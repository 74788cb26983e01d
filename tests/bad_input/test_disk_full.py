"""A full disk and a file-size limit, for real: SQLite's `max_page_count` makes the file unable to
grow (SQLITE_FULL, exactly what a full disk gives), and RLIMIT_FSIZE in a child process makes the
operating system refuse a write past the limit (EFBIG). Each command that would grow the file
fails with one line that says what happened and that nothing was written, and the file is left
as it was; the annotation screen shows NOT SAVED with the reason and carries on."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from formats_util import cli, pair

from .file_cases import lines
from .restricted import run_commands
from .spec_cases import session_files

BIG_ITEMS = 400
"""Items of about 1 kB each: a few hundred new pages, far past every limit below."""

GROWING: tuple[tuple[str, ...], ...] = (
    ("import", "s", "big.jsonl"),
    ("labels", "import", "s", "votes.csv", "--cohort", "crowd"),
    ("plan", "s", "--annotators", ",".join(f"a{i}" for i in range(40)), "--overlap", "40"),
)
"""Commands that grow the session file by many pages."""


def project_with_inputs(seeded: Path, root: Path) -> Path:
    project = root / "project"
    shutil.copytree(seeded / "sessions", project / "sessions")
    (project / "big.jsonl").write_bytes(lines(*(pair(f"big{i}", prompt="x" * 1000) for i in range(BIG_ITEMS))))
    votes = "".join(f"n1,rater{i},A\nn2,rater{i},B\n" for i in range(2000))
    (project / "votes.csv").write_text("item,rater,label\n" + votes)
    return project


def limited_connect(real: object) -> object:
    """sqlite3.connect, then the file may not grow by a single page (as on a full disk)."""

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = real(*args, **kwargs)  # type: ignore[operator]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {max(pages, 1)}")
        return conn

    return connect


@pytest.mark.parametrize("command", GROWING, ids=[c[0] + ("-labels" if c[0] == "labels" else "") for c in GROWING])
def test_a_full_disk_is_one_line_and_nothing_is_written(
    command: tuple[str, ...], seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = project_with_inputs(seeded, tmp_path)
    monkeypatch.chdir(project)
    before = session_files(project)
    with monkeypatch.context() as patched:
        patched.setattr(sqlite3, "connect", limited_connect(sqlite3.connect))
        result = cli(*command)
    error = result.stderr.strip()
    assert result.exit_code == 1 and error.count("\n") == 0, result.output
    assert error.startswith("Error: sessions/s.db: the disk is full (or the file reached its size limit): nothing"
                            " of this change was written; free some space and try again"), error
    assert session_files(project) == before
    assert cli("status", "s").exit_code == 0


def test_a_file_size_limit_is_one_line_and_nothing_is_written(seeded: Path, tmp_path: Path) -> None:
    project = project_with_inputs(seeded, tmp_path)
    before = session_files(project)
    limit = 64 * 1024
    results = run_commands([*GROWING, ("backup", "s", "-o", "../copy.db")], project, file_size_limit=limit)
    for done in results:
        error = done["stderr"].strip()
        assert not done["traceback"], f"{done['args']}: {done['traceback']}"
        assert done["code"] == 1 and error.count("\n") == 0, f"{done['args']}: {done['stdout']} {error}"
    for done in results[:-1]:
        error = done["stderr"].strip()
        assert error.startswith("Error: sessions/s.db: "), error
        assert "nothing of this change was written" in error and ("disk is full" in error or "ulimit -f" in error)
    backup = results[-1]["stderr"].strip()
    assert backup.startswith("Error: ../copy.db: the backup could not be written") and "nothing was replaced" in backup
    assert session_files(project) == before
    assert not (tmp_path / "copy.db").exists() and not list(tmp_path.glob(".copy.db*"))
    assert "items     8" in cli_status(project)


def cli_status(project: Path) -> str:
    (done,) = run_commands([("status", "s")], project)
    assert done["code"] == 0, done["stderr"]
    return done["stdout"]


def test_the_backup_of_a_session_that_is_fine_is_byte_for_byte_its_content(seeded: Path, tmp_path: Path) -> None:
    project = project_with_inputs(seeded, tmp_path)
    (done,) = run_commands([("backup", "s", "-o", "../copy.db")], project)
    assert done["code"] == 0, done["stderr"]
    conn = sqlite3.connect(tmp_path / "copy.db")
    original = sqlite3.connect(project / "sessions" / "s.db")
    try:
        def dump(c: sqlite3.Connection) -> str:
            return hashlib.sha256("\n".join(c.iterdump()).encode()).hexdigest()

        assert dump(conn) == dump(original)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    finally:
        conn.close()
        original.close()
