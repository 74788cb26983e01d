"""The command line through click's CliRunner: help everywhere, init and status."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from annotate.cli import main
from annotate.spec import load_spec


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        path = (*prefix, name)
        found.append(path)
        if isinstance(command, click.Group):
            found.extend(all_commands(command, path))
    return found


@pytest.mark.parametrize("path", all_commands(main), ids=" ".join)
def test_every_command_has_help_with_an_example(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    command: click.Command = main
    for name in path:
        command = command.get_command(click.Context(command), name)  # type: ignore[attr-defined]
    if not isinstance(command, click.Group):
        assert "Example" in result.output, f"`annotate {' '.join(path)} --help` shows no example"


def test_python_dash_m_runs_the_cli() -> None:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "annotate", "--version"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "annotate" in result.stdout


def test_init_writes_spec_and_db(project: Path) -> None:
    result = CliRunner().invoke(main, ["init", "evals", "--kind", "rubric"])
    assert result.exit_code == 0, result.output
    spec = load_spec(project / "sessions" / "evals.toml")
    assert spec.kind == "rubric"
    assert spec.guideline == "rubric-helpsteer"
    assert (project / "sessions" / "evals.db").is_file()
    again = CliRunner().invoke(main, ["init", "evals", "--kind", "rubric"])
    assert again.exit_code != 0
    assert "already exists" in again.output


def test_init_refuses_unknown_guideline(project: Path) -> None:
    result = CliRunner().invoke(main, ["init", "x", "--kind", "pairwise", "--guideline", "nope"])
    assert result.exit_code != 0
    assert "nope.md" in result.output
    assert not (project / "sessions" / "x.toml").exists()


def test_status_by_name_and_by_path(project: Path) -> None:
    CliRunner().invoke(main, ["init", "evals", "--kind", "pairwise", "--seed", "5"])
    by_name = CliRunner().invoke(main, ["status", "evals"])
    assert by_name.exit_code == 0, by_name.output
    assert "evals (pairwise)" in by_name.output
    assert "seed 5" in by_name.output
    by_path = CliRunner().invoke(main, ["status", str(project / "sessions" / "evals.toml")])
    assert by_path.output == by_name.output


def test_status_of_unknown_session_says_where_it_looked(project: Path) -> None:
    result = CliRunner().invoke(main, ["status", "ghost"])
    assert result.exit_code != 0
    assert "no session 'ghost'" in result.output and "annotate init" not in result.output


def test_status_reports_a_broken_spec_by_file_and_key(project: Path) -> None:
    (project / "sessions").mkdir()
    (project / "sessions" / "bad.toml").write_text("[session]\nkind = 'pairwise'\nsed = 1\n")
    result = CliRunner().invoke(main, ["status", "bad"])
    assert result.exit_code != 0
    assert "bad.toml" in result.output
    assert "session.sed" in result.output


def test_every_command_is_found_by_name_in_a_fresh_interpreter() -> None:
    """The command line imports a command's module only when it runs (annotate/cli/__init__.py): each
    command must be listed there under the module that defines it, or it cannot be run by name."""
    import subprocess
    import sys

    code = ("import click, importlib, pkgutil, annotate.cli as cli\n"
            "for m in pkgutil.iter_modules(cli.__path__): importlib.import_module('annotate.cli.' + m.name)\n"
            "print(sorted((n, c.callback.__module__) for n, c in cli.main.commands.items()))\n"
            "print(sorted(cli.main.lazy_commands.items()))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    registered, listed = result.stdout.splitlines()
    assert registered == listed
    assert CliRunner().invoke(main, ["strat"]).exit_code == 2  # an unknown name is still a usage error
