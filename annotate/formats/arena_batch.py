"""Arena battles of the plain shape, checked and turned into staged rows without domain objects.

`annotate import --format arena` reads files of a million battles and more, nearly all of one
shape: one turn, both sides opening with the same user message, ASCII ids and names, `language`
text and `anony` true or false. For such a record `plain_battle` makes every check `read_battle`
makes, on the values themselves, and `battle_row` writes the item's columns as canonical JSON
directly: the same text and content hash that `annotate.store.codec.item_row` gives the Item
`read_battle` would make (a test holds the two to the same bytes). Any other record (several
turns, an id given as a number, text outside ASCII in a name, a field that fails a check) is left
to `read_battle` (`plain_battle` returns None), so every error is raised by the one reader, worded
the same way, at the same record.
"""

from __future__ import annotations

import hashlib
import json
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from annotate.formats.arena import WINNERS
from annotate.formats.fields import MAX_ID_CHARS, MAX_TEXT_CHARS
from annotate.model import Item, Message, Response

_MISSING = object()
_MAX_LANGUAGE = MAX_ID_CHARS * 4
"""optional_str's limit, which `language` is held to."""

PlainBattle = tuple[str, int, str, str, str, str, str, str, str, str, str]
"""(question_id, turn, judge, winner, label, prompt, model_a, text_a, model_b, text_b, metadata JSON)."""


def plain_battle(data: dict[str, Any], known: set[str]) -> PlainBattle | None:
    """The battle, when the record has the plain shape and passes every check; else None (then
    `read_battle` reads it, and raises its error if it has one). `known`: the names and judges
    checked before (they repeat from battle to battle), added to as new ones pass."""
    try:
        qid = data["question_id"]
        model_a = data["model_a"]
        model_b = data["model_b"]
        judge = data["judge"]
        winner = data["winner"]
        side_a = data["conversation_a"]
        side_b = data["conversation_b"]
    except KeyError:
        return None
    if type(qid) is not str or not _plain_id(qid):
        return None
    for name in (model_a, model_b, judge):
        if type(name) is not str or (name not in known and not _learn_id(name, known)):
            return None
    label = WINNERS.get(winner) if type(winner) is str else None
    if label is None:
        return None
    if type(side_a) is not list or type(side_b) is not list or len(side_a) != 2 or len(side_b) != 2:
        return None
    user_a, reply_a = side_a
    user_b, reply_b = side_b
    if type(user_a) is not dict or type(reply_a) is not dict or type(user_b) is not dict or type(reply_b) is not dict:
        return None
    if (user_a.get("role") != "user" or reply_a.get("role") != "assistant" or user_b.get("role") != "user"
            or reply_b.get("role") != "assistant"):
        return None
    prompt = user_a.get("content")
    text_a = reply_a.get("content")
    text_b = reply_b.get("content")
    if type(prompt) is not str or type(text_a) is not str or type(text_b) is not str:
        return None
    if user_b.get("content") != prompt or not prompt or prompt.isspace():
        return None
    if not (_plain_text(prompt) and _plain_text(text_a) and _plain_text(text_b)):
        return None
    turn = data.get("turn")
    if turn is None:
        turn = 1  # the user turns of a two-message side
    elif type(turn) is not int or turn < 1:
        return None
    metadata = _metadata(data, turn)
    if metadata is None:
        return None
    return qid, turn, judge, winner, label, prompt, model_a, text_a, model_b, text_b, metadata


def _plain_id(value: str) -> bool:
    """What check_id accepts, for ASCII: 1 to MAX_ID_CHARS printable characters, not all spaces."""
    return 0 < len(value) <= MAX_ID_CHARS and value.isascii() and value.isprintable() and not value.isspace()


def _learn_id(value: str, known: set[str]) -> bool:
    if _plain_id(value):
        known.add(value)
        return True
    return False


def _plain_text(value: str) -> bool:
    """Within check_text's size limit and valid Unicode (blankness is the caller's to check)."""
    if len(value) > MAX_TEXT_CHARS:
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _metadata(data: dict[str, Any], turn: int) -> str | None:
    """The item's metadata as canonical JSON (keys sorted: anony, language, turn), or None when a
    kept field is not of the plain kind (a non-ASCII or numeric language, an anony that is not
    true or false)."""
    text = f'"turn":{turn}}}'
    language = data.get("language", _MISSING)
    if language is not _MISSING:
        if language is None or language == "":
            text = '"language":null,' + text
        elif type(language) is str and len(language) <= _MAX_LANGUAGE and language.isascii():
            text = f'"language":{encode_basestring(language)},' + text
        else:
            return None
    anony = data.get("anony", _MISSING)
    if anony is True:
        text = '"anony":true,' + text
    elif anony is False:
        text = '"anony":false,' + text
    elif anony is not _MISSING:
        return None
    return "{" + text


def battle_row(battle: PlainBattle) -> tuple[str, str, str, str]:
    """(id, conversation, responses, content hash) of the battle's item, as item_row writes them."""
    qid, _, _, _, _, prompt, model_a, text_a, model_b, text_b, metadata = battle
    item_id = "arena-" + qid
    conversation = '[{"content":' + encode_basestring(prompt) + ',"role":"user"}]'
    responses = (
        '[{"history":[],"model":' + encode_basestring(model_a) + ',"slot":"A","text":' + encode_basestring(text_a)
        + '},{"history":[],"model":' + encode_basestring(model_b) + ',"slot":"B","text":'
        + encode_basestring(text_b) + "}]"
    )
    payload = (
        '{"category":null,"conversation":' + conversation + ',"gold":null,"id":' + encode_basestring(item_id)
        + ',"kind":"pairwise","metadata":' + metadata + ',"responses":' + responses + "}"
    )
    return item_id, conversation, responses, hashlib.sha256(payload.encode("utf-8")).hexdigest()


def battle_item(battle: PlainBattle) -> Item:
    """The Item `read_battle` gives the battle (for the leak scan of a response that may name a model)."""
    qid, _, _, _, _, prompt, model_a, text_a, model_b, text_b, metadata = battle
    return Item(id="arena-" + qid, kind="pairwise", conversation=(Message("user", prompt),),
                responses=(Response("A", text_a, model_a, ()), Response("B", text_b, model_b, ())),
                metadata=json.loads(metadata))
