"""Turning domain objects into rows and back. JSON columns are written canonically so that a
content hash over them is stable, which is what makes imports idempotent."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from types import MappingProxyType
from typing import Any

from annotate.model import Item, Message, Response

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any) -> str:
    """Canonical JSON: sorted keys, no whitespace, UTF-8 kept as is (what `json.dumps` with those
    options writes; one encoder made once, as imports call this for every field of every item)."""
    return _CANONICAL.encode(value)


def _scalar(value: Any) -> str:
    """`dumps` of a string or None without the encoder's dispatch (item_row writes four per item)."""
    if isinstance(value, str):
        return str(encode_basestring(value))
    return "null" if value is None else dumps(value)


def _messages(messages: tuple[Message, ...]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in messages]


def item_payload(item: Item) -> dict[str, Any]:
    """The item as plain JSON-able data (the native format's shape)."""
    return {
        "id": item.id,
        "kind": item.kind,
        "conversation": _messages(item.conversation),
        "responses": [
            {"slot": r.slot, "text": r.text, "model": r.model, "history": _messages(r.history)}
            for r in item.responses
        ],
        "category": item.category,
        "gold": item.gold,
        "metadata": dict(item.metadata),
    }


def content_hash(item: Item) -> str:
    """SHA-256 over everything that defines the item; equal hashes mean the same item."""
    return hashlib.sha256(dumps(item_payload(item)).encode("utf-8")).hexdigest()


def _messages_json(messages: tuple[Message, ...]) -> str:
    """`dumps(_messages(messages))` written out: the keys in sorted order, each value as `_scalar` writes it."""
    if not messages:
        return "[]"
    return "[" + ",".join([f'{{"content":{_scalar(m.content)},"role":{_scalar(m.role)}}}' for m in messages]) + "]"


def _responses_json(responses: tuple[Response, ...]) -> str:
    """`dumps` of the responses as `item_payload` lists them, written out without a dict per response
    (the keys in sorted order: history, model, slot, text)."""
    return "[" + ",".join([
        f'{{"history":{_messages_json(r.history)},"model":{_scalar(r.model)},"slot":{_scalar(r.slot)},'
        f'"text":{_scalar(r.text)}}}' for r in responses
    ]) + "]"


def item_row(item: Item, source: str, created: str) -> dict[str, Any]:
    """The item's row; its content hash is `content_hash`'s, made from the same JSON pieces
    (dumps with sorted keys writes a nested value as it writes it alone), so each text is written once.
    The conversation and responses are written out piece by piece (`_responses_json`): the bytes
    `dumps` writes for them, without the encoder's walk over a dict made for each response."""
    conversation = _messages_json(item.conversation)
    responses = _responses_json(item.responses)
    metadata = dumps(dict(item.metadata))
    payload = (
        f'{{"category":{_scalar(item.category)},"conversation":{conversation},"gold":{_scalar(item.gold)},'
        f'"id":{_scalar(item.id)},"kind":{_scalar(item.kind)},"metadata":{metadata},"responses":{responses}}}'
    )
    return {
        "id": item.id,
        "kind": item.kind,
        "conversation": conversation,
        "responses": responses,
        "category": item.category,
        "gold": item.gold,
        "metadata": metadata,
        "content_hash": hashlib.sha256(payload.encode("utf-8")).hexdigest(),
        "source": source,
        "created": created,
    }


def _to_messages(raw: list[Mapping[str, str]]) -> tuple[Message, ...]:
    return tuple(Message(m["role"], m["content"]) for m in raw)


def item_from_row(row: Mapping[str, Any]) -> Item:
    responses = tuple(
        Response(r["slot"], r["text"], r.get("model"), _to_messages(r.get("history", [])))
        for r in json.loads(row["responses"])
    )
    return Item(
        id=row["id"],
        kind=row["kind"],
        conversation=_to_messages(json.loads(row["conversation"])),
        responses=responses,
        category=row["category"],
        gold=row["gold"],
        metadata=MappingProxyType(json.loads(row["metadata"] or "{}")),
    )
