"""Broken session files, tried with every command that opens one: each refuses it with one line
that names the file, says what is wrong and what to do, and leaves every file of the session
byte-identical. The same damage done to the copy given to `annotate merge` names the copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from formats_util import cli, pair

from .file_cases import lines
from .session_file_cases import FILE_CASES, FileCase
from .spec_cases import session_files


def project_from(seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the seeded project as the current folder, with the inputs the commands are given
    and a good copy of the session file as other.db."""
    project = tmp_path / "project"
    shutil.copytree(seeded / "sessions", project / "sessions")
    monkeypatch.chdir(project)
    (project / "ok.jsonl").write_bytes(lines(pair("fresh")))
    (project / "votes.csv").write_bytes(b"item,rater,label\nn1,zed,A\n")
    (project / "judge.csv").write_bytes(b"item,rater,label\nn1,gpt,A\n")
    shutil.copy(project / "sessions" / "s.db", project / "other.db")
    return project


def assert_one_line_error(result: object, command: tuple[str, ...], names: str, expected: tuple[str, ...]) -> None:
    error = result.stderr.strip()  # type: ignore[attr-defined]
    assert result.exit_code == 1, f"{command}: {result.output}"  # type: ignore[attr-defined]
    assert error.startswith("Error: ") and error.count("\n") == 0, f"{command}: {error!r}"
    assert "Traceback" not in result.output, f"{command}: {result.output}"  # type: ignore[attr-defined]
    assert error.startswith(f"Error: {names}"), f"{command}: the error does not name {names} first: {error!r}"
    for part in expected:
        assert part in error, f"{command}: {part!r} not in {error!r}"


@pytest.mark.parametrize("case", FILE_CASES, ids=[c.name for c in FILE_CASES])
def test_a_broken_session_file_is_refused_by_every_command_and_nothing_is_written(
    case: FileCase, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = project_from(seeded, tmp_path, monkeypatch)
    if case.prepare is not None:
        case.prepare(project)
    case.damage(project / case.names)
    before = session_files(project) if (project / "sessions").is_dir() else {}
    for command in case.commands:
        result = cli(*command)
        assert_one_line_error(result, command, case.names, case.expected)
        assert (session_files(project) if (project / "sessions").is_dir() else {}) == before, \
            f"{command} changed the session files"
    assert not (project / "copy.db").exists()


COPY_CASES = [c for c in FILE_CASES if c.as_copy]


@pytest.mark.parametrize("case", COPY_CASES, ids=[c.name for c in COPY_CASES])
def test_a_broken_copy_is_refused_by_merge_naming_the_copy(
    case: FileCase, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = project_from(seeded, tmp_path, monkeypatch)
    case.damage(project / "other.db")
    before = session_files(project)
    copy_before = sorted(p.name for p in project.iterdir())
    result = cli("merge", "s", "other.db")
    expected = tuple(part.replace("s.db", "other.db") for part in case.expected if "sessions/" not in part)
    assert_one_line_error(result, ("merge",), "other.db", expected)
    assert session_files(project) == before
    assert sorted(p.name for p in project.iterdir()) == copy_before


def test_the_advice_for_a_lost_wal_works(seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put the -wal file back: everything is there. Delete the -shm file instead: the session opens
    without the changes only the -wal held, as the message said."""
    from annotate.store import Store

    from .session_file_cases import killed_writer

    project = project_from(seeded, tmp_path, monkeypatch)
    db = project / "sessions" / "s.db"
    killed_writer(db)
    shutil.move(f"{db}-wal", project / "saved-wal")
    assert "s.db-wal is missing" in cli("status", "s").stderr
    shutil.move(project / "saved-wal", f"{db}-wal")
    assert cli("status", "s").exit_code == 0
    with Store.open(db) as store:
        assert store.get_meta("left") == "in the -wal only"
    killed_writer(db, left="lost with the -wal")
    Path(f"{db}-wal").unlink()
    assert "s.db-wal is missing" in cli("status", "s").stderr
    Path(f"{db}-shm").unlink()
    assert cli("status", "s").exit_code == 0
    with Store.open(db) as store:
        assert store.get_meta("left") == "in the -wal only"  # written into the file when the -wal came back
