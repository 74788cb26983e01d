"""Which texts of a batch have a word that begins as one of a set of stems: the leak scan's first filter.

A word here is a run of ASCII letters and digits (what the leak patterns' edges call a word), read
case-insensitively; a stem is lower-case ASCII text that every match of a pattern begins with.
The match then begins a word, and that word begins with the stem's own first word: exactly that
word when the stem goes on with a space or a sign (`open ai`, `phi-`), or any word it starts
(`gpt` in `gpt4o`) when the stem is a word alone. So the filter compares the first KEY_CHARS
characters of every word of the batch with those the stems allow, in one vectorised pass over
the batch's bytes (numpy), instead of searching each text for each stem: a text is passed over
only when none of its words can begin a match. Bytes outside ASCII are never part of a word (the
texts are folded first, `annotate.formats.lookalikes.fold`, which leaves no character outside
ASCII that matches an ASCII letter or digit case-insensitively).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import product
from typing import Any

WORD_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
KEY_CHARS = 4
"""How many characters of a word the filter compares."""
_BASE = len(WORD_CHARS) + 1
"""Character codes: 0 for anything that is not a word character, 1..36 for a-z and 0-9."""


def _code_table() -> bytes:
    table = bytearray(256)
    for code, char in enumerate(WORD_CHARS, start=1):
        table[ord(char)] = table[ord(char.upper())] = code
    return bytes(table)


_CODES = _code_table()


def _key(codes: Sequence[int]) -> int:
    key = 0
    for code in codes:
        key = key * _BASE + code
    return key


def stem_keys(stem: str) -> list[int] | None:
    """The keys (first KEY_CHARS character codes, 0 past the word's end) of every word a match
    beginning with `stem` can begin with; None when the stem does not begin with a word character
    (no filter can pass such a text over)."""
    word = ""
    for char in stem:
        if char not in WORD_CHARS:
            break
        word += char
    if not word:
        return None
    head = [_CODES[ord(c)] for c in word[:KEY_CHARS]]
    room = KEY_CHARS - len(head)
    if room <= 0 or len(word) < len(stem):  # the word is known to KEY_CHARS characters, or it is exactly `word`
        return [_key(head + [0] * max(room, 0))]
    keys = []
    for tail in product(range(_BASE), repeat=room):  # the word may go on: any characters, then its end
        if all(tail[k] or not tail[k + 1] for k in range(room - 1)):
            keys.append(_key(head + list(tail)))
    return keys


class WordStarts:
    """The filter for one set of stems."""

    def __init__(self, stems: Iterable[str]) -> None:
        import numpy as np

        self.table = np.zeros(_BASE ** KEY_CHARS, dtype=bool)
        """By key: a word beginning so may begin a match."""
        self.open = False
        """A stem no word can stand for: every text passes."""
        for stem in stems:
            keys = stem_keys(stem)
            if keys is None:
                self.open = True
            else:
                self.table[keys] = True
        self.pairs = self.table.reshape(_BASE * _BASE, -1).any(axis=1)
        """By the first two character codes of a word: some key beginning so is in the table."""

    def candidates(self, texts: Sequence[str]) -> list[bool]:
        """For each text, whether one of its words begins as a stem allows (False: no stem can match in it)."""
        if self.open or not texts:
            return [True] * len(texts)
        import numpy as np

        encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
        codes, starts = _word_starts(encoded)
        second = codes[starts + 1]
        starts = starts[self.pairs[codes[starts].astype(np.int32) * _BASE + second]]  # most words end here
        keys = _keys_at(codes, starts)
        hits = starts[self.table[keys]]
        flags = [False] * len(texts)
        if len(hits):
            ends = np.cumsum([len(text) + 1 for text in encoded])
            for index in np.unique(np.searchsorted(ends, hits, side="right")).tolist():
                flags[index] = True
        return flags

    def candidates_and_keys(self, texts: Sequence[str]) -> tuple[list[bool], Any]:
        """`candidates`, and the `word_keys` of the texts, from one pass over them."""
        import numpy as np

        if not texts:
            return [], np.zeros(0, dtype=np.int32)
        encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
        codes, starts = _word_starts(encoded)
        keys = _keys_at(codes, starts)
        flags = [self.open] * len(texts)
        hits = starts[self.table[keys]] if not self.open else starts[:0]
        if len(hits):
            ends = np.cumsum([len(text) + 1 for text in encoded])
            for index in np.unique(np.searchsorted(ends, hits, side="right")).tolist():
                flags[index] = True
        return flags, np.unique(keys)

    def may_begin_any(self, keys: Any) -> bool:
        """Whether a word with one of these keys (`word_keys`) may begin as a stem allows."""
        return self.open or bool(self.table[keys].any())


def word_keys(texts: Sequence[str]) -> Any:
    """The distinct keys (first KEY_CHARS character codes) of every word of the texts, as a numpy
    array: enough to tell later, for any set of stems, whether `WordStarts.candidates` could pass
    one of these texts (`WordStarts.may_begin_any`), without the texts."""
    import numpy as np

    if not texts:
        return np.zeros(0, dtype=np.int32)
    codes, starts = _word_starts([text.encode("utf-8", "surrogatepass") for text in texts])
    return np.unique(_keys_at(codes, starts))


def _word_starts(encoded: Sequence[bytes]) -> tuple[Any, Any]:
    """The character codes of the texts joined by spaces (padded), and where each word begins."""
    import numpy as np

    joined = b" ".join(encoded) + b" " * KEY_CHARS
    codes: Any = np.frombuffer(joined.translate(_CODES), dtype=np.uint8)
    in_word = codes != 0
    if len(codes) == KEY_CHARS:  # one empty text: no word (and no pair of characters to compare)
        return codes, np.zeros(0, dtype=np.intp)
    starts = np.flatnonzero(in_word[1:len(codes) - KEY_CHARS] > in_word[:len(codes) - KEY_CHARS - 1]) + 1
    if in_word[0]:
        starts = np.concatenate(([0], starts))
    return codes, starts


def _keys_at(codes: Any, starts: Any) -> Any:
    """The key of the word beginning at each start."""
    import numpy as np

    keys = codes[starts].astype(np.int32)
    going = np.ones(len(starts), dtype=bool)
    for offset in range(1, KEY_CHARS):
        following = codes[starts + offset]
        going &= following != 0
        keys = keys * _BASE + following * going
    return keys
