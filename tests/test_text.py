"""The wording helper for command-line messages, and the messages that use it."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from annotate.cli import main
from annotate.session import create_session, open_store
from annotate.text import plural
from tests.conftest import make_item


def test_plural() -> None:
    assert [plural(n, "item") for n in (0, 1, 2)] == ["0 items", "1 item", "2 items"]
    assert plural(1, "repeated vote") == "1 repeated vote" and plural(3, "entry", "entries") == "3 entries"


def test_messages_for_one_are_singular(project: Path) -> None:
    spec = create_session("evals", "pairwise", seed=5, folder=project / "sessions")
    (project / "one.jsonl").write_text(
        '{"id": "v1", "prompt": "p", "responses": {"A": {"text": "a"}, "B": {"text": "b"}}}\n', encoding="utf-8"
    )
    imported = CliRunner().invoke(main, ["import", "evals", "one.jsonl"])
    assert imported.stdout == "added 1 item (0 unchanged) from one.jsonl\n"
    with open_store(spec) as store:
        store.add_items([make_item("v2")])
    planned = CliRunner().invoke(main, ["plan", "evals", "--annotators", "alice", "--overlap", "1", "--dry-run"])
    assert "(dry run, nothing written; 2 assignments would be added)" in planned.stdout
    (project / "vote.csv").write_text("item,rater,label\nv1,ann,A\n", encoding="utf-8")
    voted = CliRunner().invoke(main, ["labels", "import", "evals", "vote.csv", "--cohort", "crowd"])
    assert voted.stdout == "added 1 crowd label (0 unchanged) from vote.csv\n"
    suggested = CliRunner().invoke(main, ["labels", "import", "evals", "vote.csv", "--as-suggestions"])
    assert suggested.stdout.startswith("added 1 suggestion (0 unchanged)")
