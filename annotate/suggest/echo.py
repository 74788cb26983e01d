"""Finding the stretches of a judge's reply that repeat the prompt it was sent.

Small models (and servers that do not apply the model's chat template) often answer by repeating
their instructions, which contain every verdict marker ("[[A]]" if A is better, "[[B]]" ...).
Such a reply must not be read as a verdict. `strip_echo` removes from the reply every stretch
that also occurs in one of the prompt's messages, so only the model's own words are parsed.

What counts as echoed, compared word by word (case, punctuation, markdown, line breaks and
spacing ignored; a double-bracket marker such as `[[A]]` is one word):

- a run of at least `MIN_RUN` words in a row that occurs in the same order in one message;
- a whole line of the reply whose words are a whole line of a message, if it has at least
  `MIN_LINE` words (short lines such as `[[A]]` alone are never taken for an echo).

A marker that ends an echoed run is the model's own: the reply stops following the prompt right
after it, as in "my final verdict, strictly following this format: [[A]]" (the prompt goes on
`"[[A]]" if assistant A is better`). Whether it is a verdict is for the parser to decide.

Quoting a sentence of an answer in an explanation is an echo by this rule too; that is harmless,
since only the text around verdict markers matters, and a marker is removed only when it lies
inside the repeated run itself. Cost is linear in the lengths of the reply and the prompt.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MIN_LINE", "MIN_RUN", "Echo", "strip_echo", "words"]

MIN_RUN = 6
"""Words in a row shared with the prompt for a stretch of the reply to count as echoed."""
MIN_LINE = 3
"""Fewest words of a reply line that, matching a whole prompt line, make the line an echo."""

_WORD = re.compile(r"\[\[[^\[\]\n]{1,24}?\]\]|[^\W_]+")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Echo:
    """A reply split into what the model wrote and what it repeated from the prompt."""

    text: str
    """The reply with each echoed stretch replaced by a line break."""
    spans: tuple[tuple[int, int], ...] = ()
    """The echoed stretches as (start, end) character offsets into the reply, in order."""
    echoed_chars: int = 0
    """Characters of the reply inside echoed stretches (punctuation between echoed words included)."""
    own_chars: int = 0
    """Characters of the reply outside them, not counting white space."""

    def covers(self, start: int, end: int) -> bool:
        """Whether the reply's characters start..end lie inside one echoed stretch."""
        return any(a <= start and end <= b for a, b in self.spans)

    @property
    def share(self) -> float:
        """Echoed share of the reply's visible text, 0..1 (0 for an empty reply)."""
        total = self.echoed_chars + self.own_chars
        return self.echoed_chars / total if total else 0.0


def words(text: str) -> list[tuple[str, int, int]]:
    """The text's words as (normalized word, start, end); markers normalized as `[[a]]`."""
    out = []
    for match in _WORD.finditer(text):
        token = match.group(0)
        if token[0] == "[":
            token = "[[" + _SPACE.sub(" ", token[2:-2].strip()) + "]]"
        out.append((token.casefold(), match.start(), match.end()))
    return out


def strip_echo(reply: str, prompts: Sequence[str]) -> Echo:
    """`reply` without the stretches it shares with any of `prompts` (the messages as sent)."""
    tokens = words(reply)
    if not tokens or not prompts:
        return Echo(reply, (), 0, _visible(reply))
    indexes = [_index(prompt) for prompt in prompts]
    normalized = [w for w, _, _ in tokens]
    echoed = [False] * len(tokens)
    for i in range(len(tokens) - MIN_RUN + 1):
        window = tuple(normalized[i : i + MIN_RUN])
        if any(window in runs for runs, _ in indexes):
            echoed[i : i + MIN_RUN] = [True] * MIN_RUN
    short_lines = set().union(*(lines for _, lines in indexes))
    if short_lines:
        _mark_lines(reply, tokens, short_lines, echoed)
    for i, (word, _, _) in enumerate(tokens):
        if echoed[i] and word.startswith("[[") and (i + 1 == len(tokens) or not echoed[i + 1]):
            echoed[i] = False
    return _cut(reply, tokens, echoed)


@functools.lru_cache(maxsize=8)
def _index(prompt: str) -> tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]]]:
    """A message's runs of MIN_RUN words, and its lines of MIN_LINE to MIN_RUN - 1 words (longer
    lines are found as runs). Cached: the system message is the same for every request."""
    runs: set[tuple[str, ...]] = set()
    lines: set[tuple[str, ...]] = set()
    all_words: list[str] = []
    line: list[str] = []
    end = 0
    for word, start, stop in words(prompt):
        if "\n" in prompt[end:start]:
            if MIN_LINE <= len(line) < MIN_RUN:
                lines.add(tuple(line))
            line = []
        all_words.append(word)
        line.append(word)
        end = stop
    if MIN_LINE <= len(line) < MIN_RUN:
        lines.add(tuple(line))
    runs.update(tuple(all_words[i : i + MIN_RUN]) for i in range(len(all_words) - MIN_RUN + 1))
    return frozenset(runs), frozenset(lines)


def _mark_lines(reply: str, tokens: list[tuple[str, int, int]], lines: set[tuple[str, ...]],
                echoed: list[bool]) -> None:
    """Mark the words of every reply line that is, word for word, a whole short line of the prompt."""
    breaks = [m.start() for m in re.finditer("\n", reply)]
    by_line: dict[int, list[int]] = {}
    for index, (_, start, _) in enumerate(tokens):
        by_line.setdefault(bisect.bisect(breaks, start), []).append(index)
    for indexes in by_line.values():
        if MIN_LINE <= len(indexes) < MIN_RUN and tuple(tokens[i][0] for i in indexes) in lines:
            for i in indexes:
                echoed[i] = True


def _cut(reply: str, tokens: list[tuple[str, int, int]], echoed: list[bool]) -> Echo:
    """Replace each run of echoed words (with what lies between them) by a line break."""
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    position = 0
    removed = 0
    i = 0
    while i < len(tokens):
        if not echoed[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(tokens) and echoed[j + 1]:
            j += 1
        start, end = tokens[i][1], tokens[j][2]
        pieces.append(reply[position:start])
        pieces.append("\n")
        spans.append((start, end))
        removed += end - start
        position = end
        i = j + 1
    pieces.append(reply[position:])
    text = "".join(pieces)
    return Echo(text, tuple(spans), removed, _visible(text))


def _visible(text: str) -> int:
    return len(_SPACE.sub("", text))
