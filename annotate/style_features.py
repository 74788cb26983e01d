"""Style features of a response, for the style-controlled ranking (`annotate.analysis.style_control`).

Chatbot Arena's style control (Chiang et al. 2024, "Does style matter? Disentangling style and
substance in Chatbot Arena", LMSYS blog, August 2024) explains votes by four features of each answer
besides the models' strengths: its length in tokens and how many markdown headers, list items and
bold spans it has.  We count them so:

* **tokens**: a token is a maximal run of word characters (letters, digits, underscore: regex
  ``\\w+``) or a run of one repeated other non-space character (a punctuation mark or symbol;
  ``**`` and ``...`` are one token each), so ``"Hello, world!"`` is 4 tokens.  Arena counts model
  (BPE) tokens; a word-and-punctuation count is close to proportional to them, and the feature
  used in the fit is a *ratio* of the two answers' counts (see `normalised_difference`), which a
  constant factor does not change.  No tokenizer file
  is needed, so the count is the same on every machine.
* **headers**: lines that start with 1 to 6 ``#`` followed by white space (ATX headings).
* **list items**: lines that start (after indentation) with ``-``, ``*`` or ``+``, or with a number
  and a full stop (``1.``), followed by white space.
* **bold**: spans ``**text**`` or ``__text__`` on one line with non-empty text.

Markdown inside fenced code blocks (between lines of three backticks) is not counted as markdown,
as in Arena; its tokens count towards the length.  The text counted for one side is the answer
judged plus that side's own earlier assistant turns (`Response.history`), as Arena sums the
assistant turns of a conversation.

`normalised_difference` turns the counts of the two sides into the per-battle feature
(f_A - f_B) / (f_A + f_B), 0 when both are 0: a value in [-1, 1], positive when slot A has more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from annotate.formats.text_scan import PlainPair
    from annotate.model import Item, Response

__all__ = [
    "FEATURES",
    "TOKENIZER",
    "count_features",
    "count_tokens",
    "features_of_texts",
    "item_facts",
    "normalised_difference",
    "side_text",
]

FEATURES: tuple[str, ...] = ("tokens", "headers", "list_items", "bold")
"""The style features, in the column order of every array in this module."""

TOKENIZER = "word-and-punctuation tokens (a run of word characters, or of one repeated other non-space character)"
"""The tokenizer in one phrase, as the report prints it."""

_TOKEN = re.compile(r"\w+|([^\w\s])\1*")
_FENCE = re.compile(r"^[ \t]*```.*?^[ \t]*```[^\n]*$", re.MULTILINE | re.DOTALL)
_HEADER = re.compile(r"^#{1,6}[ \t]", re.MULTILINE)
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+\.)[ \t]", re.MULTILINE)
_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")


def count_tokens(text: str) -> int:
    """Tokens in ``text`` (see the module docstring).

    >>> count_tokens("Hello, world!")
    4
    """
    return len(_TOKEN.findall(text))


def count_features(text: str) -> tuple[int, int, int, int]:
    """``(tokens, headers, list_items, bold)`` of one text (see the module docstring).

    >>> count_features("# Title\\n\\n- **one**\\n- two\\n\\n```\\n# not a header\\n```")
    (14, 1, 2, 1)
    """
    prose = _FENCE.sub("", text)
    return (count_tokens(text), len(_HEADER.findall(prose)), len(_LIST_ITEM.findall(prose)),
            len(_BOLD.findall(prose)))


_BATCH_CHARS = 1 << 23
"""Characters counted at once by `features_of_texts` (its code points take 4 bytes each)."""


def features_of_texts(texts: Iterable[str]) -> np.ndarray:
    """Counts of many texts, shape ``(n, len(FEATURES))``, int64: `count_features` of each, counted a
    batch of texts at a time (tokens from character classes in numpy over the batch joined by line
    breaks; headers, list items and bold spans each in one scan of the batch's prose so joined, which no
    match crosses; `_bold_counts`)."""
    texts = list(texts)
    out = np.zeros((len(texts), len(FEATURES)), dtype=np.int64)
    begin = 0
    while begin < len(texts):
        end, chars = begin, 0
        while end < len(texts) and (end == begin or chars + len(texts[end]) <= _BATCH_CHARS):
            chars += len(texts[end]) + 1
            end += 1
        batch = texts[begin:end]
        out[begin:end, 0] = _token_counts(batch)
        prose = [without_fences(t) for t in batch]
        joined, starts = _joined(prose)
        out[begin:end, 1] = _per_text(_match_starts(_HEADER_AFTER_BREAK, joined), starts)
        out[begin:end, 2] = _per_text(_match_starts(_LIST_ITEM_AFTER_BREAK, joined), starts)
        out[begin:end, 3] = _bold_counts(prose, joined, starts)
        begin = end
    return out


def without_fences(text: str) -> str:
    """``_FENCE.sub("", text)``, found by searching for the backticks instead of trying the pattern at
    every position: a fence is a line whose first characters other than spaces and tabs are three
    backticks; each opening fence pairs with the next fence line, and the two and everything between
    them (not the line break after the closing one) are taken out. An opening fence without a closing
    one is left, as the pattern leaves it."""
    at = text.find("```")
    if at < 0:
        return text
    kept: list[str] = []
    kept_from = 0
    opening = -1
    while at >= 0:
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        if line_end < 0:
            line_end = len(text)
        if not text[line_start:at].strip(" \t"):
            if opening < 0:
                opening = line_start
            else:
                kept.append(text[kept_from:opening])
                kept_from, opening = line_end, -1
        at = text.find("```", line_end)
    kept.append(text[kept_from:])
    return "".join(kept)


_STARS_BOLD = re.compile(r"\*\*[^*\n]+\*\*")
_UNDERSCORE_BOLD = re.compile(r"__[^_\n]+__")
"""`_BOLD`'s two forms alone: each starts with its two fixed characters, which the engine searches for
fast, where it tries `_BOLD` at every position."""


def _bold_counts(prose: Sequence[str], joined: str, starts: np.ndarray) -> np.ndarray | list[int]:
    """``len(_BOLD.findall(t))`` of each text, given the texts joined (`_joined`): when only one of
    `_BOLD`'s two forms can open in any of them, that form alone in one scan of the joined texts
    (no span crosses a line break); when both can, text by text (`_bold_count`)."""
    stars, underscores = "**" in joined, "__" in joined  # the line breaks joining the texts open neither
    if stars and underscores:
        return [_bold_count(t) for t in prose]
    if not stars and not underscores:
        return [0] * len(prose)
    return _per_text(_match_starts(_STARS_BOLD if stars else _UNDERSCORE_BOLD, joined), starts)


def _bold_count(text: str) -> int:
    """``len(_BOLD.findall(text))``: a text without one form's two opening characters can only match
    the other form; a text with both is scanned by `_BOLD` itself (their spans may overlap)."""
    stars, underscores = "**" in text, "__" in text
    if stars and underscores:
        return len(_BOLD.findall(text))
    if stars:
        return len(_STARS_BOLD.findall(text))
    return len(_UNDERSCORE_BOLD.findall(text)) if underscores else 0


_HEADER_AFTER_BREAK = re.compile(r"\n#{1,6}[ \t]")
_LIST_ITEM_AFTER_BREAK = re.compile(r"\n[ \t]*(?:[-*+]|\d+\.)[ \t]")
"""`_HEADER` and `_LIST_ITEM` as a line break and what follows it: in texts joined by line breaks after
a leading one (`_joined`), every line starts after a break, and the engine finds the break by a fast
search where it tries ``^`` at every position."""


def _joined(texts: Sequence[str]) -> tuple[str, np.ndarray]:
    """A line break and the texts joined by line breaks, and where each text's break is in it."""
    lengths = np.fromiter((len(t) + 1 for t in texts), dtype=np.int64, count=len(texts))
    return "\n" + "\n".join(texts), np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)


def _match_starts(pattern: re.Pattern[str], joined: str) -> np.ndarray:
    """Where each match of `pattern` in `joined` begins, ascending."""
    return np.array([m.start() for m in pattern.finditer(joined)], dtype=np.int64)


def _per_text(at: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """How many of the ascending positions `at` fall in each text of a joined string whose texts begin
    at `starts` (ascending, the first 0): a binary search per text, not per position."""
    return np.diff(np.append(np.searchsorted(at, starts), at.size))


_ASCII_CLASSES = np.array([1 if re.match(r"\w", chr(c)) else 2 if re.match(r"\s", chr(c)) else 0 for c in range(128)],
                          dtype=np.int8)
"""Per ASCII code point: 1 a word character (regex ``\\w``), 2 white space (``\\s``), 0 any other."""


_WORD_MARK, _SPACE_MARK = ord("a"), ord(" ")
"""What `_token_counts` turns every word character and every white space character into: codes of a
word character and of a white space character, which no other character has."""
_ASCII_MARKS = np.where(_ASCII_CLASSES == 1, _WORD_MARK, np.where(_ASCII_CLASSES == 2, _SPACE_MARK,
                                                                  np.arange(128))).astype(np.uint8)
"""Per ASCII code point: `_WORD_MARK`, `_SPACE_MARK`, or the code point itself (any other character)."""
_ASCII_MARK_TABLE = bytes(_ASCII_MARKS.tolist()) + bytes(128)
"""`_ASCII_MARKS` as a `bytes.translate` table (ASCII text: the upper half is never looked up)."""


def _token_counts(texts: Sequence[str]) -> np.ndarray:
    """`count_tokens` of each text: runs of word characters plus runs of one repeated other non-space
    character, found as the positions where such a run starts (classes as the regex engine has them).
    With every word character one mark and every white space another, a token starts wherever a
    character that is not white space differs from the one before it."""
    joined, starts = _joined(texts)
    if joined.isascii():  # one byte per character: a quarter of the memory, and one table look-up
        marks = np.frombuffer(joined.encode("ascii").translate(_ASCII_MARK_TABLE), dtype=np.uint8)
    else:
        codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        classes = np.zeros(codes.size, dtype=np.int8)
        ascii_ = codes < 128
        classes[ascii_] = _ASCII_CLASSES[codes[ascii_]]
        wide = ~ascii_
        distinct, where = np.unique(codes[wide], return_inverse=True)
        classes[wide] = np.array([1 if re.match(r"\w", chr(c)) else 2 if re.match(r"\s", chr(c)) else 0
                                  for c in distinct.tolist()], dtype=np.int8)[where.ravel()]
        marks = np.where(classes == 1, _WORD_MARK, np.where(classes == 2, _SPACE_MARK, codes)).astype(np.uint32)
    begins = np.empty(marks.size, dtype=bool)
    if marks.size:
        begins[0] = True
        np.not_equal(marks[1:], marks[:-1], out=begins[1:])
        begins &= marks != _SPACE_MARK
    return _per_text(np.flatnonzero(begins), starts)


def side_text(response: Response) -> str:
    """The text counted for one side: its own earlier assistant turns, then its answer, joined by blank lines."""
    return "\n\n".join([*(m.content for m in response.history if m.role == "assistant"), response.text])


def item_facts(items: Sequence[Item | PlainPair]) -> list[tuple[int, tuple[object, ...]]]:
    """(place in `items`, facts) of every item, what the import stores (`annotate.store.item_facts`):
    slot A's and slot B's model and length in characters (of the first response in the slot; None when
    there is none), then for a pairwise item with both slots slot A's `FEATURES` counts and slot B's
    (of the last response in the slot, as `response_frames.pairwise_texts` reads them), None for each otherwise;
    then the slots whose text is empty or blank, joined by commas (None when there is none). An entry
    may be a `PlainPair` (an Arena battle of the plain shape: two answers without histories)."""
    out: list[tuple[int, tuple[object, ...]]] = []
    places, texts_a, texts_b = [], [], []
    for place, item in enumerate(items):
        if not hasattr(item, "responses"):  # a PlainPair
            a_text, b_text = item.a, item.b  # type: ignore[union-attr]
            out.append((place, (item.model_a, item.model_b, len(a_text), len(b_text))))  # type: ignore[union-attr]
            places.append(place)
            texts_a.append(a_text)
            texts_b.append(b_text)
            continue
        first: dict[str, Response] = {}
        for response in item.responses:
            first.setdefault(response.slot, response)
        a, b = first.get("A"), first.get("B")
        out.append((place, (a and a.model, b and b.model, None if a is None else len(a.text),
                            None if b is None else len(b.text))))
        last = {response.slot: response for response in item.responses}
        if item.kind == "pairwise" and "A" in last and "B" in last:
            places.append(place)
            texts_a.append(side_text(last["A"]))
            texts_b.append(side_text(last["B"]))
    counts: list[tuple[object, ...]] = [(None,) * (2 * len(FEATURES))] * len(items)
    if places:
        for place, row in zip(places, np.hstack([features_of_texts(texts_a), features_of_texts(texts_b)]).tolist(),
                              strict=True):
            counts[place] = tuple(row)
    return [(place, (*slots, *counts[place], _blank_slots(items[place]))) for place, slots in out]


def _blank_slots(item: Item | PlainPair) -> str | None:
    if not hasattr(item, "responses"):
        pairs = (("A", item.a), ("B", item.b))  # type: ignore[union-attr]
    else:
        pairs = tuple((r.slot, r.text) for r in item.responses)
    return ",".join(slot for slot, text in pairs if not text.strip()) or None


def normalised_difference(counts_a: Sequence[Sequence[float]] | np.ndarray,
                          counts_b: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """(f_A - f_B) / (f_A + f_B) per battle and feature, 0 where both counts are 0.

    counts_a, counts_b: ``(n, F)`` non-negative counts of slot A's and slot B's answers.
    Returns ``(n, F)`` float64 in [-1, 1].

    >>> normalised_difference([[30, 0, 2]], [[10, 0, 0]]).tolist()
    [[0.5, 0.0, 1.0]]
    """
    a = np.asarray(counts_a, dtype=np.float64)
    b = np.asarray(counts_b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"the two sides' counts differ in shape: {a.shape} and {b.shape}")
    if (a < 0).any() or (b < 0).any():
        raise ValueError("style counts must be non-negative")
    total = a + b
    out = np.zeros_like(total)
    np.divide(a - b, total, out=out, where=total > 0)
    return out
