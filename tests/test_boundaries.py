"""Boundaries (issue 7, point 6): nothing points outside the project, secrets stay out, planted stays out.

- Spec and guideline paths cannot lead out of the project: not by `..`, an absolute path, or a
  symbolic link (the session file, a guideline file, or a spec named by session name). Links that
  stay inside are fine. (Every command's refusal, with the session file unchanged, is in
  tests/bad_input/spec_cases.py::SESSION_CASES.)
- The API key of `annotate suggest` is never in the session file (nor its -wal / -shm), in anything
  printed, logged, exported or reported, even when a leaky server echoes it back in a reply or an
  error body.
- Judgments made under planted suggestions, and planted suggestions themselves, are in no export or
  report unless asked for with --include-planted.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from chat_server import ChatServer
from click.testing import CliRunner
from conftest import make_item

from annotate.cli import main
from annotate.guidelines import GuidelineError, find_guideline, load_guideline
from annotate.model import Assignment, Judgment, Suggestion, Timings
from annotate.session import SessionError, create_session, load_session, open_store
from annotate.spec import SessionSpec, SpecError, load_spec

KEY = "sk-boundary-SECRET-0a1b2c3d4e5f6789"
KEY_ENV = "ANNOTATE_BOUNDARY_KEY"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout + result.stderr


def files_bytes(spec: SessionSpec) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm"):
        path = Path(str(spec.db) + suffix)
        if path.exists():
            data += path.read_bytes()
    return data


# -- paths ----------------------------------------------------------------------------------------


def test_db_links_inside_the_folder_are_fine_and_links_out_are_refused(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "real.db").write_bytes(b"")
    (sessions / "alias.db").symlink_to(sessions / "real.db")
    spec_path = sessions / "s.toml"
    spec_path.write_text('[session]\nkind = "pairwise"\ndb = "alias.db"\n')
    assert load_spec(spec_path).db == (sessions / "real.db").resolve()
    (tmp_path / "far").mkdir()
    (sessions / "away").symlink_to(tmp_path / "far", target_is_directory=True)
    spec_path.write_text('[session]\nkind = "pairwise"\ndb = "away/s.db"\n')
    with pytest.raises(SpecError, match="symbolic link") as info:
        load_spec(spec_path)
    assert info.value.key == "session.db"
    spec_path.write_text('[session]\nkind = "pairwise"\ndb = "."\n')
    with pytest.raises(SpecError, match="inside it"):
        load_spec(spec_path)


def test_a_shared_sessions_folder_may_be_a_link(tmp_path: Path) -> None:
    """Only links that lead a *file* out of its folder are refused: a whole sessions/ folder kept
    elsewhere (a shared disk) works, and its session file sits beside its spec."""
    shared = tmp_path / "shared-sessions"
    create_session("s", "pairwise", folder=shared)
    project = tmp_path / "project"
    project.mkdir()
    (project / "sessions").symlink_to(shared, target_is_directory=True)
    spec = load_session("s", cwd=project)
    assert spec.db == (shared / "s.db").resolve()


def test_a_session_name_cannot_lead_out_of_the_project(tmp_path: Path) -> None:
    elsewhere = create_session("s", "pairwise", folder=tmp_path / "elsewhere")
    project = tmp_path / "project"
    (project / "sessions").mkdir(parents=True)
    (project / "sessions" / "s.toml").symlink_to(elsewhere.path)
    with pytest.raises(SessionError, match="symbolic link"):
        load_session("s", cwd=project)
    assert load_session(str(elsewhere.path), cwd=project).db == elsewhere.db  # a path is explicit


def test_guideline_links_out_of_the_project_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\nid: house\nversion: 1\n---\nnot for annotators\n")
    project = tmp_path / "project"
    (project / "guidelines").mkdir(parents=True)
    (project / "guidelines" / "house.md").symlink_to(outside / "secret.md")
    with pytest.raises(GuidelineError, match="symbolic link"):
        find_guideline("house", project)
    # a link that stays in the folder (an alias of another guideline) is fine
    (project / "guidelines" / "base.md").write_text("---\nid: alias\nversion: 2\n---\nbody\n")
    (project / "guidelines" / "alias.md").symlink_to(project / "guidelines" / "base.md")
    assert load_guideline("alias", project).version == "2"
    for bad in ("../outside/secret", "/etc/passwd", "house/../../x", "House"):
        with pytest.raises(GuidelineError, match="plain name"):
            find_guideline(bad, project)


# -- secrets --------------------------------------------------------------------------------------


@pytest.fixture
def judged(project: Path, monkeypatch: pytest.MonkeyPatch) -> SessionSpec:
    monkeypatch.setenv(KEY_ENV, KEY)
    spec = create_session("t", "pairwise", seed=5, folder=project / "sessions")
    with open_store(spec) as store:
        store.add_items([
            make_item(f"e{n}", a=f"slot-A answer {'GOOD' if n % 2 else 'meh'} echo{n}", b="slot-B answer meh")
            for n in range(6)
        ])
    return spec


def test_the_api_key_never_lands_anywhere_even_when_the_server_echoes_it(
    judged: SessionSpec, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    behaviours = {"echo0": [("echo", 200)], "echo1": [("echo", 200)], "echo2": [("echo", 500)],
                  "echo3": [("echo", 400)], "echo4": [("echo", 200)], "echo5": [("echo", 422)]}
    with ChatServer(behaviours) as server:
        code, out = run("suggest", "t", "--endpoint", server.url, "--model", "judge-1", "--api-key-env", KEY_ENV,
                        "--max-retries", "0", "--timeout", "5")
        sent = [r["headers"].get("Authorization", "") for r in server.requests]
    assert code == 0, out
    assert sent and all(header == f"Bearer {KEY}" for header in sent)  # the key was used...
    with open_store(judged) as store:
        raws = [s.raw for s in store.suggestions()] + [f.raw + f.error for f in store.suggestion_failures()]
        assert len(store.suggestions()) >= 3 and store.suggestion_failures()
    assert any("[API key]" in raw for raw in raws)  # ...and what came back with it was kept, key replaced
    assert all(KEY not in raw for raw in raws)
    assert KEY.encode() not in files_bytes(judged)
    assert KEY not in out and KEY not in caplog.text
    outputs = [out]
    for args in (("export", "t"), ("export", "t", "--what", "items", "--format", "jsonl"),
                 ("export", "t", "--what", "labels"), ("status", "t"), ("report", "t", "--format", "json"),
                 ("report", "t", "--format", "html", "--bootstrap", "0"), ("debrief", "t", "--annotator", "x")):
        outputs.append(run(*args)[1])
    assert all(KEY not in text for text in outputs)
    assert KEY.encode() not in files_bytes(judged)


# -- planted suggestions --------------------------------------------------------------------------

PLANTED_JUDGE = "planted-judge-zq7"
PLANTED_NOTE = "rationale-under-planted-zq7"


@pytest.fixture
def planted(project: Path) -> SessionSpec:
    """Two annotators; bob's judgment of e1 was made under a planted suggestion."""
    spec = create_session("p", "pairwise", seed=5, folder=project / "sessions")
    t = Timings("2026-11-30T10:00:00+00:00", 150, 4200, 4000)
    with open_store(spec) as store:
        store.add_items([make_item(f"e{n}", gold="A" if n == 1 else None) for n in range(3)])
        wrong = store.add_suggestions([Suggestion("e1", PLANTED_JUDGE, "B", rationale="planted", planted=True)])[0]
        assignments = store.add_assignments([
            Assignment(0, "alice", "e0", 0), Assignment(0, "alice", "e1", 1), Assignment(0, "alice", "e2", 2),
            Assignment(0, "bob", "e0", 0), Assignment(0, "bob", "e1", 1, condition="upfront",
                                                      suggestion_id=wrong.id),
            Assignment(0, "bob", "e2", 2),
        ])
        for a, label in zip(assignments, ["A", "A", "B", "A", "B", "B"], strict=True):
            note = PLANTED_NOTE if a.suggestion_id else ""
            store.submit(Judgment(a.id, label, t, rationale=note))
    return spec


def test_exports_and_reports_leave_planted_out_unless_asked(planted: SessionSpec) -> None:
    for what in ("judgments", "items", "labels"):
        for fmt in ("csv", "jsonl"):
            code, out = run("export", "p", "--what", what, "--format", fmt)
            assert code == 0, out
            assert PLANTED_NOTE not in out and PLANTED_JUDGE not in out, (what, fmt)
    code, out = run("export", "p", "--include-planted")
    assert PLANTED_NOTE in out  # on request
    for fmt in ("text", "md", "html", "json"):
        code, out = run("report", "p", "--format", fmt, "--bootstrap", "0")
        assert code == 0, out
        assert PLANTED_JUDGE not in out and PLANTED_NOTE not in out
    data = json.loads(run("report", "p", "--format", "json", "--bootstrap", "0")[1])
    assert data["session"]["n_judgments"] == 5 and data["session"]["excluded"]["planted"] == 1
    asked = json.loads(run("report", "p", "--format", "json", "--bootstrap", "0", "--include-planted")[1])
    assert asked["session"]["n_judgments"] == 6
