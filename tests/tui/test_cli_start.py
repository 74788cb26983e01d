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


def test_a_name_the_plan_does_not_give_lists_the_planned_names_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import hashlib

    from annotate.plan import Rates, apply_plan
    from annotate.session import open_store
    from tests.conftest import make_item

    monkeypatch.chdir(tmp_path)
    spec = create_session("s", "pairwise", folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([make_item(f"q{i}") for i in range(4)])
        apply_plan(store, spec, ["alice", "bob"], 1, Rates(), seed=1)
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = hashlib.sha256(spec.db.read_bytes()).hexdigest()
    result = CliRunner().invoke(main, ["start", "s", "--annotator", "alcie"])
    assert result.exit_code == 1
    line = result.output.strip()
    assert "the plan names alice, bob; did you mean 'alice'?" in line and "\n" not in line
    with open_store(spec) as store:
        assert store.annotator("alcie") is None  # no stray annotator for a typo
    assert hashlib.sha256(spec.db.read_bytes()).hexdigest() == before


def test_a_mistyped_guideline_id_suggests_the_close_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["init", "x", "--kind", "pairwise", "--guideline", "pairwise-chta"])
    assert result.exit_code == 1
    assert "did you mean 'pairwise-chat'?" in result.output and "single-grade" in result.output
