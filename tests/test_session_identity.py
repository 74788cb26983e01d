"""A session file records which session it belongs to; a spec of another name or kind is refused.

The failure: a spec copied from another session (and given another name or kind) still points at
that session's `.db`; a single-grade screen then graded pairwise items of the other session.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.cli import main
from annotate.session import IDENTITY_META_KEY, SessionError, check_identity, load_session, open_store
from annotate.store import Store
from tests.conftest import make_item

COMMANDS = (
    ["status", "copy"],
    ["export", "copy"],
    ["report", "copy", "--bootstrap", "0"],
    ["plan", "copy", "--annotators", "alice", "--overlap", "1"],
    ["start", "copy", "--annotator", "alice"],
    ["adjudicate", "copy", "--annotator", "carol", "--list"],
    ["experiment", "copy", "--dry-run"],
)


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _copy_spec(project: Path, **changes: str) -> Path:
    text = (project / "sessions" / "evals.toml").read_text()
    for key, value in changes.items():
        lines = [f'{key} = "{value}"' if line.startswith(f"{key} =") else line for line in text.splitlines()]
        text = "\n".join(lines) + "\n"
    if "db" not in changes:
        text = text.replace('[session]\n', '[session]\ndb = "evals.db"\n', 1) if 'db =' not in text else text
    path = project / "sessions" / "copy.toml"
    path.write_text(text)
    return path


@pytest.fixture
def evals(project: Path) -> Path:
    runner = CliRunner()
    assert runner.invoke(main, ["init", "evals", "--kind", "pairwise"]).exit_code == 0
    spec = load_session("evals")
    with open_store(spec) as store:
        store.add_items([make_item(f"q{i}") for i in range(4)])
    return project


@pytest.mark.parametrize("changes", [{"name": "copy"}, {"name": "copy", "kind": "single"}, {"kind": "single"}],
                         ids=["other-name", "other-name-and-kind", "other-kind"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_copied_spec_pointing_at_another_sessions_file_is_refused(
    evals: Path, changes: dict[str, str], command: list[str]
) -> None:
    _copy_spec(evals, **changes)
    before = _digest(evals / "sessions")
    result = CliRunner().invoke(main, command)
    assert result.exit_code != 0
    error = result.output.strip().splitlines()[-1]
    assert "belongs to session 'evals' (pairwise)" in error, result.output
    assert "give this one its own" in error
    assert _digest(evals / "sessions") == before


def test_a_second_spec_of_the_same_session_is_accepted(evals: Path) -> None:
    _copy_spec(evals)  # same name and kind, same file: one session with two spec files
    assert CliRunner().invoke(main, ["status", "copy"]).exit_code == 0


def test_the_label_scale_may_change_until_the_first_answer(project: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["init", "essays", "--kind", "single"]).exit_code == 0
    path = project / "sessions" / "essays.toml"
    path.write_text(path.read_text().replace("scale = [1, 10]", "scale = [1, 5]"))
    assert runner.invoke(main, ["status", "essays"]).exit_code == 0  # nothing answered yet: taken
    spec = load_session("essays")
    with open_store(spec) as store:
        stored = json.loads(store.get_meta(IDENTITY_META_KEY) or "{}")
        assert stored["schema"]["scale"] == [1, 5]
        from annotate.model import ExternalLabel, Item, Message, Response

        store.add_items([Item("e1", "single", (Message("user", "p"),), (Response("A", "t", "m"),))])
        store.add_external_labels([ExternalLabel("f", "r1", "expert", "e1", "4")])
    path.write_text(path.read_text().replace("scale = [1, 5]", "scale = [0, 3]"))
    result = runner.invoke(main, ["status", "essays"])
    assert result.exit_code != 0
    assert "no longer matches the answers already in essays.db" in result.output
    assert "grades 1-5" in result.output and "grades 0-3" in result.output


def test_a_file_from_before_identity_is_claimed_by_the_first_spec(evals: Path) -> None:
    spec = load_session("evals")
    with Store.open(spec.db) as store:
        store.db.execute("DELETE FROM meta WHERE key = ?", [IDENTITY_META_KEY])
        store.db.conn.commit()
        check_identity(spec, store)
        assert json.loads(store.get_meta(IDENTITY_META_KEY) or "{}")["name"] == "evals"
        from dataclasses import replace

        with pytest.raises(SessionError, match="belongs to session 'evals'"):
            check_identity(replace(spec, name="other"), store)


def test_an_unchanged_spec_opens_a_file_with_answers(evals: Path) -> None:
    """The stored identity is JSON (lists), the spec's has tuples: the same schema either way."""
    spec = load_session("evals")
    with open_store(spec) as store:
        from annotate.model import ExternalLabel

        store.add_external_labels([ExternalLabel("f", "r1", "expert", "q0", "A")])
    for _ in range(2):
        result = CliRunner().invoke(main, ["status", "evals"])
        assert result.exit_code == 0, result.output
