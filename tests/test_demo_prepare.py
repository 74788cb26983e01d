"""prepare_demo: a scratch pairwise session with the shipped items, reused on a second call."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.demo import DEMO_SEED, default_folder, prepare_demo
from annotate.model import Assignment
from annotate.session import open_store


def test_creates_the_session_and_imports_the_items(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    spec = prepare_demo(tmp_path / "demo")
    assert spec.path == (tmp_path / "demo" / "sessions" / "demo.toml").resolve()
    assert (spec.kind, spec.guideline, spec.seed) == ("pairwise", "pairwise-chat", DEMO_SEED)
    with open_store(spec) as store:
        items = store.items()
    assert len(items) >= 44 and all(item.kind == "pairwise" for item in items)
    assert not (tmp_path / "sessions").exists()  # the user's ./sessions is never touched


def test_second_call_reuses_the_session(tmp_path: Path) -> None:
    spec = prepare_demo(tmp_path)
    with open_store(spec) as store:
        store.add_assignments([Assignment(0, "you", store.item_ids()[0], 0)])
        count = store.count_items()
    again = prepare_demo(tmp_path)
    assert again == spec
    with open_store(again) as store:
        assert store.count_items() == count and len(store.assignments("you")) == 1


def test_fresh_starts_over(tmp_path: Path) -> None:
    spec = prepare_demo(tmp_path)
    keep = tmp_path / "sessions" / "other.toml"
    keep.write_text("not ours")
    with open_store(spec) as store:
        store.add_assignments([Assignment(0, "you", store.item_ids()[0], 0)])
    fresh = prepare_demo(tmp_path, fresh=True)
    with open_store(fresh) as store:
        assert store.assignments() == [] and store.count_items() >= 44
    assert keep.read_text() == "not ours"


def test_default_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_folder() == tmp_path / "annotate" / "demo"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_folder() == Path.home() / ".cache" / "annotate" / "demo"


def test_fresh_never_deletes_a_session_the_demo_did_not_make(tmp_path: Path) -> None:
    """`annotate demo --dir PROJECT --fresh` in a project that has its own session called demo."""
    from annotate.session import SessionError, create_session

    own = create_session("demo", "pairwise", seed=1, folder=tmp_path / "sessions")
    before = {p.name: p.read_bytes() for p in (tmp_path / "sessions").iterdir()}
    with pytest.raises(SessionError, match="not the demo's own session"):
        prepare_demo(tmp_path, fresh=True)
    assert {p.name: p.read_bytes() for p in (tmp_path / "sessions").iterdir()} == before
    assert own.db.is_file()


def test_fresh_starts_the_demo_over(tmp_path: Path) -> None:
    spec = prepare_demo(tmp_path)
    with open_store(spec) as store:
        store.set_meta("scribble", "x")
    spec = prepare_demo(tmp_path, fresh=True)
    with open_store(spec) as store:
        assert store.get_meta("scribble") is None and store.count_items() > 40


def test_the_ranking_demo_ranks_four_named_responses_per_item(tmp_path: Path) -> None:
    spec = prepare_demo(tmp_path, kind="ranking")
    assert (spec.name, spec.kind, spec.guideline) == ("demo-ranking", "ranking", "ranking-responses")
    with open_store(spec) as store:
        items = store.items()
    assert len(items) >= 8 and all(item.kind == "ranking" for item in items)
    for item in items:
        assert [r.slot for r in item.responses] == ["A", "B", "C", "D"]
        assert len(set(item.models)) == 4 and all(r.text.strip() for r in item.responses)
    again = prepare_demo(tmp_path, fresh=True, kind="ranking")  # --fresh deletes only its own session
    assert again.path == spec.path
