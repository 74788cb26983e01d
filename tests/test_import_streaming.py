"""Imports read and stage a file a batch at a time; what needs the whole file still sees all of it.

Every test runs with batches of two records, so the checks that span the file (a repeated id, an
Arena question with several turns, a vote repeated with another label, a model name that appears
only later) cross batches.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from formats_util import fingerprint, session

from annotate.formats import FormatError, import_items
from annotate.model import ExternalLabel
from annotate.session import open_store


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    import annotate.formats.item_import as item_import

    monkeypatch.setattr(item_import, "BATCH", 2)


def native(item_id: str, a: str = "first answer", model_a: str = "m-one", **extra: object) -> dict:
    return {"id": item_id, "prompt": f"prompt {item_id}",
            "responses": {"A": {"text": a, "model": model_a}, "B": {"text": "second answer", "model": "m-two"}},
            **extra}


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def battle(qid: str, turn: int, judge: str, winner: str, answer: str = "fine") -> dict:
    conversation = [{"role": "user", "content": f"question {qid}"}, {"role": "assistant", "content": "one"}]
    if turn == 2:
        conversation += [{"role": "user", "content": "and then?"}, {"role": "assistant", "content": answer}]
    other = [dict(m) for m in conversation]
    other[-1]["content"] = answer + " too"
    return {"question_id": qid, "model_a": "alpha-7b", "model_b": "beta-13b", "winner": winner, "judge": judge,
            "turn": turn, "conversation_a": conversation, "conversation_b": other}


def test_an_id_repeated_in_a_later_batch_names_both_lines(project: Path) -> None:
    spec = session(project)
    path = write(project / "items.jsonl", [native("a"), native("b"), native("c"), native("d"), native("a")])
    before = fingerprint(spec)
    with open_store(spec) as store, pytest.raises(FormatError, match=r"line 5: .*again \(first on line 1\)"):
        import_items(store, spec.schema, path)
    assert fingerprint(spec) == before


def test_an_error_after_a_repeat_reports_the_repeat_first(project: Path) -> None:
    spec = session(project)
    records = [native("a"), native("b"), native("a"), native("c")]
    records[3]["prompt"] = ""  # broken, but after the repeat on line 3 (same batch as it)
    path = write(project / "items.jsonl", records)
    with open_store(spec) as store, pytest.raises(FormatError, match="line 3"):
        import_items(store, spec.schema, path)


def test_an_id_stored_with_other_content_names_its_line(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        import_items(store, spec.schema, write(project / "one.jsonl", [native("z")]))
    path = write(project / "two.jsonl", [native("a"), native("b"), native("c"), native("z", a="changed")])
    before = fingerprint(spec)
    with open_store(spec) as store:
        with pytest.raises(FormatError, match=r"line 4: field \"id\": expected an id not yet stored"):
            import_items(store, spec.schema, path)
        assert [i.id for i in store.items()] == ["z"]
    assert fingerprint(spec) == before


def test_a_model_name_first_seen_later_still_flags_earlier_items(project: Path) -> None:
    spec = session(project)
    records = [native("a", a="Hello! I am Zorblax-9, happy to help."), native("b"), native("c"), native("d"),
               native("e", model_a="zorblax-9")]
    with open_store(spec) as store:
        report = import_items(store, spec.schema, write(project / "items.jsonl", records))
    assert [(leak.item_id, leak.slot, leak.term) for leak in report.leaks] == [("a", "A", "zorblax-9")]


def test_arena_turns_and_repeated_votes_across_batches(project: Path) -> None:
    spec = session(project)
    records = [battle("q1", 1, "u1", "model_a"), battle("q2", 1, "u1", "model_b"), battle("q3", 1, "u2", "tie"),
               battle("q1", 2, "u3", "model_b"), battle("q2", 1, "u1", "model_a"), battle("q2", 1, "u2", "model_a")]
    with open_store(spec) as store:
        report = import_items(store, spec.schema, write(project / "arena.jsonl", records), format="arena")
        ids = [item.id for item in store.items()]
        votes = {(lab.rater, lab.item_id): lab.label for lab in store.external_labels()}
    assert ids == ["arena-q1-t1", "arena-q2", "arena-q3", "arena-q1-t2"]  # q1 comes with two turns in the file
    assert votes[("u1", "arena-q2")] == "B" and votes[("u3", "arena-q1-t2")] == "B"
    assert (report.items_added, report.labels_added, report.labels_unchanged) == (4, 5, 0)
    assert any("1 repeated vote with different labels" in w and "u1 on arena-q2: B at line 2, A at line 5" in w
               for w in report.warnings)


def test_a_vote_against_a_stored_one_is_a_warning_naming_its_line(project: Path) -> None:
    spec = session(project)
    path = write(project / "arena.jsonl", [battle("q1", 1, "u1", "model_a"), battle("q2", 1, "u1", "model_b"),
                                           battle("q3", 1, "u1", "tie")])
    with open_store(spec) as store:
        import_items(store, spec.schema, path, format="arena")
        store.add_external_labels([ExternalLabel("arena", "u9", "crowd", "arena-q3", "A")])
        write(path, [battle("q1", 1, "u1", "model_a"), battle("q2", 1, "u1", "model_b"), battle("q3", 1, "u1", "tie"),
                     battle("q3", 1, "u9", "model_b")])
        report = import_items(store, spec.schema, path, format="arena")
    assert (report.items_added, report.items_unchanged, report.labels_added, report.labels_unchanged) == (0, 3, 0, 4)
    assert any("u9 on arena-q3: B at line 4, stored A" in w for w in report.warnings)


def test_a_rater_in_another_cohort_is_refused_at_its_line(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        store.ensure_annotator("u2", "expert")
        path = write(project / "arena.jsonl", [battle("q1", 1, "u1", "model_a"), battle("q2", 1, "u1", "model_b"),
                                               battle("q3", 1, "u2", "tie")])
        with pytest.raises(FormatError, match=r"line 3.*already in cohort expert"):
            import_items(store, spec.schema, path, format="arena")
        assert store.items() == []


def test_a_json_array_is_read_an_element_at_a_time(project: Path) -> None:
    spec = session(project)
    path = project / "items.json"
    path.write_text(json.dumps([native(k) for k in "abcde"] + [native("a")]), encoding="utf-8")
    with open_store(spec) as store, pytest.raises(FormatError, match=r"record 6: .*again \(first on record 1\)"):
        import_items(store, spec.schema, path)
