"""MT-Bench pairwise judgment records (FastChat's `mt_bench_human_judgments`): items and votes.

A record judges one turn of a two-turn conversation between two models:

    {"question_id": 81, "model_a": "alpaca-13b", "model_b": "gpt-3.5-turbo", "winner": "model_b",
     "judge": "expert_0", "turn": 1,
     "conversation_a": [{"role": "user", ...}, {"role": "assistant", ...}, {"role": "user", ...},
                        {"role": "assistant", ...}],
     "conversation_b": [...]}

One item per (question, unordered model pair, turn): `mtbench-{question_id}-{m1}-vs-{m2}-t{turn}`
with m1 < m2 alphabetically and m1 in slot A, so the votes of all judges on one comparison land on
one item; a record with model_a = m2 has its winner flipped. Turn 1 judges each model's first
answer; turn 2 judges the second answer, with the model's own first answer and the follow-up
question as that side's history.

Judges: `expert_N` is cohort expert and `author_N` (the paper's authors) cohort author, so the
experts are not mixed with the people who built the benchmark; a list such as ["gpt-4", "pair-v2"] (or
"pair-v2-multi-turn", "pair-math-v1", ...) is cohort llm with rater "gpt-4", so one judge model
is one rater across prompts and turns. `tie (inconsistent)` (GPT-4 disagreeing with itself when
the order is swapped) becomes `tie` with raw kept, so the analysis can count it separately.
"""

from __future__ import annotations

import re
from typing import Any

from annotate.formats.arena import check_alternating
from annotate.formats.errors import describe
from annotate.formats.fields import check_id
from annotate.formats.reading import Record
from annotate.model import ExternalLabel, Item, Message, Response

SOURCE = "mtbench"
WINNERS = {
    "model_a": "A", "model_b": "B", "tie": "tie", "tie (bothbad)": "both_bad", "tie (inconsistent)": "tie",
}
REQUIRED = ("question_id", "model_a", "model_b", "winner", "judge", "turn", "conversation_a", "conversation_b")
CATEGORIES = ("writing", "roleplay", "reasoning", "math", "coding", "extraction", "stem", "humanities")
"""MT-Bench's 80 questions are ids 81-160, ten per category in this order."""
_HUMAN_JUDGE = re.compile(r"(expert|author)_\d+\Z")
_COHORT_OF_JUDGE = {"expert": "expert", "author": "author"}
_FLIP = {"A": "B", "B": "A"}


def category_of(question_id: int) -> str | None:
    """The MT-Bench category of a question id (81-160), or None outside that range."""
    if 81 <= question_id <= 160:
        return CATEGORIES[(question_id - 81) // 10]
    return None


def judge_rater(record: Record, value: Any) -> tuple[str, str]:
    """(rater, cohort) of a judge field; errors name the record."""
    if isinstance(value, str) and (match := _HUMAN_JUDGE.match(value)):
        return value, _COHORT_OF_JUDGE[match.group(1)]
    if (
        isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) and v.strip() for v in value)
    ):
        return check_id(record, "judge[0]", value[0], what="judge model name"), "llm"
    raise record.error('"expert_N", "author_N" or a list [judge model, prompt name] such as ["gpt-4", "pair-v2"]',
                       "judge", got=value)


def read_judgment(
    record: Record, answers: dict[tuple[str, str], tuple[tuple[Message, ...], Record]],
) -> tuple[Item, ExternalLabel]:
    """One judgment record checked: its item and its vote. `answers` holds each model's answers to each
    question seen so far (a model's answers must be the same in every record that shows them)."""
    data = record.data
    for key in REQUIRED:
        if key not in data:
            raise record.error(f"a {key} (an MT-Bench judgment record)", key, found="nothing")
    qid = check_id(record, "question_id", data["question_id"], what="question id")
    model_a = check_id(record, "model_a", data["model_a"], what="model name")
    model_b = check_id(record, "model_b", data["model_b"], what="model name")
    if model_a == model_b:
        raise record.error("two different models", "model_b", got=model_b)
    turn = data["turn"]
    if turn not in (1, 2) or isinstance(turn, bool):
        raise record.error("1 or 2 (the turn judged)", "turn", got=turn)
    winner = data["winner"]
    if winner not in WINNERS:
        raise record.error(f"one of {', '.join(WINNERS)}", "winner", got=winner)
    rater, cohort = judge_rater(record, data["judge"])
    sides = {}
    for model, field in ((model_a, "conversation_a"), (model_b, "conversation_b")):
        messages = check_alternating(record, field, data[field])
        if len(messages) < 2 * turn:
            raise record.error(f"at least {2 * turn} messages (turn {turn} is judged)", field, got=data[field])
        messages = messages[: 2 * turn]
        _agree(record, field, qid, model, messages, answers)
        sides[model] = messages
    questions_a = [m for m in sides[model_a] if m.role == "user"]
    questions_b = [m for m in sides[model_b] if m.role == "user"]
    if questions_a != questions_b:
        index = next(i for i, (a, b) in enumerate(zip(questions_a, questions_b, strict=True)) if a != b)
        raise record.error("the same user questions as conversation_a", f"conversation_b[{2 * index}].content",
                           got=questions_b[index].content)
    m1, m2 = sorted((model_a, model_b))
    responses = tuple(
        Response(slot, sides[model][-1].content, model, sides[model][1:-1]) for slot, model in (("A", m1), ("B", m2))
    )
    number = int(qid) if qid.isdigit() else None
    item = Item(
        id=f"mtbench-{qid}-{m1}-vs-{m2}-t{turn}", kind="pairwise", conversation=(sides[m1][0],),
        responses=responses, category=category_of(number) if number is not None else None,
        metadata={"question_id": number if number is not None else qid, "turn": turn},
    )
    label = WINNERS[winner]
    if model_a != m1:
        label = _FLIP.get(label, label)
    return item, ExternalLabel(SOURCE, rater, cohort, item.id, label, winner)


def _agree(
    record: Record, field: str, qid: str, model: str, messages: tuple[Message, ...],
    answers: dict[tuple[str, str], tuple[tuple[Message, ...], Record]],
) -> None:
    """One model's answers to one question must be the same in every record that shows them."""
    key = (qid, model)
    known = answers.get(key)
    if known is None:
        answers[key] = (messages, record)
        return
    shown, where = known
    common = min(len(shown), len(messages))
    for index in range(common):
        if shown[index] != messages[index]:
            raise record.error(
                f"the same messages as {where.where} for model {describe(model)} on question {describe(qid)}",
                f"{field}[{index}].content", got=messages[index].content,
            )
    if len(messages) > len(shown):
        answers[key] = (messages, record)
