"""The researcher's path, through the command line: a two-arm experiment (none vs upfront, 20 %
planted), suggestions from a judge server on loopback, a plan for a few annotators, their
judgments, and the rubber-stamp rate with its interval read off the report. Also precomputed LLM
labels imported as suggestions, planted judgments left out of exports, and the debrief."""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from chat_server import ChatServer
from click.testing import CliRunner

from annotate.cli import main
from annotate.model import Judgment, Timings
from annotate.session import load_session, open_store
from annotate.store.suggestion_frames import anchoring_frame

N_ITEMS = 40
ANNOTATORS = ["alice", "bob", "carol", "dave"]


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def write_items(path: Path) -> None:
    rng = random.Random(1)
    with path.open("w", encoding="utf-8") as out:
        for n in range(N_ITEMS):
            gold = "A" if n % 2 else "B"
            judge_right = n % 4 != 0  # the judge server prefers the answer marked GOOD
            good = gold if judge_right else ("B" if gold == "A" else "A")
            responses = {
                slot: {"text": f"slot-{slot} answer {n} {'GOOD' if slot == good else 'plain'} {rng.random():.3f}",
                       "model": f"m-{slot}"}
                for slot in ("A", "B")
            }
            out.write(json.dumps({"id": f"q{n:02d}", "prompt": f"question {n}", "responses": responses,
                                  "gold": gold}) + "\n")


def annotate_queue(spec_ref: str, follow: float = 0.7, accuracy: float = 0.9, seed: int = 0) -> None:
    """Synthetic annotators judge their whole queue, through the Store as the app would."""
    spec = load_session(spec_ref)
    rng = random.Random(seed)
    now = datetime.now(UTC).isoformat()
    with open_store(spec) as store:
        for a in store.assignments():
            gold = store.item(a.item_id).gold
            own = gold if rng.random() < accuracy else ("B" if gold == "A" else "A")
            shown = a.condition == "upfront" and a.suggestion_id is not None
            label = own
            if shown and rng.random() < follow:
                label = store.suggestion(a.suggestion_id).label
            timings = Timings(now, 500, 4000, 4000 if label == own else 2000, suggestion_ms=3000 if shown else None)
            store.submit(Judgment(a.id, label, timings))


@pytest.fixture
def session(project: Path) -> str:
    cli("init", "evals", "--kind", "pairwise", "--seed", "11")
    write_items(project / "items.jsonl")
    cli("import", "evals", "items.jsonl")
    spec_path = project / "sessions" / "evals.toml"
    text = spec_path.read_text().replace(
        'modes = ["none"]\nplanted_rate = 0.0',
        'modes = ["none", "upfront"]\nassign = "within"\nplanted_rate = 0.2',
    )
    spec_path.write_text(text)
    return "evals"


def test_two_arm_experiment_end_to_end(session: str) -> None:
    with ChatServer() as server:
        out = cli("suggest", session, "--endpoint", server.url, "--model", "judge-small")
    assert "40 suggestions" in out and "position consistency: 40 of 40" in out
    out = cli("plan", session, "--annotators", ",".join(ANNOTATORS), "--overlap", "4")
    assert "modes none, upfront (within)" in out
    assert "planted wrong on 8 of 40 gold items" in out
    spec = load_session(session)
    with open_store(spec) as store:
        assignments = store.assignments()
        assert {a.condition for a in assignments} == {"none", "upfront"}
        assert all(a.suggestion_id is not None for a in assignments)
        assert store.get_meta("experiment_hash") and store.get_meta("plan_hash")
    annotate_queue(session)

    report = cli("report", session, "--format", "md", "--bootstrap", "300")
    assert "Suggestions" in report
    assert "Rubber-stamp rate under upfront" in report
    data = json.loads(cli("report", session, "--format", "json", "--bootstrap", "300"))
    section = data["suggestions"]
    effect = section["effects"][0]
    assert effect["mode"] == "upfront"
    low, high = effect["delta"]["ci"]
    assert low <= effect["delta"]["estimate"] <= high
    assert effect["delta"]["estimate"] > 0.3 and low > 0  # following 70 % of the time is found
    assert effect["p_value"] < 0.05
    by = {c["condition"]: c for c in section["conditions"]}
    assert by["upfront"]["over_reliance"]["estimate"] > by["none"]["over_reliance"]["estimate"]
    assert section["position_consistency"] == {"n": 40, "consistent": 40}
    assert section["n_planted_judgments"] == 8 * 4

    # planted judgments are left out of exports unless asked for
    rows = list(csv.DictReader(io.StringIO(cli("export", session))))
    everything = list(csv.DictReader(io.StringIO(cli("export", session, "--include-planted"))))
    assert len(everything) == N_ITEMS * 4 and len(rows) == N_ITEMS * 4 - 32
    assert {r["planted"] for r in rows} == {"false"}

    out = cli("debrief", session, "--annotator", "alice")
    assert "deliberately wrong (planted)" in out and "judge-small" not in out
    assert "Planted wrong suggestions you saw:" in out


def test_precomputed_labels_as_suggestions(session: str, project: Path) -> None:
    (project / "judge.csv").write_text(
        "item,rater,label\n" + "".join(f"q{n:02d},gpt-judge,{'A' if n % 3 else 'B'}\n" for n in range(N_ITEMS))
    )
    out = cli("labels", "import", session, "judge.csv", "--as-suggestions")
    assert "added 40 suggestions (0 unchanged) from gpt-judge" in out
    out = cli("labels", "import", session, "judge.csv", "--as-suggestions")
    assert "added 0 suggestions (40 unchanged)" in out
    spec = load_session(session)
    with open_store(spec) as store:
        suggestions = store.suggestions()
        assert len(suggestions) == 40 and store.external_labels() == []
        assert {s.source_model for s in suggestions} == {"gpt-judge"}
        assert suggestions[0].prompt_hash == "import:judge.csv"
    result = CliRunner().invoke(main, ["labels", "import", session, "judge.csv"])
    assert result.exit_code == 2 and "--cohort is required" in result.output
    cli("plan", session, "--annotators", "alice,bob", "--overlap", "2")
    with open_store(spec) as store:
        linked = {store.suggestion(a.suggestion_id).source_model for a in store.assignments()}
    assert linked == {"gpt-judge"}


def test_invalid_and_unmapped_judge_labels_are_not_suggestions(session: str, project: Path) -> None:
    (project / "judge.csv").write_text("item,rater,label\nq00,gpt-judge,A\nq01,gpt-judge,garbage\nq02,gpt-judge,??\n")
    out = cli("labels", "import", session, "judge.csv", "--as-suggestions", "--label-map", "garbage=invalid",
              "--skip-unmapped")
    assert "added 1 suggestion (0 unchanged) from gpt-judge; 2 left out (invalid or unmapped)" in out
    with open_store(load_session(session)) as store:
        assert [(s.item_id, s.label) for s in store.suggestions()] == [("q00", "A")]
    result = CliRunner().invoke(main, ["labels", "import", session, "judge.csv", "--as-suggestions",
                                       "--shown-first", "A"])
    assert result.exit_code == 2 and "not --as-suggestions" in result.output


def test_anchoring_frame_columns(session: str) -> None:
    with ChatServer() as server:
        cli("suggest", session, "--endpoint", server.url, "--model", "judge-small")
    cli("plan", session, "--annotators", "alice,bob", "--overlap", "2")
    annotate_queue(session, follow=1.0, accuracy=1.0)
    spec = load_session(session)
    with open_store(spec) as store:
        frame = anchoring_frame(store)
    assert len(frame) == N_ITEMS * 2
    shown = frame[frame["condition"] == "upfront"]
    assert shown["shown"].all() and (shown["suggestion"] == shown["final_label"]).all()
    assert not frame.loc[frame["condition"] == "none", "shown"].any()
    planted = frame[frame["planted"]]
    assert len(planted) == 16 and (planted["suggestion_correct"] == False).all()  # noqa: E712
    assert (planted["suggestion"] != planted["gold"]).all()


def test_two_prompts_are_two_judge_versions_with_their_drift(session: str, project: Path) -> None:
    """What `annotate suggest` stores with each suggestion (model, prompt hash and source, settings) is
    what the report's drift table reads: a second prompt on the same items is a second version."""
    from annotate.suggest.prompts import shipped_prompt_text

    strict = project / "strict.txt"
    strict.write_text(shipped_prompt_text("pairwise").replace("--- user ---\n", "--- user ---\nSTRICT judging.\n"))
    with ChatServer(behaviours={"STRICT": [("text", "Neither stands out. [[C]]")]}) as server:
        cli("suggest", session, "--endpoint", server.url, "--model", "judge-small")
        cli("suggest", session, "--endpoint", server.url, "--model", "judge-small", "--prompt", str(strict),
            "--max-tokens", "512")
    cli("plan", session, "--annotators", "alice,bob", "--overlap", "2")
    annotate_queue(session)
    data = json.loads(cli("report", session, "--format", "json", "--bootstrap", "50"))
    drift = data["judge_trust"]["drift"]
    versions = {v["prompt_source"]: v for v in drift["versions"]}
    assert set(versions) == {"shipped:pairwise", str(strict)}
    assert versions[str(strict)]["settings"].startswith("max_tokens=512")
    assert versions["shipped:pairwise"]["settings"].startswith("max_tokens=1024")
    assert {v["n_suggestions"] for v in versions.values()} == {N_ITEMS}
    [pair] = drift["pairs"]
    assert pair["n_shared"] == N_ITEMS and pair["n_differ"] == N_ITEMS  # the strict prompt always says tie
    assert pair["agreement"]["estimate"] == 0.0
    text = cli("report", session, "--format", "md", "--bootstrap", "0")
    assert "Drift between judge versions" in text and "strict.txt)" in text  # Markdown escapes the path
