"""Session names are found from anywhere: --project, $ANNOTATE_HOME, or the nearest folder at or
above the current one that holds sessions/. The "no session" error says where it looked and never
suggests an `init` that would make an empty twin."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.cli import main


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project /lab with sessions evals and essays, and a home folder elsewhere."""
    monkeypatch.delenv("ANNOTATE_HOME", raising=False)
    project = tmp_path / "lab"
    project.mkdir()
    monkeypatch.chdir(project)
    runner = CliRunner()
    assert runner.invoke(main, ["init", "evals", "--kind", "pairwise"]).exit_code == 0
    assert runner.invoke(main, ["init", "essays", "--kind", "single"]).exit_code == 0
    (tmp_path / "home" / "alice").mkdir(parents=True)
    (project / "data" / "raw").mkdir(parents=True)
    return project


def _status(*args: str) -> object:
    return CliRunner().invoke(main, [*args])


def test_a_name_is_found_from_a_folder_below_the_project(lab: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(lab / "data" / "raw")
    result = _status("status", "evals")
    assert result.exit_code == 0, result.output
    assert "evals (pairwise)" in result.output


def test_from_home_the_project_comes_from_annotate_home_or_project(
    lab: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path / "home" / "alice")
    lost = _status("status", "evals")
    assert lost.exit_code != 0
    line = lost.output.strip()
    assert "no project found" in line and "$ANNOTATE_HOME (not set)" in line
    assert str(tmp_path / "home" / "alice") in line
    assert "--project" in line and "annotate init" not in line and "\n" not in line
    assert _status("--project", str(lab), "status", "evals").exit_code == 0
    monkeypatch.setenv("ANNOTATE_HOME", str(lab))
    assert _status("status", "essays").exit_code == 0


def test_a_project_option_or_home_without_sessions_is_refused(lab: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    bad = _status("--project", str(tmp_path / "home"), "status", "evals")
    assert bad.exit_code != 0 and "no sessions/ folder there" in bad.output
    monkeypatch.setenv("ANNOTATE_HOME", str(tmp_path / "home"))
    bad = _status("status", "evals")
    assert bad.exit_code != 0 and "$ANNOTATE_HOME is" in bad.output and "no sessions/ folder" in bad.output


def test_an_unknown_name_in_a_project_lists_its_sessions_and_never_suggests_init(lab: Path) -> None:
    result = _status("status", "evlas")
    assert result.exit_code != 0
    line = result.output.strip()
    assert "did you mean 'evals'?" in line and "sessions there: essays, evals" in line
    assert "annotate init" not in line


def test_init_below_a_project_that_has_the_name_is_refused(lab: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(lab / "data")
    result = _status("init", "evals", "--kind", "pairwise")
    assert result.exit_code != 0 and "empty twin" in result.output
    assert not (lab / "data" / "sessions").exists()
    elsewhere = _status("--project", str(lab), "init", "third", "--kind", "rubric")
    assert elsewhere.exit_code == 0 and (lab / "sessions" / "third.toml").is_file()


def test_a_symbolic_link_out_of_the_found_project_is_still_refused(lab: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "outside.toml"
    outside.write_text((lab / "sessions" / "evals.toml").read_text())
    (lab / "sessions" / "linked.toml").symlink_to(outside)
    monkeypatch.chdir(lab / "data")
    result = _status("status", "linked")
    assert result.exit_code != 0 and "outside" in result.output
