"""The training round's core: the [training] table, training files, rounds and their sides, the
lead's override, the command line and the schema migration."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from formats_util import cli, session

from annotate.formats.errors import FormatError
from annotate.model import Assignment, Judgment, Timings
from annotate.session import open_store
from annotate.spec import SpecError, load_spec
from annotate.store import Store
from annotate.store.store import ItemConflict
from annotate.store.training import (
    add_training_items,
    answer,
    round_entries,
    set_override,
    start_round,
    training_state,
)
from annotate.training import import_training, needed, read_training_file, round_order
from tests.migration_util import drop_item_facts, drop_open_queue, drop_training_tables, drop_vote_tallies
from tests.training_util import add_training_table, training_item, training_lines, write_training_file


def _spec_text(kind: str = "pairwise", training: str = "pass_threshold = 0.8", labels: str = "") -> str:
    return f"[session]\nkind = '{kind}'\n{labels}\n[training]\n{training}\n"


# -- the [training] table ---------------------------------------------------------------------------


def test_a_training_table_loads(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(_spec_text(training="pass_threshold = 0.8\nretries = 2"), encoding="utf-8")
    spec = load_spec(path)
    assert spec.training is not None and (spec.training.pass_threshold, spec.training.retries) == (0.8, 2)
    path.write_text("[session]\nkind = 'pairwise'\n", encoding="utf-8")
    assert load_spec(path).training is None


BAD_TABLES = [
    ("pairwise", "retries = 1", "", "training.pass_threshold", "the key is missing"),
    ("pairwise", "pass_threshold = 1.5", "", "training.pass_threshold", "not 1.5"),
    ("pairwise", "pass_threshold = -0.1", "", "training.pass_threshold", "a share from 0 to 1"),
    ("pairwise", "pass_threshold = '80%'", "", "training.pass_threshold", "not '80%'"),
    ("pairwise", "pass_threshold = true", "", "training.pass_threshold", "not True"),
    ("pairwise", "pass_treshold = 0.8", "", "training.pass_treshold", "did you mean 'pass_threshold'"),
    ("pairwise", "pass_threshold = 0.8\nretries = -1", "", "training.retries", "an integer >= 0"),
    ("single", "pass_threshold = 0.8", "", "training", "single has none yet"),
    ("rubric", "pass_threshold = 0.8", "", "training", "rubric has none yet"),
    ("ranking", "pass_threshold = 0.8", "[labels]\nk = 4\n", "training", "ranking has none yet"),
    ("pairwise", "pass_threshold = 0.8", "[labels]\nscale = 'graded-5'\n", "training", "graded or aspects"),
]


@pytest.mark.parametrize(("kind", "training", "labels", "key", "words"), BAD_TABLES)
def test_a_bad_training_table_names_the_key(tmp_path: Path, kind: str, training: str, labels: str, key: str,
                                            words: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text(_spec_text(kind, training, labels), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.key == key and words in str(caught.value) and "\n" not in str(caught.value)


# -- training files -------------------------------------------------------------------------------


def _pairwise_schema(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "s.toml"
    path.write_text(_spec_text(), encoding="utf-8")
    return load_spec(path).schema


def _file(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "training.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _edit(line: str, **changes: object) -> str:
    data = json.loads(line)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return json.dumps(data)


BAD_FILES = [
    ({"explanation": None}, 'field "explanation": expected a non-empty string', "got nothing"),
    ({"explanation": "  "}, 'field "explanation": expected a non-empty string', 'got "  "'),
    ({"explanation": 3}, 'field "explanation"', "got 3"),
    ({"gold": None}, 'field "gold": expected a gold label', "got nothing"),
    ({"gold": "C"}, 'field "gold"', '"C"'),
    ({"colour": "red"}, '"colour"', ""),
]


@pytest.mark.parametrize(("changes", "where", "words"), BAD_FILES)
def test_a_bad_training_item_names_the_file_line_and_field(tmp_path: Path, changes: dict, where: str,
                                                           words: str) -> None:
    lines = training_lines()
    lines[1] = _edit(lines[1], **changes)
    with pytest.raises(FormatError) as caught:
        read_training_file(_file(tmp_path, lines), _pairwise_schema(tmp_path))
    message = str(caught.value)
    assert "training.jsonl: line 2: " in message and where in message and words in message
    assert "\n" not in message


def test_a_training_id_twice_and_an_empty_file_are_refused(tmp_path: Path) -> None:
    lines = training_lines()
    with pytest.raises(FormatError, match="line 3: field \"id\": expected an id used once"):
        read_training_file(_file(tmp_path, [lines[0], lines[1], lines[0]]), _pairwise_schema(tmp_path))
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(FormatError, match="at least one training item"):
        read_training_file(tmp_path / "empty.jsonl", _pairwise_schema(tmp_path))


def test_importing_needs_the_table_and_own_ids_and_is_idempotent(project: Path) -> None:
    spec = session(project)
    path = write_training_file(project)
    with open_store(spec) as store:
        with pytest.raises(ValueError, match=r"\[training\] a table with pass_threshold"):
            import_training(store, spec, path)
        spec = add_training_table(spec)
        assert import_training(store, spec, path).added == 4
        assert import_training(store, spec, path).unchanged == 4
        changed = [_edit(line, explanation="another reason") for line in training_lines()]
        with pytest.raises(ItemConflict, match="train-0"):
            import_training(store, spec, _file(project, changed))
        store.add_items([training_item(9, "A").item.__class__(**{**training_item(9, "A").item.__dict__,
                                                                 "id": "main-1"})])
        clash = [_edit(training_lines()[0], id="main-1")]
        with pytest.raises(ItemConflict, match="main item's id"):
            import_training(store, spec, _file(project, clash))
        assert store.count_items() == 1  # training items are never main items


# -- rounds -----------------------------------------------------------------------------------------


def test_a_round_is_seeded_and_counterbalanced() -> None:
    ids = [f"t{i}" for i in range(7)]
    assert round_order(ids, 5, "alice", 1) == round_order(list(reversed(ids)), 5, "alice", 1)
    assert round_order(ids, 5, "alice", 1) != round_order(ids, 5, "alice", 2)
    swapped_per_item: Counter[str] = Counter()
    names = [f"a{n}" for n in range(40)]
    for name in names:
        order = round_order(ids, 5, name, 1)
        assert sorted(i for i, _ in order) == ids
        assert sum(s for _, s in order) in (3, 4)  # half the sides swapped, within one
        swapped_per_item.update(i for i, s in order if s)
    assert all(10 <= swapped_per_item[i] <= 30 for i in ids)  # each item about half the time each way


def test_needed_right_answers() -> None:
    assert [needed(5, t) for t in (0.0, 0.5, 0.8, 0.81, 1.0)] == [0, 3, 4, 5, 5]


def test_answers_are_stored_in_slot_space_and_decide_the_state(project: Path) -> None:
    spec = add_training_table(session(project), threshold=0.75, retries=0)
    with open_store(spec) as store:
        assert training_state(store, spec, "alice") is None  # no training items yet: no round
        add_training_items(store, [training_item(i, g) for i, g in enumerate(("A", "B", "tie", "A"))])
        state = training_state(store, spec, "alice")
        assert state is not None and state.verdict == "not started" and not state.opens
        entries = start_round(store, spec, "alice")
        assert start_round(store, spec, "alice") == entries  # the round is made once
        assert {e.swapped for e in entries} == {True, False}
        golds = {"train-0": "A", "train-1": "B", "train-2": "tie", "train-3": "A"}
        for entry in entries:
            answer(store, entry, golds[entry.item_id] if entry.item_id != "train-2" else "both_bad")
        with pytest.raises(ValueError, match="already answered"):
            answer(store, entries[0], "A")
        state = training_state(store, spec, "alice")
        assert (state.correct, state.total, state.score, state.verdict) == (3, 4, 0.75, "passed")
        set_override(store, "bob", "pass", by="lead")
        set_override(store, "bob", "revoke", by="lead")
        assert training_state(store, spec, "bob").override == "revoke"
        assert not training_state(store, spec, "bob").opens
        assert store.judgments() == []  # training answers are never judgments


def test_the_command_line_lists_and_lets_through(project: Path) -> None:
    spec = session(project)
    training = write_training_file(project)
    refused = cli("import", "s", str(training), "--training")
    assert refused.exit_code == 1 and "[training]" in refused.output and refused.output.count("\n") == 1
    spec = add_training_table(spec, threshold=0.75)
    result = cli("import", "s", str(training), "--training")
    assert result.exit_code == 0 and "4 training items added" in result.output
    lines = training_lines()
    lines[2] = _edit(lines[2], explanation=None)
    bad = cli("import", "s", str(_file(project, lines)), "--training")
    assert bad.exit_code == 1 and 'line 3: field "explanation"' in bad.output
    with open_store(spec) as store:
        for entry in start_round(store, spec, "alice"):
            answer(store, entry, "both_bad")  # every one wrong
    listed = cli("training", "s")
    assert "pass threshold 75% (3 of 4)" in listed.output and "alice" in listed.output
    assert "0 of 4 right (0%), threshold 75%: failed" in listed.output and "--pass NAME" in listed.output
    let = cli("training", "s", "--pass", "alice", "--note", "talked it through", "--by", "lead")
    assert let.exit_code == 0 and "main queue open" in let.output
    assert "overridden" in cli("training", "s").output
    assert cli("training", "s", "--revoke", "alice").exit_code == 0
    assert "failed" in cli("training", "s").output
    with Store.open(spec.db) as store:
        rows = store.db.execute("SELECT action, by, note FROM training_overrides ORDER BY id").fetchall()
    assert rows[0] == ("pass", "lead", "talked it through") and rows[1][0] == "revoke"
    assert cli("training", "s", "--pass", "bad name!").exit_code == 2


def test_a_file_from_before_training_is_migrated(project: Path) -> None:
    from annotate.store.schema import MIGRATIONS

    before = next(k for k, step in enumerate(MIGRATIONS) if step.__name__.endswith("_training"))
    spec = session(project)
    with open_store(spec) as store:
        store.add_items([training_item(0, "A").item])
        [a] = store.add_assignments([Assignment(0, "ann", "train-0", 0)])
        store.submit(Judgment(a.id, "A", Timings("2026-11-30T10:00:00+00:00", 1, 2, 2)))
    conn = sqlite3.connect(spec.db)  # the file as the version before the training tables wrote it
    drop_training_tables(conn)
    drop_vote_tallies(conn)  # the migrations after them
    drop_open_queue(conn)
    drop_item_facts(conn)
    conn.execute(f"PRAGMA user_version = {before}")
    conn.commit()
    conn.close()
    spec = add_training_table(spec)
    with Store.open(spec.db) as store:
        assert [j.label for j in store.judgments("ann")] == ["A"]
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        add_training_items(store, [training_item(1, "B")])
        assert [e.item_id for e in start_round(store, spec, "ann")] == ["train-1"]
        assert round_entries(store, "ann")[0].state == "not answered"


def test_status_shows_the_training_round(project: Path) -> None:
    spec = add_training_table(session(project), threshold=0.75)
    assert "training  no training items yet" in cli("status", "s").output
    with open_store(spec) as store:
        add_training_items(store, [training_item(i, g) for i, g in enumerate(("A", "B", "tie", "A"))])
        assert "training  4 items, pass 75% (3 of 4); nobody has started" in cli("status", "s").output
        entries = start_round(store, spec, "alice")
        answer(store, entries[0], "both_bad")
        start_round(store, spec, "bob")
        for entry in round_entries(store, "bob"):
            answer(store, entry, "both_bad")
    out = cli("status", "s").output
    assert "alice in progress (1 of 4 answered), bob failed (0 of 4) (annotate training)" in out


def test_the_training_demo_has_a_round_and_the_default_demo_none(tmp_path: Path) -> None:
    from annotate.demo import prepare_demo
    from annotate.store.training import count_training_items

    spec = prepare_demo(tmp_path, kind="training")
    assert spec.training is not None and spec.training.pass_threshold == 0.75
    with open_store(spec) as store:
        assert count_training_items(store) == 4 and store.count_items() > 0
    again = prepare_demo(tmp_path, kind="training")  # idempotent
    with open_store(again) as store:
        assert count_training_items(store) == 4
    assert prepare_demo(tmp_path).training is None
