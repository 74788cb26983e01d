"""`item_row` writes the conversation and responses piece by piece: the same text as `dumps` (sorted
keys, no spaces, UTF-8 kept) writes for the lists `item_payload` makes, and the same content hash as
`content_hash`, on items with quotes, backslashes, control characters, non-ASCII text, histories and
missing models (a lone surrogate is refused before an item is made: neither way can hash it)."""

from __future__ import annotations

import random

from annotate.model import Item, Message, Response
from annotate.store.codec import _messages, content_hash, dumps, item_row

PIECES = ("a", " ", "\n", "\t", '"', "\\", "\\n", "\x00", "\x1f", "\x7f", "é", "中", "\u2028", "{", "}",
          "[", "]", ",", ":", "null", "😀", "\u200b")


def _text(rng: random.Random, longest: int = 30) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, longest)))


def _messages_of(rng: random.Random, count: int) -> tuple[Message, ...]:
    return tuple(Message(rng.choice(("user", "assistant", "system")), _text(rng)) for _ in range(count))


def random_items(seed: int, count: int) -> list[Item]:
    rng = random.Random(seed)
    items = []
    for k in range(count):
        slots = rng.choice((("A",), ("A", "B"), ("A", "B", "C")))
        responses = tuple(Response(slot, _text(rng, 200), rng.choice((None, "m-1", _text(rng, 8))),
                                   _messages_of(rng, rng.choice((0, 0, 1, 3)))) for slot in slots)
        items.append(Item(id=f"i{k}{_text(rng, 3)}", kind="pairwise" if len(slots) == 2 else "single",
                          conversation=_messages_of(rng, rng.randint(1, 3)), responses=responses,
                          category=rng.choice((None, "c", _text(rng, 5))), gold=rng.choice((None, "A")),
                          metadata=rng.choice(({}, {"k": _text(rng), "n": [1, None, 2.5]}))))
    return items


def test_rows_are_written_as_dumps_writes_them() -> None:
    for item in random_items(3, 3000):
        row = item_row(item, "src", "now")
        assert row["conversation"] == dumps(_messages(item.conversation))
        assert row["responses"] == dumps([{"slot": r.slot, "text": r.text, "model": r.model,
                                           "history": _messages(r.history)} for r in item.responses])
        assert row["metadata"] == dumps(dict(item.metadata))
        assert row["content_hash"] == content_hash(item)
