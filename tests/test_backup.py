"""`annotate backup`: a verified copy, safe while others write, never over the session's own files;
and what a broken session file says about restoring it."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest
from formats_util import DATA, cli, session

from annotate.store import SessionFileError, Store


@pytest.fixture
def evals(project: Path) -> Path:
    session(project, "evals")
    assert cli("import", "evals", str(DATA / "pairs_native.jsonl")).exit_code == 0
    return project


def test_backup_writes_a_verified_copy_in_backups(evals: Path) -> None:
    result = cli("backup", "evals")
    assert result.exit_code == 0, result.output
    match = re.fullmatch(
        r"wrote (sessions/backups/evals-\d{8}-\d{6}\.db): a copy of sessions/evals\.db \([\d,]+ bytes; 4 items,"
        r" 0 annotators, 0 judgments\), integrity check ok\n", result.stdout,
    )
    assert match, result.stdout
    copy = evals / match.group(1)
    with Store.open(copy) as store:
        assert len(store.items()) == 4
    assert not list((evals / "sessions" / "backups").glob(".*")), "no partial file left behind"
    again = cli("backup", "evals")
    assert again.exit_code == 0 and len(list((evals / "sessions" / "backups").glob("*.db"))) == 2


def test_backup_never_replaces_without_force_nor_the_sessions_own_files(evals: Path) -> None:
    target = evals / "monday.db"
    target.write_bytes(b"precious")
    refused = cli("backup", "evals", "-o", "monday.db")
    assert refused.exit_code == 1 and "monday.db: already exists" in refused.stderr and "--force" in refused.stderr
    assert target.read_bytes() == b"precious"
    assert cli("backup", "evals", "-o", "monday.db", "--force").exit_code == 0
    assert target.read_bytes().startswith(b"SQLite format 3\x00")
    sessions = evals / "sessions"
    (sessions / "link.db").symlink_to("evals.db")
    os.link(sessions / "evals.db", evals / "hard.db")
    before = {p.name: p.read_bytes() for p in sessions.iterdir() if p.is_file()}
    for own in ("sessions/evals.db", "sessions/evals.db-wal", "sessions/evals.db-shm", "sessions/evals.toml",
                "sessions/link.db", "hard.db"):
        result = cli("backup", "evals", "-o", own, "--force")
        assert result.exit_code == 1 and "of session evals; nothing is ever written over" in result.stderr, (
            own, result.output)
        assert result.stderr.count("\n") == 1
    assert {p.name: p.read_bytes() for p in sessions.iterdir() if p.is_file()} == before
    folder = cli("backup", "evals", "-o", "sessions")
    assert folder.exit_code == 1 and "is a folder" in folder.stderr


def test_backup_while_another_program_holds_the_write_lock(evals: Path) -> None:
    """Annotators writing do not stop a backup, and the copy holds what was committed, not what is
    in flight."""
    writer = Store.open(evals / "sessions" / "evals.db")
    try:
        writer.ensure_annotator("committed")
        writer.db.execute("BEGIN IMMEDIATE")
        writer.db.execute("INSERT INTO annotators (name, cohort, created) VALUES ('in-flight', 'expert', 'now')")
        result = cli("backup", "evals", "-o", "during.db")
        assert result.exit_code == 0, result.output
        writer.db.execute("COMMIT")
    finally:
        writer.close()
    conn = sqlite3.connect(evals / "during.db")
    names = {r[0] for r in conn.execute("SELECT name FROM annotators")}
    conn.close()
    assert names == {"committed"}


def test_a_damaged_session_gets_no_backup_and_its_error_names_the_last_good_one(evals: Path) -> None:
    assert cli("backup", "evals").exit_code == 0
    (latest,) = (evals / "sessions" / "backups").glob("evals-*.db")
    db = evals / "sessions" / "evals.db"
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'items'").fetchone()[0]
    conn.close()
    with db.open("r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xde\xad" * (page_size // 2))
    result = cli("backup", "evals", "-o", "damaged.db")
    assert result.exit_code == 1 and not (evals / "damaged.db").exists()
    assert result.stderr.startswith("Error: sessions/evals.db: ") and result.stderr.count("\n") == 1
    assert "damaged" in result.stderr
    # status reads only the tallies (it stays instant on large sessions), so ask for the items themselves
    items = cli("export", "evals", "--what", "items")
    assert items.exit_code == 1
    assert f"restore the last backup, sessions/backups/{latest.name}" in items.stderr


def test_a_deleted_wal_file_stops_writes_and_loses_nothing_on_a_normal_close(project: Path) -> None:
    spec = session(project)
    store = Store.open(spec.db)
    store.ensure_annotator("before")
    os.unlink(f"{spec.db}-wal")
    with pytest.raises(SessionFileError, match=r"s\.db-wal was deleted .* it writes nothing more"):
        store.ensure_annotator("after")
    with pytest.raises(SessionFileError, match="it writes nothing more"):
        store.set_meta("k", "v")
    store.close()
    with Store.open(spec.db) as reopened:
        assert [a.name for a in reopened.annotators()] == ["before"] and reopened.get_meta("k") is None
