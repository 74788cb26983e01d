"""`annotate status` shows suggestions and the experiment; `annotate export` carries what the
suggestion analysis needs (judgments with their suggestion, and the suggestions themselves)."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from annotate.cli import main
from annotate.model import Assignment, Event, Judgment, Suggestion, Timings
from annotate.session import load_session, open_store
from annotate.store.store import SuggestionFailure

NOW = datetime.now(UTC).isoformat()


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _session(project: Path, experiment: str = "") -> str:
    cli("init", "sx", "--kind", "pairwise", "--seed", "9")
    with (project / "items.jsonl").open("w", encoding="utf-8") as out:
        for n in range(8):
            out.write(json.dumps({"id": f"q{n}", "prompt": f"question {n}", "gold": "A",
                                  "responses": {"A": {"text": f"a{n}", "model": "m-a"},
                                                "B": {"text": f"b{n}", "model": "m-b"}}}) + "\n")
    cli("import", "sx", "items.jsonl")
    if experiment:
        spec_path = project / "sessions" / "sx.toml"
        spec_path.write_text(spec_path.read_text().replace('modes = ["none"]\nplanted_rate = 0.0', experiment))
    return "sx"


def test_status_shows_suggestions_and_the_experiment(project: Path) -> None:
    name = _session(project, 'modes = ["none", "upfront"]\nassign = "within"\nplanted_rate = 0.25')
    (project / "judge.csv").write_text("item,rater,label\n" + "".join(f"q{n},judge-x,A\n" for n in range(8)))
    cli("labels", "import", name, "judge.csv", "--as-suggestions")
    spec = load_session(name)
    with open_store(spec) as store:
        store.add_suggestion_failure(SuggestionFailure("q0", "judge-y", "h", "no verdict", "???"))
    before = cli("status", name)
    assert "suggested judge-x: 8; judge-y: 0, 1 without a verdict" in before
    assert "experiment modes none, upfront (within), planted rate 25%" in before
    assert "not set up yet" in before
    cli("plan", name, "--annotators", "alice,bob", "--overlap", "2")
    with open_store(spec) as store:
        design = store.get_meta("experiment_hash")
        planted = sum(s.planted for s in store.suggestions())
    assert design and planted == 2
    after = cli("status", name)
    assert f"design {design}" in after
    assert f"judge-x: 8 (+{planted} planted)" in after


def test_status_of_a_session_without_suggestions_is_unchanged(project: Path) -> None:
    out = cli("status", _session(project))
    assert "suggested" not in out and "experiment" not in out


def test_judgments_export_the_suggestion_and_whether_it_was_shown(project: Path) -> None:
    name = _session(project)
    spec = load_session(name)
    cases = [  # condition, timings suggestion_ms, initial label, events, expected suggestion_shown
        ("none", None, None, [], False),
        ("upfront", 2500, None, [], True),
        ("upfront", None, None, [], True),  # no timing recorded (an older app): shown by its condition
        ("after", None, "B", [], True),
        ("after", None, None, ["key"], False),
        ("on_request", None, None, ["suggestion.reveal"], True),
        ("on_request", None, None, ["key"], False),
        ("on_request", None, None, [], None),
    ]
    with open_store(spec) as store:
        [suggestion] = store.add_suggestions([Suggestion("q0", "judge-x", "B", rationale="B is right",
                                                         swapped_label="A", prompt_hash="p1")])
        [planted] = store.add_suggestions([Suggestion("q1", "judge-x", "B", planted=True, prompt_hash="p1")])
        for position, (condition, ms, initial, events, _) in enumerate(cases):
            [a] = store.add_assignments([Assignment(0, "alice", f"q{position}", position, condition=condition,
                                                    suggestion_id=suggestion.id if position != 1 else planted.id)])
            store.submit(Judgment(a.id, "A", Timings(NOW, 100, 3000, 2000, suggestion_ms=ms), initial_label=initial),
                         [Event(kind, position, NOW, assignment_id=a.id, annotator="alice") for kind in events])
        [plain] = store.add_assignments([Assignment(0, "bob", "q7", 0)])
        store.submit(Judgment(plain.id, "B", Timings(NOW, 100, 3000, 2000)))
    rows = list(csv.DictReader(io.StringIO(cli("export", name, "--include-planted"))))
    by = {(r["annotator"], r["item"]): r for r in rows}
    shown = {"True": "true", "False": "false", "None": ""}
    for position, (*_, expected) in enumerate(cases):
        row = by[("alice", f"q{position}")]
        assert row["suggestion_shown"] == shown[str(expected)], (position, row["condition"])
        assert row["suggestion_label"] == "B" and row["suggestion_model"] == "judge-x"
    assert by[("alice", "q1")]["planted"] == "true"
    bob = by[("bob", "q7")]
    assert (bob["suggestion_label"], bob["suggestion_model"], bob["suggestion_shown"]) == ("", "", "false")
    jsonl = [json.loads(line) for line in cli("export", name, "--format", "jsonl", "--include-planted").splitlines()]
    assert [r["suggestion_shown"] for r in jsonl if r["annotator"] == "alice"] == [c[-1] for c in cases]

    out = cli("export", name, "--what", "suggestions")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["item", "source_model", "label", "swapped_label", "planted", "prompt_hash", "rationale"]
    assert rows[0] == {"item": "q0", "source_model": "judge-x", "label": "B", "swapped_label": "A", "planted": "false",
                       "prompt_hash": "p1", "rationale": "B is right"}
    assert rows[1]["planted"] == "true" and rows[1]["swapped_label"] == ""
