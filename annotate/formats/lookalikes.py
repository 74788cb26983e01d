"""Fold text to the plain Latin letters it looks like, so a name cannot hide behind odd characters.

A response can name its model in characters that read the same to a person but not to a pattern:
a zero-width space inside the word (`C\\u200blaude`), fullwidth or mathematical letters
(`ＣｈａｔＧＰＴ`, `𝐂𝐥𝐚𝐮𝐝𝐞`), Cyrillic or Greek letters that look Latin (`Сlaude` with a Cyrillic С),
accents stacked on letters. `fold` undoes all of that for matching; it is never used for
display or storage (the stored text stays exactly as written).

Steps: NFKD compatibility decomposition (fullwidth, mathematical, ligatures and accents come
apart); invisible characters are deleted (format characters such as zero-width spaces and
joiners, the word joiner, soft hyphen, byte-order mark, bidi marks, tag characters, variation
selectors, combining marks, Hangul fillers); every dash becomes `-`; the Cyrillic and Greek
letters below become the Latin letters they look like. The table is a short hand-made list of
the homoglyphs that matter for Latin model names, after Unicode's confusables data (UTS #39),
not the whole of it.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["fold"]

_LOOKALIKES = {
    # Cyrillic
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "М": "M", "О": "O",
    "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I",
    "а": "a", "с": "c", "е": "e", "һ": "h", "і": "i", "ј": "j", "к": "k", "м": "m", "о": "o", "р": "p",
    "ѕ": "s", "т": "t", "у": "y", "х": "x", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y", "ɡ": "g",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "α": "a", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j",
    # Latin letters that look like others
    "ı": "i", "ȷ": "j", "ℓ": "l", "ǀ": "l",
}
_TABLE = str.maketrans(_LOOKALIKES)
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef"
    "\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
)
"""Characters that show nothing (or only a mark on the letter before): deleted before matching."""
_DASHES = re.compile("[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]")


def fold(text: str) -> str:
    """`text` as the plain letters it shows: for matching names, never for display.

    ASCII text is returned as it is.

    >>> fold("C\\u200blaude and ＣｈａｔＧＰＴ‑4 and \\u0421laude")
    'Claude and ChatGPT-4 and Claude'
    """
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text)
    text = _INVISIBLE.sub("", text)
    text = _DASHES.sub("-", text)
    return unicodedata.normalize("NFC", text.translate(_TABLE))
