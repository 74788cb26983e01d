"""A broken spec or guideline in the project, tried with every command that reads it: each refuses
it with one line naming the file and the key or line, before it opens the session file."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_util import cli, pair

from .file_cases import lines
from .spec_cases import SESSION_CASES, SessionCase, house_guideline, session_files


@pytest.mark.parametrize("case", SESSION_CASES, ids=[c.name for c in SESSION_CASES])
def test_broken_spec_or_guideline_is_refused_by_every_command_and_nothing_is_written(
    case: SessionCase, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    project = tmp_path / "project"
    shutil.copytree(seeded / "sessions", project / "sessions")
    monkeypatch.chdir(project)
    (project / "ok.jsonl").write_bytes(lines(pair("fresh")))
    (project / "votes.csv").write_bytes(b"item,rater,label\nn1,zed,A\n")
    case.setup(project)
    before = session_files(project)
    for command in case.commands:
        result = cli(*command)
        error = result.stderr.strip()
        assert result.exit_code == 1, f"{command}: {result.output}"
        assert error.startswith("Error: ") and error.count("\n") == 0, f"{command}: {error!r}"
        assert case.names in error, f"{command}: the error does not name {case.names}: {error!r}"
        for part in case.expected:
            assert part in error, f"{command}: {part!r} not in {error!r}"
        assert session_files(project) == before, f"{command} changed the session files"
    assert not (project / "sessions" / "other.toml").exists()


def test_status_says_a_broken_guideline_is_not_usable(seeded: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    house_guideline("no front matter here\n")(tmp_path)
    before = session_files(tmp_path)
    result = cli("status", "s")
    assert result.exit_code == 0
    assert "guideline NOT USABLE" in result.stdout and "house.md: line 1" in result.stdout
    assert session_files(tmp_path) == before


def test_a_spec_with_a_byte_order_mark_is_read(seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "sessions" / "s.toml"
    spec.write_bytes(b"\xef\xbb\xbf" + spec.read_bytes())
    result = cli("status", "s")
    assert result.exit_code == 0, result.output
    assert "guideline pairwise-chat v" in result.stdout
    result = cli("plan", "s", "--annotators", "alice,bob", "--overlap", "2")
    assert result.exit_code == 0, result.output
    assert spec.read_bytes().startswith(b"\xef\xbb\xbf")  # the [plan] rewrite keeps the file as it was
    assert 'annotators = ["alice", "bob"]' in spec.read_text(encoding="utf-8-sig")
