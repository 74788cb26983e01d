"""Files without records: a warning, and nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_util import cli, fingerprint

EMPTY_FILES = {
    "empty.jsonl": b"", "blank.jsonl": b"\n  \n", "empty.json": b"[]", "empty.csv": b"",
    "header.csv": b"id,prompt,A,B\n", "votes.csv": b"item,rater,label\n",
}


EMPTY_COMMANDS = {
    "items": ("import",), "labels": ("labels", "import", "--cohort", "crowd"),
    "suggestions": ("labels", "import", "--as-suggestions"),
}


@pytest.mark.parametrize("what", sorted(EMPTY_COMMANDS))
@pytest.mark.parametrize("name", sorted(EMPTY_FILES))
def test_a_file_without_records_is_a_warning_and_writes_nothing(
    what: str, name: str, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    from annotate.session import load_session

    spec = load_session("s")
    (tmp_path / name).write_bytes(EMPTY_FILES[name])
    before = fingerprint(spec)
    result = cli(*EMPTY_COMMANDS[what], "s", name)
    assert result.exit_code == 0, result.output
    header = " (only a header)" if name in ("header.csv", "votes.csv") else ""
    assert result.stderr == f"warning: {name} holds no records{header}\n"
    assert result.stdout.startswith(f"added 0 {what} (0 unchanged)")
    assert fingerprint(spec) == before
