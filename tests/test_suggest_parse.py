"""Verdict parsing and judge prompts: robust to format, strict about what counts as a verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_item

from annotate.model import Item, Message, Response
from annotate.suggest.parse import parse_grade, parse_pairwise
from annotate.suggest.prompts import PromptError, load_prompt, shipped_prompt_text
from annotate.suggest.run import flip


@pytest.mark.parametrize(("reply", "label"), [
    ("[[A]]", "A"),
    ("Explanation...\n\n[[B]]", "B"),
    ("[[C]]", "tie"),
    ("[[D]]", "both_bad"),
    ("[[ tie ]]", "tie"),
    ("[[both bad]]", "both_bad"),
    ("The format is [[A]] if A is better; here B wins.\nFinal: [[B]]", "B"),  # the last marker wins
    ("**Verdict:** Assistant B", "B"),
    ("Final verdict: A.", "A"),
    ("verdict - `C`", "tie"),
    ("Verdict: a tie", "tie"),
    ("VERDICT: assistant a is better", "A"),
    ('{"verdict": "B", "reason": "x"}', "B"),
    ('Sure.\n```json\n{"winner": "tie"}\n```', "tie"),
    ('{"Verdict": "Assistant A"}', "A"),
    ("\x1b[31m[[A]]\x1b[0m", "A"),
    ("**[[B]]**", "B"),
    ("`[[A]]`", "A"),
])
def test_pairwise_verdicts(reply: str, label: str) -> None:
    assert parse_pairwise(reply).label == label


@pytest.mark.parametrize("reply", [
    "", "   ", "I think A", "Verdict: A good answer needs more", "[[E]]", '{"verdict": "maybe"}',
    "Both have merits.", "[[A]", "[A]",
])
def test_pairwise_no_verdict_is_an_error_not_a_label(reply: str) -> None:
    verdict = parse_pairwise(reply)
    assert verdict.label is None and verdict.error


@pytest.mark.parametrize(("reply", "label"), [
    ("Rating: [[7]]", "7"),
    ("[[10]]", "10"),
    ("[[8.0]]", "8"),
    ("Rating: 8/10", "8"),
    ("Score - 3", "3"),
    ('{"rating": 4}', "4"),
    ('{"score": "5"}', "5"),
    ("first [[2]] then, on reflection, [[6]]", "6"),
])
def test_grades(reply: str, label: str) -> None:
    assert parse_grade(reply, (1, 10)).label == label


@pytest.mark.parametrize(("reply", "error"), [
    ("[[7.5]]", "not a whole number"),
    ("[[11]]", "off the scale"),
    ("[[0]]", "off the scale"),
    ("good answer", "no grade found"),
    ('{"rating": true}', "no grade found"),
])
def test_bad_grades(reply: str, error: str) -> None:
    verdict = parse_grade(reply, (1, 10))
    assert verdict.label is None and error in verdict.error


def test_flip_maps_the_swapped_order_back_to_slots() -> None:
    assert [flip(x) for x in ("A", "B", "tie", "both_bad")] == ["B", "A", "tie", "both_bad"]


def test_shipped_pairwise_prompt_fills_both_orders() -> None:
    prompt = load_prompt("pairwise")
    item = make_item("p1", a="answer one", b="answer two")
    ab = prompt.messages(item, "A")
    ba = prompt.messages(item, "B")
    assert ab[0]["role"] == "system" and "[[C]]" in ab[0]["content"]
    assert ab[1]["content"].index("answer one") < ab[1]["content"].index("answer two")
    assert ba[1]["content"].index("answer two") < ba[1]["content"].index("answer one")
    assert "prompt p1" in ab[1]["content"]
    assert "{" not in ab[1]["content"]
    assert prompt.source == "shipped:pairwise"


def test_item_text_with_placeholders_is_not_expanded() -> None:
    item = make_item("p2", a="I say {answer_b} and {question}", b="plain")
    content = load_prompt("pairwise").messages(item)[1]["content"]
    assert "I say {answer_b} and {question}" in content


def test_conversation_history_and_side_history() -> None:
    item = Item(
        id="mt", kind="pairwise",
        conversation=(Message("user", "turn one"), Message("assistant", "reply one"), Message("user", "turn two")),
        responses=(
            Response("A", "second A", history=(Message("user", "t1"), Message("assistant", "first A"))),
            Response("B", "second B"),
        ),
    )
    content = load_prompt("pairwise").messages(item)[1]["content"]
    assert content.startswith("[user]\nturn one\n\n[assistant]\nreply one\n\n[User Question]\nturn two")
    assert "first A" in content and "[assistant]\nsecond A" in content


def test_prompt_hash_names_the_template_not_the_item(tmp_path: Path) -> None:
    shipped = load_prompt("pairwise")
    assert shipped.hash == load_prompt("pairwise").hash
    same = tmp_path / "same.txt"
    same.write_text("other docs\n--- system ---\n" + shipped.system + "\n--- user ---\n" + shipped.user + "\n")
    assert load_prompt("pairwise", same).hash == shipped.hash  # documentation is not part of it
    edited = tmp_path / "edited.txt"
    edited.write_text("--- user ---\n" + shipped.user + "\nBe brief.")
    assert load_prompt("pairwise", edited).hash != shipped.hash
    assert load_prompt("single", scale=(1, 5)).hash != load_prompt("single", scale=(1, 10)).hash


def test_bad_prompt_files(tmp_path: Path) -> None:
    nouser = tmp_path / "nouser.txt"
    nouser.write_text("--- system ---\nhi\n")
    with pytest.raises(PromptError, match="no '--- user ---' line"):
        load_prompt("pairwise", nouser)
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("--- user ---\n{question} {answer}\n")
    with pytest.raises(PromptError, match=r"uses \{answer\}"):
        load_prompt("pairwise", wrong)
    literal = tmp_path / "literal.txt"
    literal.write_text('--- user ---\n{question}\nReply as JSON {"verdict": "A"} or {x}\n')
    assert '{"verdict": "A"} or {x}' in load_prompt("pairwise", literal).user
    with pytest.raises(PromptError, match="no such prompt file"):
        load_prompt("pairwise", tmp_path / "missing.txt")
    with pytest.raises(PromptError, match="rubric"):
        shipped_prompt_text("rubric")


def test_single_prompt_fills_the_scale() -> None:
    prompt = load_prompt("single", scale=(0, 4))
    item = Item(id="s", kind="single", conversation=(Message("user", "q?"),), responses=(Response("A", "ans"),))
    content = prompt.messages(item)[1]["content"]
    assert "from 0 to 4" in content and "q?" in content and "ans" in content
