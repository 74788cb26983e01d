"""Chatbot Arena battle records: the items, and the votes as crowd labels.

A record (JSON array or JSON Lines) looks like the public `chatbot_arena_conversations` data:

    {"question_id": "58210e39b3fd4441a2bd4a518bb44c2d", "model_a": "chatglm-6b", "model_b": "koala-13b",
     "winner": "model_b", "judge": "arena_user_973", "turn": 1, "anony": true, "language": "English",
     "conversation_a": [{"role": "user", "content": "..."}, {"role": "assistant", "content": "..."}],
     "conversation_b": [...], "tstamp": 1682351591.1322, "openai_moderation": {...}, ...}

The item is `arena-{question_id}` (with `-t{turn}` when one question id comes with several turns
in the file). Its shared conversation is the first user message, which must be the same on both
sides; slot A is model_a's side, B model_b's. A multi-turn battle is judged on its last assistant
message, and everything between the first user message and it goes to each side's history. The
vote becomes an ExternalLabel of cohort crowd from source `arena`, rater = the judge:
model_a -> A, model_b -> B, tie -> tie, tie (bothbad) -> both_bad (raw keeps the original), with
slot A as the response shown first (model_a is the Arena's left pane).
Fields we do not use (tstamp, moderation tags, ...) are ignored; language and anony are kept in
the item's metadata.
"""

from __future__ import annotations

from typing import Any

from annotate.formats.fields import check_id, check_object, check_text, optional_str
from annotate.formats.reading import Record
from annotate.model import Message, Response

SOURCE = "arena"
WINNERS = {"model_a": "A", "model_b": "B", "tie": "tie", "tie (bothbad)": "both_bad"}
REQUIRED = ("question_id", "model_a", "model_b", "winner", "judge", "conversation_a", "conversation_b")
KEPT_METADATA = ("language", "anony")
SHOWN_FIRST = "A"
"""The Arena shows model_a as "Model A" in the left pane (FastChat's side-by-side UI: "A is better"
is the left vote), so every vote's display order is known: slot A first."""


def read_battle(record: Record) -> dict[str, Any]:
    """One battle record checked: question_id, turn, judge, winner, label, metadata, conversation, A, B."""
    data = record.data
    for key in REQUIRED:
        if key not in data:
            raise record.error(f"a {key} (an Arena battle record)", key, found="nothing")
    qid = check_id(record, "question_id", data["question_id"], what="question id")
    model_a = check_id(record, "model_a", data["model_a"], what="model name")
    model_b = check_id(record, "model_b", data["model_b"], what="model name")
    judge = check_id(record, "judge", data["judge"], what="judge id")
    winner = data["winner"]
    if winner not in WINNERS:
        raise record.error(f"one of {', '.join(WINNERS)}", "winner", got=winner)
    side_a = _side(record, "conversation_a", data["conversation_a"])
    side_b = _side(record, "conversation_b", data["conversation_b"])
    if side_a[0] != side_b[0]:
        raise record.error(
            "the same first user message as conversation_a[0]", "conversation_b[0].content", got=side_b[0].content,
        )
    turn = data.get("turn")
    if turn is None:
        turn = sum(1 for m in side_a if m.role == "user")
    elif isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise record.error("a turn number >= 1", "turn", got=turn)
    metadata = {key: data[key] for key in KEPT_METADATA if key in data}
    for key in ("language",):
        if key in metadata:
            metadata[key] = optional_str(record, key, metadata[key])
    return {
        "record": record, "question_id": qid, "turn": turn, "judge": judge, "winner": winner,
        "label": WINNERS[winner], "metadata": {**metadata, "turn": turn},
        "conversation": (side_a[0],),
        "A": Response("A", side_a[-1].content, model_a, side_a[1:-1]),
        "B": Response("B", side_b[-1].content, model_b, side_b[1:-1]),
    }


def _side(record: Record, field: str, value: Any) -> tuple[Message, ...]:
    """One side's messages: user first, then alternating, ending with the judged assistant turn."""
    messages = check_alternating(record, field, value)
    if len(messages) < 2:
        raise record.error("a user message and an assistant reply", field, got=value)
    return messages


def check_alternating(record: Record, field: str, value: Any) -> tuple[Message, ...]:
    """User and assistant messages in turn, starting with the user and ending with the assistant
    reply being judged. Assistant replies may be empty (a model that returned nothing); user
    messages may not."""
    if not isinstance(value, list) or not value:
        raise record.error('a non-empty list of {"role": ..., "content": ...} messages', field, got=value)
    messages = []
    last = len(value) - 1
    for index, raw in enumerate(value):
        where = f"{field}[{index}]"
        message = check_object(record, where, raw)
        wanted = "user" if index % 2 == 0 else "assistant"
        if message.get("role") != wanted:
            raise record.error(f"a {wanted} message (turns alternate, starting with the user)",
                               f"{where}.role", got=message.get("role"))
        content = check_text(record, f"{where}.content", message.get("content"),
                             allow_blank=wanted == "assistant")
        messages.append(Message(wanted, content))
    if messages[-1].role != "assistant":
        raise record.error("an assistant message last (the reply being judged)", f"{field}[{last}].role",
                           got=messages[-1].role)
    return tuple(messages)
