"""`annotate start` and `annotate demo` refuse clearly before opening the app."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.cli import main
from annotate.session import create_session


def test_start_without_items_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    create_session("empty", "pairwise", folder=tmp_path / "sessions")
    result = CliRunner().invoke(main, ["start", "empty", "--annotator", "alice"])
    assert result.exit_code == 1
    assert "has no items" in result.output and "annotate import" in result.output


def test_start_rejects_odd_annotator_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    create_session("s", "pairwise", folder=tmp_path / "sessions")
    result = CliRunner().invoke(main, ["start", "s", "--annotator", "../x"])
    assert result.exit_code == 2
    assert "--annotator" in result.output


def test_start_needs_an_annotator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANNOTATE_ANNOTATOR", raising=False)
    result = CliRunner().invoke(main, ["start", "s"])
    assert result.exit_code == 2 and "--annotator" in result.output
