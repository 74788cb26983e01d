"""Reading a verdict out of a judge model's reply, robustly and without trusting it.

A reply is untrusted text: it is searched for a verdict, never executed, rendered or stored
anywhere but as text. What counts as a verdict, in order of precedence:

1. Double-bracket markers as in MT-Bench: `[[A]]`, `[[B]]`, `[[C]]` (tie), `[[D]]` (both bad),
   also `[[tie]]`, `[[both bad]]`; for grades `[[7]]`. The *last* marker wins, so a reply that
   first restates the instructions ("output [[A]] if ...") and then decides is read right.
2. A JSON object (the whole reply, a fenced block, or the last `{...}` in it) with a key
   `verdict`, `winner`, `label`, `answer` (pairwise) or `rating`, `score`, `grade`, `verdict`
   (single).
3. A line such as `Verdict: A`, `**Final verdict:** Assistant B`, `Rating: 7/10`, `Score - 8`
   (case, markdown emphasis and spacing ignored); the last such line wins.

Anything else, or a grade off the scale, is a `Verdict` with `label=None` and an `error` saying
why; the caller records it with the raw reply and never turns it into a label.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

__all__ = ["Verdict", "parse_grade", "parse_pairwise", "parse_verdict"]


@dataclass(frozen=True)
class Verdict:
    """A parsed reply: `label` in the session's label space (pairwise labels in the order the
    answers were *presented*, i.e. `A` = the first answer), or None with an `error`."""

    label: str | None
    error: str = ""
    how: str = ""
    """Which rule found it: `brackets`, `json` or `line` (empty on error)."""


_PAIR_WORDS = {
    "a": "A", "assistant a": "A", "response a": "A", "answer a": "A", "model a": "A", "output a": "A",
    "b": "B", "assistant b": "B", "response b": "B", "answer b": "B", "model b": "B", "output b": "B",
    "c": "tie", "tie": "tie", "draw": "tie", "equal": "tie", "both good": "tie", "tie (c)": "tie",
    "d": "both_bad", "both bad": "both_bad", "both_bad": "both_bad", "neither": "both_bad",
    "both are bad": "both_bad", "both unacceptable": "both_bad",
}
_BRACKETS = re.compile(r"\[\[\s*([^\[\]\n]{1,24}?)\s*\]\]")
_JSON_PAIR_KEYS = ("verdict", "winner", "label", "answer", "choice", "better")
_JSON_GRADE_KEYS = ("rating", "score", "grade", "verdict")
_LINE_PAIR = re.compile(
    r"^\W*(?:final\s+)?(?:verdict|winner|decision|answer|choice|judg(?:e)?ment)\W*[:=\-–]\s*(.+)$",
    re.IGNORECASE | re.MULTILINE,
)
_LINE_GRADE = re.compile(
    r"^\W*(?:final\s+)?(?:rating|score|grade|verdict)\W*[:=\-–]\s*(.+)$", re.IGNORECASE | re.MULTILINE,
)
_NUMBER = re.compile(r"^[+-]?\d+(?:\.\d+)?")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.")
_FENCE = re.compile(r"```(?:json|JSON)?\s*(\{.*?\})\s*```", re.DOTALL)


def parse_verdict(reply: str, kind: str, scale: tuple[int, int] = (1, 10)) -> Verdict:
    """Parse a reply for a `pairwise` or `single` item (see the module docstring)."""
    if kind == "pairwise":
        return parse_pairwise(reply)
    if kind == "single":
        return parse_grade(reply, scale)
    raise ValueError(f"no verdicts for {kind!r} items")


def parse_pairwise(reply: str) -> Verdict:
    """`A`, `B`, `tie` or `both_bad` (A = the answer presented first), or an error."""
    text = _clean(reply)
    if not text.strip():
        return Verdict(None, "empty reply")
    markers = [_pair_word(m) for m in _BRACKETS.findall(text)]
    markers = [m for m in markers if m is not None]
    if markers:
        return Verdict(markers[-1], how="brackets")
    value = _json_value(text, _JSON_PAIR_KEYS)
    if value is not None:
        label = _pair_word(str(value))
        if label is not None:
            return Verdict(label, how="json")
    for line_value in reversed(_LINE_PAIR.findall(text)):
        label = _pair_word(line_value)
        if label is not None:
            return Verdict(label, how="line")
    return Verdict(None, "no verdict found ([[A]], [[B]], [[C]], [[D]], 'Verdict: ...' or JSON)")


def parse_grade(reply: str, scale: tuple[int, int] = (1, 10)) -> Verdict:
    """A whole grade on `scale`, as text (`"7"`), or an error."""
    text = _clean(reply)
    if not text.strip():
        return Verdict(None, "empty reply")
    candidates: list[tuple[str, str]] = [(m, "brackets") for m in _BRACKETS.findall(text)]
    numeric = [(m, how) for m, how in candidates if _NUMBER.match(m.strip())]
    if numeric:
        return _grade(numeric[-1][0], scale, "brackets")
    value = _json_value(text, _JSON_GRADE_KEYS)
    if value is not None and not isinstance(value, bool):
        return _grade(str(value), scale, "json")
    for line_value in reversed(_LINE_GRADE.findall(text)):
        if _NUMBER.match(line_value.strip()):
            return _grade(line_value, scale, "line")
    return Verdict(None, f"no grade found ([[n]], 'Rating: n' or JSON) on the scale {scale[0]}..{scale[1]}")


def _grade(raw: str, scale: tuple[int, int], how: str) -> Verdict:
    match = _NUMBER.match(raw.strip())
    if match is None:
        return Verdict(None, f"not a number: {raw[:40]!r}")
    value = float(match.group(0))
    if value != int(value):
        return Verdict(None, f"grade {match.group(0)} is not a whole number")
    grade = int(value)
    if not scale[0] <= grade <= scale[1]:
        return Verdict(None, f"grade {grade} is off the scale {scale[0]}..{scale[1]}")
    return Verdict(str(grade), how=how)


def _clean(reply: str) -> str:
    """The reply without terminal escapes, markdown emphasis and backticks (for searching only)."""
    text = _ANSI.sub("", reply)
    return text.replace("**", "").replace("__", "").replace("`", "")


def _pair_word(raw: str) -> str | None:
    """Map a verdict word ('A', 'Assistant B', 'tie', '[C]', '"B"', 'B is better') to a label, or None."""
    word = re.sub(r"\s+", " ", raw.strip().strip("*_`'\".,;:!()[]{}<> ").lower())
    if word in _PAIR_WORDS:
        return _PAIR_WORDS[word]
    lead = _LEAD_SLOT.match(word)
    if lead:
        return _PAIR_WORDS[lead.group(1)]
    lead = _LEAD_PHRASE.match(word)
    if lead:
        return _PAIR_WORDS[lead.group(1)]
    return None


_LEAD_SLOT = re.compile(
    r"^(?:(?:assistant|response|answer|model|output) )?([abcd])(?:$|\s*[(\-–,.:;]| (?:is|wins|better|because)\b)"
)
_LEAD_PHRASE = re.compile(r"^(?:an? |the )?(tie|draw|both bad|both are bad|neither|both unacceptable)\b")


def _json_value(text: str, keys: tuple[str, ...]) -> object | None:
    """The value under the first of `keys` in a JSON object found in `text`, or None."""
    candidates = [text.strip()]
    candidates += [m.group(1) for m in _FENCE.finditer(text)]
    last_open = text.rfind("{")
    if last_open >= 0:
        close = text.find("}", last_open)
        if close > last_open:
            candidates.append(text[last_open : close + 1])
    for candidate in candidates:
        if not candidate.startswith("{"):
            continue
        try:
            data = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            lowered = {str(k).lower(): v for k, v in data.items()}
            for key in keys:
                if key in lowered and isinstance(lowered[key], str | int | float):
                    return lowered[key]
    return None
