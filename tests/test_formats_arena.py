"""Chatbot Arena battles: items per battle, votes as crowd labels, atomic with the items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_item
from formats_util import DATA, cli, fingerprint, session, write_jsonl

from annotate.formats import FormatError, OptionError, import_items
from annotate.model import ExternalLabel, Message
from annotate.session import open_store
from annotate.store import StoreError


def test_battles_become_items_and_crowd_votes(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        report = import_items(store, spec.schema, DATA / "arena_battles.json", format="arena")
        items = {item.id: item for item in store.items()}
        labels = store.external_labels()
        cohorts = {a.name: a.cohort for a in store.annotators()}
    assert (report.items_added, report.labels_added) == (4, 5)
    first = items["arena-58210e39b3fd4441a2bd4a518bb44c2d"]
    assert first.models == ("chatglm-6b", "koala-13b")
    assert first.conversation == (Message("user", "What is the difference between OpenCL and CUDA?"),)
    assert dict(first.metadata) == {"anony": True, "language": "English", "turn": 1}
    assert {(lab.rater, lab.label, lab.raw) for lab in labels if lab.item_id == first.id} == {
        ("arena_user_973", "B", "model_b"), ("arena_user_40", "A", "model_a"),
    }
    assert {lab.label for lab in labels} == {"A", "B", "tie", "both_bad"}
    assert all(lab.source == "arena" and lab.cohort == "crowd" for lab in labels)
    assert all(lab.shown_first == "A" for lab in labels)  # model_a is the Arena's left pane
    assert cohorts["arena_user_973"] == "crowd"


def test_multi_turn_battle_judges_the_last_turn_with_history(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        import_items(store, spec.schema, DATA / "arena_battles.json", format="arena")
        item = store.item("arena-90bfd142157948aba01931726c888e7f")
    assert item.prompt == "Fuji vs. Nikon, which is better?"
    a, b = item.response("A"), item.response("B")
    assert a.text == "It depends on the lens." and b.text == "Nikon has more full-frame options."
    assert a.history == (Message("assistant", "Both are great brands."), Message("user", "For landscape photography?"))
    assert b.history[0] == Message("assistant", "As an AI language model, I cannot choose.")


def test_reimport_changes_nothing(project: Path) -> None:
    spec = session(project)
    assert cli("import", "s", DATA / "arena_battles.json", "--format", "arena").exit_code == 0
    before = fingerprint(spec)
    result = cli("import", "s", DATA / "arena_battles.json", "--format", "arena")
    assert "added 0 items (4 unchanged), 0 crowd labels (5 unchanged)" in result.stdout
    assert fingerprint(spec) == before


def test_same_question_with_several_turns_gets_turn_suffixes(project: Path) -> None:
    spec = session(project)
    battles = json.loads((DATA / "arena_battles.json").read_text())
    one = battles[0]
    two = dict(one, turn=2, judge="arena_user_5", conversation_a=one["conversation_a"] * 2,
               conversation_b=one["conversation_b"] * 2)
    write_jsonl(project / "turns.jsonl", [one, two])
    with open_store(spec) as store:
        import_items(store, spec.schema, project / "turns.jsonl", format="arena")
        assert sorted(store.item_ids()) == [f"arena-{one['question_id']}-t1", f"arena-{one['question_id']}-t2"]


def test_unknown_winner_names_the_record(project: Path) -> None:
    spec = session(project)
    battles = json.loads((DATA / "arena_battles.json").read_text())
    battles[3]["winner"] = "model_c"
    (project / "bad.json").write_text(json.dumps(battles))
    with open_store(spec) as store, pytest.raises(FormatError) as caught:
        import_items(store, spec.schema, project / "bad.json", format="arena")
    assert 'record 4: field "winner": expected one of model_a, model_b, tie, tie (bothbad), got "model_c"' in str(
        caught.value
    )


def test_different_first_user_messages_are_refused(project: Path) -> None:
    spec = session(project)
    battles = json.loads((DATA / "arena_battles.json").read_text())
    battles[0]["conversation_b"][0]["content"] = "Something else"
    write_jsonl(project / "bad.jsonl", battles)
    with open_store(spec) as store, pytest.raises(FormatError, match=r'line 1: field "conversation_b\[0\].content"'):
        import_items(store, spec.schema, project / "bad.jsonl", format="arena")


def test_arena_needs_a_pairwise_session(project: Path) -> None:
    spec = session(project, "g", kind="single")
    with open_store(spec) as store, pytest.raises(OptionError, match="the session is single"):
        import_items(store, spec.schema, DATA / "arena_battles.json", format="arena")


def test_rater_in_another_cohort_is_refused_before_writing(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        store.ensure_annotator("arena_user_40", "expert")
    before = fingerprint(spec)
    result = cli("import", "s", DATA / "arena_battles.json", "--format", "arena")
    assert result.exit_code == 1
    assert 'record 5: expected a rater of one cohort ("arena_user_40" is already in cohort expert)' in result.stderr
    assert fingerprint(spec) == before


def test_items_and_labels_land_in_one_transaction(project: Path) -> None:
    """A failure in the labels part leaves no item behind (Store.add_items_and_labels)."""
    spec = session(project)
    with open_store(spec) as store:
        store.add_items([make_item("old")])
        store.ensure_annotator("zed", "expert")
    before = fingerprint(spec)
    with open_store(spec) as store:
        with pytest.raises(StoreError):
            store.add_items_and_labels(
                [make_item("new1"), make_item("new2")],
                [ExternalLabel("x", "amy", "crowd", "new1", "A"), ExternalLabel("x", "zed", "crowd", "new2", "B")],
            )
        assert store.item_ids() == ["old"]
        assert store.external_labels() == [] and store.annotator("amy") is None
    assert fingerprint(spec) == before


def test_an_empty_reply_is_a_response(project: Path) -> None:
    """A model that returned nothing in an Arena battle: the battle and its vote are imported, and counted."""
    spec = session(project)
    battles = json.loads((DATA / "arena_battles.json").read_text())
    for battle in battles:
        if battle["question_id"] == battles[0]["question_id"]:
            battle["conversation_b"][-1]["content"] = ""
    path = project / "battles.json"
    path.write_text(json.dumps(battles))
    with open_store(spec) as store:
        report = import_items(store, spec.schema, path, format="arena")
        item = store.item("arena-" + battles[0]["question_id"])
    assert item.response("B").text == ""
    assert report.empty_responses == ((item.id, "B"),) and report.labels_added == 5
    assert "1 empty response" in report.summary()
