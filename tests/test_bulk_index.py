"""The votes' index built again after a bulk copy (`annotate.store.bulk_index`): only where no
staged vote can collide and the session holds no more votes than the file brings, with the same
index, the same rows and the same uniqueness after it as the copy row by row gives."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from formats_util import session

from annotate.formats import import_items, import_labels
from annotate.session import open_store
from annotate.store import Store
from annotate.store.bulk_index import rebuilt_indexes

INDEX = "idx_external_labels_source_rater_item_id"


def battles(n: int, seed: int, prefix: str = "q") -> list[dict[str, Any]]:
    rng = random.Random(seed)
    prompt = {"role": "user", "content": "a question"}
    return [{"question_id": f"{prefix}{k}", "model_a": "alpha-7b", "model_b": "beta-13b", "turn": 1,
             "winner": rng.choice(["model_a", "model_b", "tie"]), "judge": f"u{rng.randrange(40)}",
             "conversation_a": [prompt, {"role": "assistant", "content": f"one {k}"}],
             "conversation_b": [prompt, {"role": "assistant", "content": f"two {k}"}]} for k in range(n)]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def traced_import(store: Store, spec: Any, path: Path) -> list[str]:
    """Import the battles; the statements the session's connection ran."""
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    try:
        import_items(store, spec.schema, path, format="arena")
    finally:
        store.db.conn.set_trace_callback(None)
    return statements


def index_sql(store: Store) -> list[tuple[str, str]]:
    return store.db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'"
                            " AND tbl_name = 'external_labels'").fetchall()


def votes(store: Store) -> list[tuple[Any, ...]]:
    return store.db.execute("SELECT id, source, rater, cohort, item_id, label, raw FROM external_labels"
                            " ORDER BY id").fetchall()


def test_a_first_import_builds_the_index_after_the_copy(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        before = index_sql(store)
        statements = traced_import(store, spec, write(project / "a.jsonl", battles(300, 1)))
        assert any(s.startswith(f'DROP INDEX main."{INDEX}"') for s in statements)
        assert index_sql(store) == before
        assert len(votes(store)) == 300
        with pytest.raises(sqlite3.IntegrityError):  # still unique
            store.db.conn.execute("INSERT INTO external_labels (source, rater, cohort, item_id, label)"
                                  " SELECT source, rater, cohort, item_id, label FROM external_labels LIMIT 1")
        # the same file again: its votes are stored, so the copy goes row by row and adds nothing
        statements = traced_import(store, spec, write(project / "a.jsonl", battles(300, 1)))
        assert not any(s.startswith("DROP INDEX") for s in statements)
        assert len(votes(store)) == 300 and index_sql(store) == before


def test_row_by_row_where_a_vote_repeats(project: Path) -> None:
    spec = session(project)
    records = battles(200, 2)
    repeated = [*records, {**records[5], "winner": "tie (bothbad)"}]  # one vote twice: the first counts
    with open_store(spec) as store:
        statements = traced_import(store, spec, write(project / "r.jsonl", repeated))
        assert not any(s.startswith("DROP INDEX") for s in statements)
        assert len(votes(store)) == 200
        assert votes(store)[5][5] == {"model_a": "A", "model_b": "B", "tie": "tie"}[records[5]["winner"]]


@pytest.mark.parametrize(("battles_staged", "bulk"), [(300, False), (600, True)])
def test_in_bulk_only_where_the_file_brings_as_many_votes_as_are_stored(
        project: Path, battles_staged: int, bulk: bool) -> None:
    spec = session(project)
    items = [{"id": f"n{k}", "prompt": f"p {k}", "responses": {"A": {"text": "a"}, "B": {"text": "b"}}}
             for k in range(500)]
    (project / "votes.csv").write_text("item,rater,label\n" + "".join(f"n{k},r{k % 7},A\n" for k in range(500)))
    with open_store(spec) as store:
        import_items(store, spec.schema, write(project / "items.jsonl", items))
        import_labels(store, spec.schema, project / "votes.csv", cohort="expert", source="panel")
        statements = traced_import(store, spec, write(project / "a.jsonl", battles(battles_staged, 3)))
        assert any(s.startswith("DROP INDEX") for s in statements) is bulk
        assert len(votes(store)) == 500 + battles_staged


def test_the_votes_are_those_the_copy_row_by_row_stores(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(project / "a.jsonl", battles(400, 5))
    stored = []
    for name in ("bulk", "rows"):
        if name == "rows":
            monkeypatch.setattr("annotate.store.staging.ImportStaging._votes_in_bulk", lambda self, n: False)
        spec = session(project, name)
        with open_store(spec) as store:
            import_items(store, spec.schema, path, format="arena")
            stored.append((votes(store), index_sql(store)))
    assert stored[0] == stored[1]


def test_an_error_in_the_block_leaves_the_index(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        before = index_sql(store)
        with pytest.raises(ValueError), store.transaction(), rebuilt_indexes(store.db.conn, "external_labels"):
            assert index_sql(store) == []
            raise ValueError("stop")
        assert index_sql(store) == before
        with pytest.raises(RuntimeError, match="write transaction"), rebuilt_indexes(store.db.conn, "external_labels"):
            pass
