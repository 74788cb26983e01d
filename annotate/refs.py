"""Item references: a short code per item that an annotator can read out to the lead.

Item ids are not fit for that: they are long, and they may name the models (`mtbench-81-gpt-4-vs-
claude-v1-t2`). A reference is six characters of Crockford's base32 (digits and capitals without
I, L, O and U, so it reads aloud and types without confusion) of a keyed BLAKE2b hash of the item
id under a random key kept in the session file (meta `item_ref_key`). Without the key nobody can tell
which id a reference stands for, so it reveals nothing about the models; with the key every copy
of the session gives every item the same reference, whenever it was imported. Six characters are
30 bits: two items of a session share one with a chance of about n² / 2^31 (0.05 % at a thousand
items), so looking a reference up may find several items and says so.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base32 digits."""
REF_CHARS = 6
REF_KEY_META = "item_ref_key"
"""The meta key holding the session's reference key (hex)."""
_READ_AS = {"I": "1", "L": "1", "O": "0"}
"""Letters a person may type for the digits they look like (Crockford's decoding)."""


def new_ref_key() -> str:
    """A fresh random key for a session (hex)."""
    return secrets.token_hex(16)


def ref_maker(key: str) -> Callable[[str], str]:
    """item id -> its reference under the session's `key` (hex), e.g. `K7QM2X`."""
    secret = bytes.fromhex(key)
    shifts = tuple(5 * i for i in reversed(range(REF_CHARS)))

    def ref(item_id: str) -> str:
        digest = hashlib.blake2b(item_id.encode("utf-8"), key=secret, digest_size=8).digest()
        number = int.from_bytes(digest[:4], "big") >> (32 - 5 * REF_CHARS)
        return "".join(ALPHABET[(number >> shift) & 31] for shift in shifts)

    return ref


def item_ref(key: str, item_id: str) -> str:
    """One item's reference under the session's `key` (see `ref_maker` for many)."""
    return ref_maker(key)(item_id)


def parse_ref(text: str) -> str | None:
    """A typed reference in its canonical form (`k7q-m2x` -> `K7QM2X`, `O` read as `0`), or None when
    `text` cannot be one."""
    cleaned = "".join(text.split()).replace("-", "").upper().removeprefix("#")
    cleaned = "".join(_READ_AS.get(c, c) for c in cleaned)
    if len(cleaned) != REF_CHARS or any(c not in ALPHABET for c in cleaned):
        return None
    return cleaned
