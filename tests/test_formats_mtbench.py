"""MT-Bench judgments: items per (question, model pair, turn), votes with the judge's cohort."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from formats_util import DATA, cli, fingerprint, session, write_jsonl

from annotate.formats import FormatError, import_items
from annotate.formats.mtbench import category_of
from annotate.model import Message
from annotate.session import open_store

T1 = "mtbench-81-alpaca-13b-vs-gpt-3.5-turbo-t1"
T2 = "mtbench-81-alpaca-13b-vs-gpt-3.5-turbo-t2"


def records() -> list[dict]:
    return [json.loads(line) for line in (DATA / "mtbench_judgments.jsonl").read_text().splitlines()]


def test_items_per_question_pair_and_turn(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        report = import_items(store, spec.schema, DATA / "mtbench_judgments.jsonl", format="mtbench")
        items = {item.id: item for item in store.items()}
    assert (report.items_added, report.labels_added) == (5, 9)
    assert set(items) == {
        T1, T2, "mtbench-81-alpaca-13b-vs-vicuna-13b-v1.2-t1",
        "mtbench-111-alpaca-13b-vs-gpt-4-t1", "mtbench-111-alpaca-13b-vs-gpt-4-t2",
    }
    t1, t2 = items[T1], items[T2]
    assert t1.models == ("alpaca-13b", "gpt-3.5-turbo") and t1.category == "writing"
    assert t1.response("B").text.startswith("Aloha! Last month") and t1.response("B").history == ()
    assert t2.conversation == (Message("user", "Compose an engaging travel blog post about a recent trip to Hawaii."),)
    assert t2.response("A").history == (
        Message("assistant", "Hawaii is a beautiful place. I went there."),
        Message("user", "Rewrite your previous response. Start every sentence with the letter A."),
    )
    assert t2.response("A").text == "A trip to Hawaii is amazing."
    assert items["mtbench-111-alpaca-13b-vs-gpt-4-t1"].category == "math"
    assert dict(t2.metadata) == {"question_id": 81, "turn": 2}


def test_votes_flip_with_the_model_order_and_judges_get_cohorts(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        import_items(store, spec.schema, DATA / "mtbench_judgments.jsonl", format="mtbench")
        votes = {(lab.rater, lab.item_id): lab for lab in store.external_labels()}
        cohorts = {a.name: a.cohort for a in store.annotators()}
    # expert_0 saw gpt-3.5-turbo as model_a and chose it: slot B on our item
    assert (votes[("expert_0", T1)].label, votes[("expert_0", T1)].raw) == ("B", "model_a")
    assert votes[("author_2", T1)].label == "B"
    assert (votes[("gpt-4", T2)].label, votes[("gpt-4", T2)].raw) == ("tie", "tie (inconsistent)")
    # gpt-4 judged as model_a = gpt-4 (slot B after sorting) on question 111
    assert votes[("expert_3", "mtbench-111-alpaca-13b-vs-gpt-4-t1")].label == "B"
    assert votes[("gpt-4", "mtbench-111-alpaca-13b-vs-gpt-4-t1")].label == "B"
    assert cohorts == {"author_2": "author", "expert_0": "expert", "expert_12": "expert", "expert_3": "expert",
                       "gpt-4": "llm"}
    assert {lab.source for lab in votes.values()} == {"mtbench"}


def test_reimport_changes_nothing(project: Path) -> None:
    spec = session(project)
    assert cli("import", "s", DATA / "mtbench_judgments.jsonl", "--format", "mtbench").exit_code == 0
    before = fingerprint(spec)
    result = cli("import", "s", DATA / "mtbench_judgments.jsonl", "--format", "mtbench")
    assert "added 0 items (5 unchanged), 0 author/expert/llm labels (9 unchanged)" in result.stdout
    assert fingerprint(spec) == before


def test_disagreeing_answers_for_one_model_name_the_record(project: Path) -> None:
    spec = session(project)
    rows = records()
    rows[3]["conversation_a"][1]["content"] = "A different first answer."
    write_jsonl(project / "bad.jsonl", rows)
    with open_store(spec) as store, pytest.raises(FormatError) as caught:
        import_items(store, spec.schema, project / "bad.jsonl", format="mtbench")
    message = str(caught.value)
    assert 'line 4: field "conversation_a[1].content": expected the same messages as line 3' in message
    assert 'model "alpaca-13b"' in message


@pytest.mark.parametrize(("field", "value", "expected"), [
    ("judge", "crowd_7", '"expert_N", "author_N" or a list'),
    ("turn", 3, "expected 1 or 2"),
    ("winner", "model_c", "expected one of model_a"),
    ("model_b", "alpaca-13b", "two different models"),
])
def test_bad_fields(project: Path, field: str, value: object, expected: str) -> None:
    spec = session(project)
    rows = records()
    rows[0][field] = value
    write_jsonl(project / "bad.jsonl", rows)
    with open_store(spec) as store, pytest.raises(FormatError, match=f'line 1: field "{field}"') as caught:
        import_items(store, spec.schema, project / "bad.jsonl", format="mtbench")
    assert expected in str(caught.value)


def test_categories_follow_question_ids() -> None:
    assert [category_of(q) for q in (81, 90, 91, 115, 130, 140, 150, 160, 161)] == [
        "writing", "writing", "roleplay", "math", "coding", "extraction", "stem", "humanities", None,
    ]


def test_an_empty_answer_is_a_response(project: Path) -> None:
    """An empty second-turn answer is imported (turn 2 judges it; turn 1 is not refused for it)."""
    spec = session(project)
    rows = records()
    for row in rows:
        for side, model in (("conversation_a", "model_a"), ("conversation_b", "model_b")):
            if row["question_id"] == 81 and row[model] == "alpaca-13b":
                row[side][3]["content"] = ""
    path = write_jsonl(project / "mt.jsonl", rows)
    with open_store(spec) as store:
        report = import_items(store, spec.schema, path, format="mtbench")
        t2 = store.item(T2)
    assert t2.response("A").text == ""
    assert (T2, "A") in report.empty_responses and (T1, "A") not in report.empty_responses
