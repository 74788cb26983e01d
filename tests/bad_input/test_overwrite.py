"""No command writes over a session's own files: -o naming the spec, the database, its -wal or -shm
(under any spelling, or through a link), or another session's database, is refused even with --force."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from formats_util import cli

from .spec_cases import session_files


def _link_to_db(project: Path) -> str:
    (project / "link.csv").symlink_to(project / "sessions" / "s.db")
    return "link.csv"


def _hard_link_to_db(project: Path) -> str:
    import os

    os.link(project / "sessions" / "s.db", project / "copy.csv")
    return "copy.csv"


def _another_session(project: Path) -> str:
    from annotate.session import create_session

    create_session("other", "pairwise", seed=2, folder=project / "sessions")
    return "sessions/other.db"


OVERWRITE_TARGETS: dict[str, Callable[[Path], str]] = {
    "the spec": lambda p: "sessions/s.toml",
    "the database": lambda p: "sessions/s.db",
    "the -wal file": lambda p: "sessions/s.db-wal",
    "the -shm file": lambda p: "sessions/s.db-shm",
    "the database through ..": lambda p: "sessions/../sessions/s.db",
    "the database by its absolute path": lambda p: str(p / "sessions" / "s.db"),
    "the spec in other letter case": lambda p: "sessions/S.TOML",
    "a symbolic link to the database": _link_to_db,
    "a hard link to the database": _hard_link_to_db,
    "another session's database": _another_session,
}
"""Each returns the path to give -o (after making any link it needs)."""

OUTPUT_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("export", "s", "-o", "{}"),
    ("export", "s", "--format", "jsonl", "-o", "{}", "--force"),
    ("export", "s", "--what", "items", "--format", "parquet", "-o", "{}", "--force"),
    ("report", "s", "-o", "{}", "--force", "--bootstrap", "0"),
    ("report", "s", "--format", "html", "-o", "{}", "--bootstrap", "0"),
)
"""Every command option that writes a file, with and without --force."""


@pytest.mark.parametrize("target", sorted(OVERWRITE_TARGETS))
def test_no_command_writes_over_a_session_file(
    target: str, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    project = tmp_path / "project"
    shutil.copytree(seeded / "sessions", project / "sessions")
    monkeypatch.chdir(project)
    path = OVERWRITE_TARGETS[target](project)
    before = session_files(project)
    for command in OUTPUT_COMMANDS:
        args = [part.format(path) for part in command]
        result = cli(*args)
        error = result.stderr.strip()
        assert result.exit_code == 1, f"{args}: {result.output}"
        assert error.startswith(f"Error: {path}: that is the ") and error.count("\n") == 0, f"{args}: {error!r}"
        assert "not even with --force" in error
        assert session_files(project) == before, f"{args} changed the session files"
    assert sorted(p.name for p in project.iterdir() if p.name not in ("link.csv", "copy.csv")) == ["sessions"]
