"""Read-only sessions, for real: the session file, its folder or its `-wal`/`-shm` not writable for
the user running the command (in a child process that cannot override file permissions, since tests
run as root), or the session folder on a read-only mount. `status`, `report`, `export` and `backup`
still work; every command that would write says the file is read-only in one line; nothing
changes."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from formats_util import pair

from .file_cases import lines
from .restricted import read_only_mount_command, require_permissions_apply, run_commands
from .session_file_cases import killed_writer

READS: tuple[tuple[str, ...], ...] = (
    ("status", "s"),
    ("report", "s", "--bootstrap", "0"),
    ("report", "s", "--bootstrap", "0", "--format", "json"),
    ("export", "s"),
    ("export", "s", "--what", "items", "--format", "jsonl"),
    ("backup", "s", "-o", "../copy.db"),
    ("adjudicate", "s", "--list", "--annotator", "carol"),
)
"""Commands that only read: each must work on a read-only session."""

WRITES: tuple[tuple[str, ...], ...] = (
    ("import", "s", "ok.jsonl"),
    ("labels", "import", "s", "votes.csv", "--cohort", "expert"),
    ("labels", "import", "s", "judge.csv", "--as-suggestions"),
    ("plan", "s", "--annotators", "alice,bob", "--overlap", "2"),
    ("merge", "s", "other.db"),
    ("start", "s", "--annotator", "alice"),
    ("adjudicate", "s", "--annotator", "carol"),
    ("suggest", "s", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--max-retries", "0"),
)
"""Commands that write: each must refuse, saying the session is read-only."""


def chmod(mode: int, *names: str) -> Callable[[Path], None]:
    def setup(project: Path) -> None:
        for name in names:
            (project / name).chmod(mode)

    return setup


def both(*setups: Callable[[Path], None]) -> Callable[[Path], None]:
    def setup(project: Path) -> None:
        for each in setups:
            each(project)

    return setup


def pending_wal(project: Path) -> None:
    """A writer killed after committing: its change (annotator zed) is only in the -wal file."""
    killed_writer(project / "sessions" / "s.db")


def forget_identity(project: Path) -> None:
    """A file written before sessions recorded their identity (which a writer would claim)."""
    conn = sqlite3.connect(project / "sessions" / "s.db")
    conn.execute("DELETE FROM meta WHERE key = 'session'")
    conn.commit()
    conn.close()


@dataclass(frozen=True)
class ReadOnlyCase:
    name: str
    setup: Callable[[Path], None]
    reason: str
    """What the refusal must give as the reason."""
    mount: bool = False
    """Run with sessions/ on a read-only mount."""


READ_ONLY_CASES = [
    ReadOnlyCase("read-only: the file", chmod(0o444, "sessions/s.db"), "sessions/s.db is not writable for you"),
    ReadOnlyCase("read-only: its folder", chmod(0o555, "sessions"), "its folder sessions is not writable for you"),
    ReadOnlyCase("read-only: the file and its folder", both(chmod(0o444, "sessions/s.db"), chmod(0o555, "sessions")),
                 "sessions/s.db is not writable for you"),
    ReadOnlyCase("read-only: its -wal and -shm, holding changes",
                 both(pending_wal, chmod(0o444, "sessions/s.db-wal", "sessions/s.db-shm")),
                 "sessions/s.db-wal is not writable for you"),
    ReadOnlyCase("read-only: the folder, with changes in its -wal",
                 both(pending_wal, chmod(0o555, "sessions")), "its folder sessions is not writable for you"),
    ReadOnlyCase("read-only: a file that records no session yet", both(forget_identity, chmod(0o444, "sessions/s.db")),
                 "sessions/s.db is not writable for you"),
    ReadOnlyCase("read-only: the file system", lambda project: None,
                 "the file system holding sessions is read-only", mount=True),
]


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def assert_unchanged(sessions: Path, before: dict[str, str]) -> None:
    """The session's files hold the same bytes. The `-shm` file is SQLite's shared-memory index,
    which any reader may rebuild and which holds no data; an empty `-wal` may appear beside it."""
    after = digests(sessions)
    for name, digest in before.items():
        if not name.endswith("-shm"):
            assert after.get(name) == digest, f"{name} changed"
    for name in after.keys() - before.keys():
        assert name.endswith("-shm") or (sessions / name).stat().st_size == 0, f"{name} appeared, not empty"


@pytest.fixture
def project(seeded: Path, tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(seeded / "sessions", project / "sessions")
    (project / "ok.jsonl").write_bytes(lines(pair("fresh")))
    (project / "votes.csv").write_bytes(b"item,rater,label\nn1,zed,A\n")
    (project / "judge.csv").write_bytes(b"item,rater,label\nn1,gpt,A\n")
    shutil.copy(project / "sessions" / "s.db", project / "other.db")
    return project


@pytest.mark.parametrize("case", READ_ONLY_CASES, ids=[c.name for c in READ_ONLY_CASES])
def test_a_read_only_session_is_read_and_never_written(case: ReadOnlyCase, project: Path) -> None:
    sessions = project / "sessions"
    prefix = read_only_mount_command(sessions) if case.mount else []
    if not case.mount:
        require_permissions_apply(project)
    case.setup(project)
    before = digests(sessions)
    try:
        results = run_commands([*READS, *WRITES], project, unprivileged=not case.mount, prefix=prefix)
    finally:
        sessions.chmod(0o755)
    assert_unchanged(sessions, before)
    by_args = {tuple(r["args"]): r for r in results}
    for command in READS:
        done = by_args[command]
        assert not done["traceback"], f"{command}: {done['traceback']}"
        assert done["code"] == 0, f"{command}: {done['stderr']}"
    status = by_args[("status", "s")]["stdout"]
    assert f"READ-ONLY: {case.reason}" in status and "items     8" in status
    assert json.loads(by_args[("report", "s", "--bootstrap", "0", "--format", "json")]["stdout"])
    assert by_args[("export", "s", "--what", "items", "--format", "jsonl")]["stdout"].count("\n") == 8
    assert (project.parent / "copy.db").stat().st_size > 0
    for command in WRITES:
        done = by_args[command]
        error = done["stderr"].strip()
        assert not done["traceback"], f"{command}: {done['traceback']}"
        assert done["code"] == 1 and error.count("\n") == 0, f"{command}: {done['stdout']} {error}"
        assert error.startswith(f"Error: sessions/s.db: read-only ({case.reason})"), f"{command}: {error}"
        assert "status, report, export and backup still work" in error


def test_a_read_only_session_shows_changes_only_in_its_wal(project: Path) -> None:
    """Opened read-only, the session still reads the -wal file a killed writer left (annotator zed)."""
    require_permissions_apply(project)
    pending_wal(project)
    chmod(0o555, "sessions")(project)
    try:
        (result,) = run_commands([("export", "s", "--what", "labels")], project, unprivileged=True)
        probe = run_commands([("status", "s")], project, unprivileged=True)[0]
    finally:
        (project / "sessions").chmod(0o755)
    assert result["code"] == 0, result["stderr"]
    assert "READ-ONLY" in probe["stdout"]
    from annotate.store import Store

    with Store.open(project / "sessions" / "s.db") as store:
        assert store.annotator("zed") is not None and store.get_meta("left") == "in the -wal only"


def test_a_read_only_file_of_an_older_annotate_says_it_must_be_upgraded_by_a_writer(project: Path) -> None:
    from annotate.store.schema import SCHEMA_VERSION

    require_permissions_apply(project)
    conn = sqlite3.connect(project / "sessions" / "s.db")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    conn.close()
    chmod(0o444, "sessions/s.db")(project)
    before = digests(project / "sessions")
    (done,) = run_commands([("status", "s")], project, unprivileged=True)
    assert done["code"] == 1 and not done["traceback"]
    assert done["stderr"].startswith(f"Error: sessions/s.db: written by an older annotate (schema {SCHEMA_VERSION - 1}"
                                     f" of {SCHEMA_VERSION}) and read-only (sessions/s.db is not writable for you)")
    assert_unchanged(project / "sessions", before)
