"""Names: `$` in a regular expression matches before a trailing newline, so every name check
matches to the very end (`\\Z`); `"alice\\n"` is never a second alice."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_util import cli

from .spec_cases import edit_spec, session_files


def test_an_annotator_name_with_a_trailing_newline_is_refused(
    seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`start`, `adjudicate` and `demo` check --annotator with the same function; `adjudicate --list`
    shows it without opening a screen."""
    import shutil

    from annotate.cli.common import annotator_name

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    before = session_files(tmp_path)
    result = cli("adjudicate", "s", "--list", "--annotator", "carol\n")
    assert result.exit_code == 2, result.output
    assert "--annotator" in result.stderr and "'carol\\n'" in result.stderr
    assert session_files(tmp_path) == before
    assert annotator_name("carol") == "carol"


def test_a_planned_annotator_name_with_a_trailing_newline_is_refused(
    seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    edit_spec(tmp_path, "annotators = []", 'annotators = ["alice\\n", "bob"]')
    before = session_files(tmp_path)
    result = cli("plan", "s", "--overlap", "2")
    assert result.exit_code == 1 and "annotator name 'alice\\n'" in result.stderr, result.output
    assert session_files(tmp_path) == before
    from annotate.plan import ANNOTATOR_NAME
    from annotate.session import create_session

    assert not ANNOTATOR_NAME.match("alice\n")
    with pytest.raises(ValueError, match="a session name"):
        create_session("s2\n", "pairwise", folder=tmp_path / "sessions")
    assert not (tmp_path / "sessions" / "s2\n.toml").exists()
