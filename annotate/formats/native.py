"""Our own item format: JSON Lines (or a JSON array) of objects shaped like this:

    {"id": "q1",
     "prompt": "How do I ...?",                      # or "conversation": [{"role", "content"}, ...]
     "responses": {"A": {"text": "...", "model": "m1"},
                   "B": {"text": "...", "model": "m2", "history": [...]}},
     "category": "coding", "gold": "A", "metadata": {...}}

A and B make a pairwise item; A alone a single-response item; A, B, C, ... (as many as the session's
k) a ranking item. Every key is checked: an unknown one is an error (with a did-you-mean), so a typo
never silently drops data, and a ranking item with more or fewer responses than k is an error.
"""

from __future__ import annotations

from typing import Any

from annotate.design import RANK_SLOTS
from annotate.formats.fields import (
    check_id,
    check_keys,
    check_messages,
    check_object,
    check_text,
    optional_str,
)
from annotate.formats.reading import Record
from annotate.model import Item, Message, Response
from annotate.spec import LabelSchema

EMPTY_OK = 'a string ("" for a model that returned nothing)'
"""What a response text must be: any string, empty included (models do return nothing)."""
ITEM_KEYS = ("id", "prompt", "conversation", "responses", "category", "gold", "metadata")
RESPONSE_KEYS = ("text", "model", "history")


def item_kind_for(schema: LabelSchema) -> str:
    """The item kind a session of this schema judges: pairwise items, ranking items, or single responses."""
    return schema.kind if schema.kind in ("pairwise", "ranking") else "single"


def kind_of(responses: tuple[Response, ...]) -> str:
    """An item's kind from its responses: two are a pair, three or more a ranking item, one a single."""
    return "pairwise" if len(responses) == 2 else "ranking" if len(responses) > 2 else "single"


def check_gold(record: Record, field: str, value: Any, schema: LabelSchema, *, field_kind: str = "field") -> str | None:
    """A gold label valid for the session's schema (pairwise: slot space, a preference or, on a graded
    scale, a strength such as `+2`; single: a grade)."""
    if value is None or value == "":
        return None
    if schema.kind == "rubric":
        raise record.error("no gold label (rubric sessions take none)", field, got=value, field_kind=field_kind)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str) and schema.ranked is None and value in schema.gold_labels:
        return value
    primary = schema.primary
    parsed = primary.parse(value) if primary is not None and isinstance(value, str) else None
    if parsed is None:
        raise record.error(schema.expected_label, field, got=value, field_kind=field_kind)
    return parsed


def check_kind(record: Record, item: Item, schema: LabelSchema, field: str = "responses", field_kind: str = "field",
               ) -> None:
    """Refuse an item the session cannot judge (a single response in a pairwise session, ...)."""
    wanted = item_kind_for(schema)
    slots = tuple(r.slot for r in item.responses)
    if item.kind != wanted or slots != schema.slots:
        if wanted == "ranking":
            expected = (f"{schema.n_responses} responses in slots {', '.join(schema.slots)} (the session ranks "
                        f"k = {schema.n_responses})")
        elif wanted == "pairwise":
            expected = f"responses in slots A and B (the session is {schema.kind})"
        else:
            expected = f"a response in slot A only (the session is {schema.kind})"
        found = ("slot A only" if slots == ("A",) else "slots A and B" if slots == ("A", "B")
                 else f"{len(slots)} ({', '.join(slots)})")
        raise record.error(expected, field, found=found, field_kind=field_kind)


def parse_item(record: Record, schema: LabelSchema) -> Item:
    """One native record into an Item, checking every field."""
    data = record.data
    check_keys(record, "", data, ITEM_KEYS)
    if "id" not in data:
        raise record.error("an id: a non-empty string or an integer", "id", found="nothing")
    item_id = check_id(record, "id", data["id"])
    conversation = _conversation(record, data)
    responses = _responses(record, data.get("responses"), RANK_SLOTS if schema.kind == "ranking" else ("A", "B"))
    metadata = data.get("metadata", {})
    if metadata is None:
        metadata = {}
    check_object(record, "metadata", metadata)
    item = Item(
        id=item_id,
        kind=kind_of(responses),
        conversation=conversation,
        responses=responses,
        category=optional_str(record, "category", data.get("category")),
        gold=check_gold(record, "gold", data.get("gold"), schema),
        metadata=metadata,
    )
    check_kind(record, item, schema)
    return item


def _conversation(record: Record, data: Any) -> tuple[Message, ...]:
    has_prompt, has_conversation = "prompt" in data, "conversation" in data
    if has_prompt and has_conversation:
        raise record.error('either "prompt" or "conversation", not both', "prompt", found="both")
    if has_prompt:
        return (Message("user", check_text(record, "prompt", data["prompt"])),)
    if has_conversation:
        return check_messages(record, "conversation", data["conversation"])
    raise record.error('a "prompt" (a string) or a "conversation" (a list of messages)', "prompt", found="neither")


def _responses(record: Record, value: Any, allowed: tuple[str, ...]) -> tuple[Response, ...]:
    """The responses in slots `allowed` (A, B; or A to F for ranking sessions), in slot order."""
    if value is None:
        raise record.error('an object {"A": {"text": ...}, "B": {"text": ...}}', "responses", found="nothing")
    slots = check_object(record, "responses", value)
    check_keys(record, "responses.", slots, allowed)
    if "A" not in slots:
        raise record.error("a response in slot A", "responses.A", found="nothing")
    responses = []
    for slot in allowed:
        if slot not in slots:
            continue
        field = f"responses.{slot}"
        raw = check_object(record, field, slots[slot])
        check_keys(record, f"{field}.", raw, RESPONSE_KEYS)
        if "text" not in raw:
            raise record.error(EMPTY_OK, f"{field}.text", found="nothing")
        text = check_text(record, f"{field}.text", raw["text"], allow_blank=True, what=EMPTY_OK)
        model = optional_str(record, f"{field}.model", raw.get("model"))
        history: tuple[Message, ...] = ()
        if raw.get("history") is not None:
            history = check_messages(record, f"{field}.history", raw["history"], allow_empty_list=True)
        responses.append(Response(slot, text, model, history))
    return tuple(responses)
