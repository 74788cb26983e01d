"""The output-path guard and the atomic writer (annotate/outputs.py): a session's files are never
written over under any spelling, other files only with force, and a write is whole or nothing.
(Every command that writes a file is tried against the session's files in test_bad_input.py.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from formats_util import cli, session

from annotate.outputs import OutputError, atomic_output, check_output, session_files
from annotate.spec import SessionSpec


@pytest.fixture
def spec(project: Path) -> SessionSpec:
    return session(project)


def spellings(project: Path) -> list[Path]:
    """The session's database under other names: relative, absolute, `..`, `.`, letter case, links."""
    db = project / "sessions" / "s.db"
    (project / "link.db").symlink_to(db)
    (project / "chain").symlink_to(project / "link.db")
    os.link(db, project / "hard.db")
    (project / "dir-link").symlink_to(project / "sessions")
    return [
        Path("sessions/s.db"), db, Path("sessions/../sessions/s.db"), Path("./sessions/./s.db"),
        Path("sessions/S.DB"), Path("link.db"), Path("chain"), Path("hard.db"), Path("dir-link/s.db"),
        Path("sessions/s.db-wal"), Path("sessions/s.db-shm"), Path("sessions/s.db-journal"), Path("sessions/s.db-lock"),
        Path("sessions/s.toml"),
        Path("dir-link/S.TOML"),
    ]


def test_every_spelling_of_a_session_file_is_refused_even_with_force(spec: SessionSpec, project: Path) -> None:
    guarded = session_files(spec)
    for path in spellings(project):
        for force in (False, True):
            with pytest.raises(OutputError, match="not even with --force") as caught:
                check_output(path, guarded, force=force)
            assert str(caught.value).startswith(f"{path}: that is the ")


def test_the_other_sessions_beside_it_are_protected_too(spec: SessionSpec, project: Path) -> None:
    session(project, "other")
    guarded = session_files(spec)
    for name in ("other.db", "other.toml", "other.db-wal"):
        with pytest.raises(OutputError, match="of session other"):
            check_output(project / "sessions" / name, guarded, force=True)
    (project / "sessions" / "notes.toml").write_text("x")  # a .toml without a database is no session
    assert check_output(project / "sessions" / "notes.toml", guarded, force=True)


def test_an_existing_file_needs_force(spec: SessionSpec, project: Path) -> None:
    (project / "out.csv").write_text("keep me")
    with pytest.raises(OutputError, match=r"^out.csv: already exists; pass --force"):
        check_output(Path("out.csv"), session_files(spec), force=False)
    assert check_output(Path("out.csv"), session_files(spec), force=True) == project / "out.csv"


def test_a_folder_or_a_missing_folder_is_refused(project: Path) -> None:
    (project / "d").mkdir()
    with pytest.raises(OutputError, match="is a folder"):
        check_output(Path("d"), (), force=True)
    with pytest.raises(OutputError, match=r"the folder .*nowhere does not exist"):
        check_output(Path("nowhere/x.csv"), (), force=True)


def test_a_failed_write_leaves_nothing(project: Path) -> None:
    target = project / "out.csv"
    target.write_text("before")
    with pytest.raises(RuntimeError), atomic_output(target, force=True) as tmp:
        tmp.write_text("half")
        raise RuntimeError("disk full")
    assert target.read_text() == "before"
    assert sorted(p.name for p in project.iterdir()) == ["out.csv"]
    with pytest.raises(RuntimeError), atomic_output(project / "new.csv") as tmp:
        tmp.write_text("half")
        raise RuntimeError("disk full")
    assert sorted(p.name for p in project.iterdir()) == ["out.csv"]


def test_a_file_that_appears_during_the_write_is_not_replaced(project: Path) -> None:
    target = project / "out.csv"
    with pytest.raises(OutputError, match="already exists"), atomic_output(target) as tmp:
        tmp.write_text("mine")
        target.write_text("someone else's")
    assert target.read_text() == "someone else's"
    assert sorted(p.name for p in project.iterdir()) == ["out.csv"]


def test_permissions_and_links(project: Path) -> None:
    umask = os.umask(0o022)
    try:
        with atomic_output(project / "new.csv") as tmp:
            tmp.write_text("x")
        assert (project / "new.csv").stat().st_mode & 0o777 == 0o644  # not the temporary file's 0600
        (project / "new.csv").chmod(0o640)
        with atomic_output(project / "new.csv", force=True) as tmp:
            tmp.write_text("y")
        assert (project / "new.csv").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(umask)
    (project / "link.csv").symlink_to(project / "new.csv")
    with atomic_output(project / "link.csv", force=True) as tmp:
        tmp.write_text("through the link")
    assert (project / "link.csv").is_symlink() and (project / "new.csv").read_text() == "through the link"


def test_export_and_report_refuse_an_existing_file_without_force(spec: SessionSpec, project: Path) -> None:
    (project / "out.csv").write_text("keep me")
    for command in (("export", "s", "-o", "out.csv"), ("report", "s", "-o", "out.csv", "--bootstrap", "0")):
        result = cli(*command)
        assert result.exit_code == 1
        assert result.stderr == "Error: out.csv: already exists; pass --force to replace it, or choose another file\n"
        assert (project / "out.csv").read_text() == "keep me"
    assert cli("export", "s", "-o", "out.csv", "--force").exit_code == 0
    assert (project / "out.csv").read_text().startswith("uid,annotator,")
    assert cli("report", "s", "-o", "out.csv", "--force", "--bootstrap", "0").exit_code == 0
    assert not (project / "out.csv").read_text().startswith("uid,annotator,")
    assert sorted(p.name for p in project.iterdir()) == ["out.csv", "sessions"]  # no temporary file left
