"""Item facts kept from the import (migration v14): slot models and lengths and style counts, the same
as reading and counting the stored responses, renewed when an item's content changes, and read from
the responses by the report for items stored without them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from formats_util import session, write_jsonl

from annotate.analysis.style import FEATURES, features_of_texts
from annotate.formats import import_items
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.report.style_counts import style_counts
from annotate.session import open_store
from annotate.store import frames, response_frames
from annotate.store.item_facts import STYLE_FEATURES
from annotate.store.response_frames import pairwise_texts
from annotate.store.schema import MIGRATIONS, SCHEMA_VERSION, _v14_item_facts

TEXTS = (
    "# Title\n\n- **one**\n- two\n\n```\n# not a header\n```",
    "Plain words, and punctuation... lots!!",
    "1. first\n2. second __bold__\n\n## Part\ntext",
    "",
    "naïve café — ünïcode ** not bold ** ok",
)


def record(k: int, a: str, b: str) -> dict:
    return {"id": f"p{k}", "prompt": f"Question {k}?",
            "responses": {"A": {"text": a, "model": "m1"}, "B": {"text": b, "model": "m2"}}}


def records() -> list[dict]:
    return [record(k, TEXTS[k % len(TEXTS)], TEXTS[(k * 3 + 1) % len(TEXTS)]) for k in range(12)]


def from_texts(store) -> list[tuple]:
    """The counts as the report counted them before v14: from every stored text."""
    rows = []
    for ids, texts_a, texts_b in pairwise_texts(store):
        for item, a, b in zip(ids, features_of_texts(texts_a).tolist(), features_of_texts(texts_b).tolist(),
                              strict=True):
            rows.append((item, *a, *b))
    return rows


def stored_rows(spec) -> dict[str, tuple]:
    with sqlite3.connect(spec.db) as conn:
        return {r[0]: tuple(r[1:]) for r in conn.execute("SELECT * FROM item_facts")}


def test_the_features_are_the_analysis_ones() -> None:
    assert STYLE_FEATURES == FEATURES


def test_counts_stored_at_import_equal_the_counts_of_the_texts(project: Path) -> None:
    spec = session(project)
    path = write_jsonl(project / "items.jsonl", records())
    with open_store(spec) as store:
        import_items(store, spec.schema, path)
        expected = from_texts(store)
        assert len(stored_rows(spec)) == 12  # every item was counted by the import
        frame = style_counts(store)
        items = frames.items_frame(store)
        empty = response_frames.empty_responses_frame(store)
        expected_empty = [("p3", "A"), ("p4", "B"), ("p8", "A"), ("p9", "B")]  # TEXTS[3] is empty
        assert list(zip(empty["item"], empty["slot"], strict=True)) == expected_empty
        store.db.execute("DELETE FROM item_facts WHERE item_id IN ('p1', 'p3', 'p4')")  # some read from the texts
        assert frames.items_frame(store).equals(items)
        assert response_frames.empty_responses_frame(store).equals(empty)
        store.db.execute("DELETE FROM item_facts")  # all of them
        assert frames.items_frame(store).equals(items)
        assert response_frames.empty_responses_frame(store).equals(empty)
    assert [tuple(r) for r in frame.itertuples(index=False)] == expected
    assert [str(t) for t in frame.dtypes.iloc[1:]] == ["int64"] * 8


def test_a_changed_item_is_recounted_and_a_reimport_renews_its_row(project: Path) -> None:
    spec = session(project)
    path = write_jsonl(project / "items.jsonl", records())
    with open_store(spec) as store:
        import_items(store, spec.schema, path)
    before = stored_rows(spec)["p0"]
    # The item p0 stored again with another answer in slot A (as a session another version wrote could hold
    # it): its stored counts are of the old content, so they no longer count.
    changed = records()
    changed[0] = record(0, "## New\n\n- a\n- b\n- c **x**", TEXTS[1])
    other = project / "other"
    other.mkdir()
    other_spec = session(other)
    with open_store(other_spec) as store:
        import_items(store, other_spec.schema, write_jsonl(other / "items.jsonl", changed))
    with sqlite3.connect(other_spec.db) as conn:
        responses, digest = conn.execute("SELECT responses, content_hash FROM items WHERE id = 'p0'").fetchone()
    with sqlite3.connect(spec.db) as conn:
        conn.execute("UPDATE items SET responses = ?, content_hash = ? WHERE id = 'p0'", [responses, digest])
    with open_store(spec) as store:
        frame = style_counts(store)
        assert [tuple(r) for r in frame.itertuples(index=False)] == from_texts(store)
        assert tuple(frame.iloc[0, 1:5]) != before[5:9]
        assert frames.items_frame(store).iloc[0]["len_a"] == len("## New\n\n- a\n- b\n- c **x**")  # read again
        import_items(store, spec.schema, write_jsonl(project / "changed.jsonl", changed))
    new_a = len("## New\n\n- a\n- b\n- c **x**")
    assert stored_rows(spec)["p0"] == (digest, "m1", "m2", new_a, len(TEXTS[1]), *tuple(frame.iloc[0, 1:]), None)


def _as_before_v14(spec) -> None:
    with sqlite3.connect(spec.db) as conn:
        conn.execute("DROP TABLE item_facts")
        conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(_v14_item_facts)}")


def test_a_session_from_before_v14_reports_the_same(project: Path) -> None:
    spec = session(project)
    battles = [{"question_id": f"q{k}", "model_a": "alpha-7b", "model_b": "beta-13b",
                "winner": ("model_a", "model_b", "tie")[k % 3], "judge": f"j{k % 4}", "turn": 1,
                "conversation_a": [{"role": "user", "content": f"q {k}"},
                                   {"role": "assistant", "content": TEXTS[k % len(TEXTS)]}],
                "conversation_b": [{"role": "user", "content": f"q {k}"},
                                   {"role": "assistant", "content": TEXTS[(k + 2) % len(TEXTS)] + " more"}]}
               for k in range(30)]
    path = project / "arena.json"
    path.write_text(json.dumps(battles), encoding="utf-8")
    with open_store(spec) as store:
        import_items(store, spec.schema, path, format="arena")
        assert len(stored_rows(spec)) == 30
        new = json.loads(render(build_report(spec, store, n_boot=20, seed=3), "json"))
        counted = style_counts(store)
        items = frames.items_frame(store)
    _as_before_v14(spec)
    with open_store(spec) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert stored_rows(spec) == {}
        old = json.loads(render(build_report(spec, store, n_boot=20, seed=3), "json"))
        assert style_counts(store).equals(counted)
        assert frames.items_frame(store).equals(items)
        import_items(store, spec.schema, path, format="arena")  # an import again fills them in
    assert len(stored_rows(spec)) == 30
    new.pop("generated", None)
    old.pop("generated", None)
    assert old == new
    assert new["style_control"]["humans"] is not None
