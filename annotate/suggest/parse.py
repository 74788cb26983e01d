"""Reading a verdict out of a judge model's reply, robustly and without trusting it.

A reply is untrusted text: it is searched for a verdict, never executed, rendered or stored
anywhere but as text. First, when the prompt that was sent is given, every stretch of the reply
that repeats it is set aside (`annotate.suggest.echo`): a small model that echoes its
instructions ("[[A]]" if A is better, "[[B]]" ...) has not given a verdict. Then, in order of
precedence, in what is left:

1. Double-bracket markers as in MT-Bench: `[[A]]`, `[[B]]`, `[[C]]` (tie), `[[D]]` (both bad),
   also `[[tie]]`, `[[both bad]]`; for grades `[[7]]`. Markers that only restate the
   instructions are not verdicts: several different markers in one breath (`[[A]], [[B]] or
   [[C]]`, `[[A]] if ... [[B]] if ...`, `[[1]] to [[10]]`), a marker followed by `if`, `when`,
   `means` or `=`, and one introduced as an example (`for example "Rating: [[1]]"`).
2. A JSON object (the whole reply, a fenced block, or the last `{...}` in it) with a key
   `verdict`, `winner`, `label`, `answer` (pairwise) or `rating`, `score`, `grade`, `verdict`
   (single).
3. A line such as `Verdict: A`, `**Final verdict:** Assistant B`, `Rating: 7/10`, `Score - 8`
   (case, markdown emphasis and spacing ignored); the last such line wins.

A reasoning model's `<think>...</think>` block is its deliberation, not its answer, and is set
aside too. Several markers that agree are one verdict. Markers that disagree are a verdict only when the
model revised itself: the last marker wins if the text since the last different one says so
(`final`, `verdict`, `overall`, `on reflection`, `actually`, `instead`, `therefore`, `so`,
`then`, ...), as in "first [[2]] then, on reflection, [[6]]". Otherwise ("[[A]] ... [[B]]",
"[[A]]\n[[B]]", a verdict given once per order) the reply has no verdict: we do not guess
which of two contradicting answers the model meant.

Anything else, or a grade off the scale, is a `Verdict` with `label=None`, an `error` saying why
and a `reason` (EMPTY, ECHO, ...); the caller records it with the raw reply and never turns it into
a label.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from annotate.suggest.echo import Echo, strip_echo

__all__ = [
    "CONTRADICTION", "ECHO", "EMPTY", "NO_VERDICT", "OFF_SCALE", "Verdict", "parse_grade",
    "parse_pairwise", "parse_verdict",
]

EMPTY, ECHO, CONTRADICTION, NO_VERDICT, OFF_SCALE = "empty", "echo", "contradiction", "no_verdict", "off_scale"
"""`Verdict.reason` when there is no label: the reply was empty; it repeats or restates the prompt
and its only markers are the prompt's; its verdicts contradict each other; no verdict could be
read; the grade is not a whole number on the scale."""


@dataclass(frozen=True)
class Verdict:
    """A parsed reply: `label` in the session's label space (pairwise labels in the order the
    answers were *presented*, i.e. `A` = the first answer), or None with an `error`."""

    label: str | None
    error: str = ""
    how: str = ""
    """Which rule found it: `brackets`, `json` or `line` (empty on error)."""
    reason: str = ""
    """Why there is no label (EMPTY, ECHO, CONTRADICTION, NO_VERDICT, OFF_SCALE); empty when there is one."""
    echoed_chars: int = 0
    """Characters of the reply set aside as a repeat of the prompt."""


@dataclass(frozen=True)
class _Marker:
    start: int
    end: int
    value: str
    """A label (pairwise) or the number as written (grades)."""
    shown: str
    """The marker as written, e.g. `[[Assistant A]]`."""


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
_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(\{.*?\})\s*```", re.DOTALL)

_CONDITION_AFTER = re.compile(
    r"""[\s"'`’”»)\]]*(?:(?:if|when|whenever|means|denotes|indicates|stands\s+for|for\s+(?:a\s+)?ties?)\b|=)""",
    re.IGNORECASE,
)
_EXAMPLE_BEFORE = re.compile(
    r"""(?:\be\.g\.|\bi\.e\.|\bfor\s+(?:example|instance)|\bexample|\bsuch\s+as)[\s:,"'`‘“(]*(?:\w+\s*:\s*)?["'`‘“(]*$""",
    re.IGNORECASE,
)
_MENU_GAP = 80
"""Most characters between two markers said in one breath (no sentence end, no blank line)."""
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n\s*\n")
_MENU_JOIN = re.compile(r"\b(?:or|if|to|vs|versus|through)\b|^[\s\W]*(?:and)?[\s\W]*$", re.IGNORECASE)
_REVISION = re.compile(
    r"\b(?:final(?:ly)?|verdict|overall|conclu\w*|reflection|reconsider\w*|re-?evaluat\w*|actually|instead"
    r"|therefore|thus|hence|ultimately|so|then|correct(?:ion|ed)?|revis\w*|chang\w*|in\s+the\s+end|after\s+all)\b",
    re.IGNORECASE,
)


def parse_verdict(reply: str, kind: str, scale: tuple[int, int] = (1, 10), prompt: Sequence[str] = ()) -> Verdict:
    """Parse a reply for a `pairwise` or `single` item (see the module docstring).

    `prompt`: the texts of the messages that were sent; stretches of the reply repeating them
    are not searched for a verdict.
    """
    if kind == "pairwise":
        return parse_pairwise(reply, prompt)
    if kind == "single":
        return parse_grade(reply, scale, prompt)
    raise ValueError(f"no verdicts for {kind!r} items")


def parse_pairwise(reply: str, prompt: Sequence[str] = ()) -> Verdict:
    """`A`, `B`, `tie` or `both_bad` (A = the answer presented first), or an error."""
    text = _answer(reply)
    if not text.strip():
        return _nothing(reply)
    echo = strip_echo(text, [_clean(p) for p in prompt])
    markers = _markers(text, _pair_word)
    own = [m for m in markers if not echo.covers(m.start, m.end)]
    verdicts = _own_verdicts(text, markers, own)
    if verdicts:
        return _decide(text, echo, verdicts, lambda v: v)
    value = _json_value(echo.text, _JSON_PAIR_KEYS)
    if value is not None:
        label = _pair_word(str(value))
        if label is not None:
            return Verdict(label, how="json", echoed_chars=echo.echoed_chars)
    for line_value in reversed(_LINE_PAIR.findall(echo.text)):
        label = _pair_word(line_value)
        if label is not None:
            return Verdict(label, how="line", echoed_chars=echo.echoed_chars)
    return _none_found(echo, markers, own, "no verdict found ([[A]], [[B]], [[C]], [[D]], 'Verdict: ...' or JSON)")


def parse_grade(reply: str, scale: tuple[int, int] = (1, 10), prompt: Sequence[str] = ()) -> Verdict:
    """A whole grade on `scale`, as text (`"7"`), or an error."""
    text = _answer(reply)
    if not text.strip():
        return _nothing(reply)
    echo = strip_echo(text, [_clean(p) for p in prompt])
    markers = _markers(text, _grade_word)
    own = [m for m in markers if not echo.covers(m.start, m.end)]
    verdicts = _own_verdicts(text, markers, own)
    if verdicts:
        decided = _decide(text, echo, verdicts, _grade_key)
        if decided.label is None:
            return decided
        return _grade(decided.label, scale, "brackets", echo.echoed_chars)
    value = _json_value(echo.text, _JSON_GRADE_KEYS)
    if value is not None and not isinstance(value, bool):
        return _grade(str(value), scale, "json", echo.echoed_chars)
    for line_value in reversed(_LINE_GRADE.findall(echo.text)):
        if _NUMBER.match(line_value.strip()):
            return _grade(line_value, scale, "line", echo.echoed_chars)
    return _none_found(
        echo, markers, own, f"no grade found ([[n]], 'Rating: n' or JSON) on the scale {scale[0]}..{scale[1]}",
    )


def _markers(text: str, read: Callable[[str], str | None]) -> list[_Marker]:
    """The double-bracket markers in `text` that `read` understands, in order."""
    out = []
    for match in _BRACKETS.finditer(text):
        value = read(match.group(1))
        if value is not None:
            out.append(_Marker(match.start(), match.end(), value, f"[[{match.group(1).strip()}]]"))
    return out


def _own_verdicts(text: str, markers: list[_Marker], own: list[_Marker]) -> list[_Marker]:
    """The model's verdicts: its `own` markers (outside the echo) that are not in a menu of options
    and not a condition or an example. Context is read in the whole reply, echo included, so a
    marker that ends an echoed list (`... "[[C]]" for a tie, and "[[D]]"`) is still part of it."""
    in_menu = {markers[i] for i in _menu_members(text, markers)}
    return [
        m for m in own
        if m not in in_menu
        and not _CONDITION_AFTER.match(text, m.end, min(len(text), m.end + 40))
        and not _EXAMPLE_BEFORE.search(text[max(0, m.start - 60) : m.start])
    ]


def _menu_members(text: str, markers: list[_Marker]) -> set[int]:
    """Indexes of markers said in one breath with a different one, as instructions list options."""
    members: set[int] = set()
    group = [0] if markers else []
    for index in range(1, len(markers) + 1):
        if index < len(markers):
            gap = text[markers[index - 1].end : markers[index].start]
            if len(gap) <= _MENU_GAP and not _SENTENCE_END.search(gap):
                group.append(index)
                continue
        if _is_menu(text, [markers[i] for i in group]):
            members.update(group)
        group = [index]
    return members


def _is_menu(text: str, group: list[_Marker]) -> bool:
    distinct = {m.value for m in group}
    if len(distinct) >= 3:
        return True
    if len(distinct) < 2:
        return False
    gaps = [text[a.end : b.start] for a, b in pairwise(group) if a.value != b.value]
    return any(_MENU_JOIN.search(gap) for gap in gaps)


def _decide(text: str, echo: Echo, verdicts: list[_Marker], key: Callable[[str], object]) -> Verdict:
    """One verdict from the model's own markers: all agree, or the last one is a stated revision."""
    last = verdicts[-1]
    earlier = [m for m in verdicts if key(m.value) != key(last.value)]
    if not earlier or _REVISION.search(_unechoed(text, echo, earlier[-1].end, last.start)):
        return Verdict(last.value, how="brackets", echoed_chars=echo.echoed_chars)
    named = ", ".join(dict.fromkeys(m.shown for m in verdicts))
    return Verdict(None, f"contradicting verdicts ({named}) and no final one", reason=CONTRADICTION,
                   echoed_chars=echo.echoed_chars)


def _unechoed(text: str, echo: Echo, start: int, end: int) -> str:
    """The reply's characters start..end that are not part of an echoed stretch."""
    pieces, position = [], start
    for a, b in echo.spans:
        if b <= position or a >= end:
            continue
        pieces.append(text[position:a])
        position = max(position, b)
    pieces.append(text[position:end])
    return " ".join(pieces)


def _none_found(echo: Echo, markers: list[_Marker], own: list[_Marker], plain: str) -> Verdict:
    """No verdict: an echo when every marker was the prompt's or restated it, or most of the reply repeats it."""
    if own:
        listed = ", ".join(dict.fromkeys(m.shown for m in own))
        error = f"echo: the reply only restates the instructions' markers ({listed}) without choosing one"
    elif markers:
        error = "echo: the reply repeats the prompt, and its only verdict markers are the prompt's own"
    elif echo.share >= 0.5:
        error = f"echo: {echo.share:.0%} of the reply repeats the prompt, and it gives no verdict"
    else:
        return Verdict(None, plain, reason=NO_VERDICT, echoed_chars=echo.echoed_chars)
    return Verdict(None, error, reason=ECHO, echoed_chars=echo.echoed_chars)


def _grade(raw: str, scale: tuple[int, int], how: str, echoed: int = 0) -> Verdict:
    match = _NUMBER.match(raw.strip())
    if match is None:
        return Verdict(None, f"not a number: {raw[:40]!r}", reason=NO_VERDICT, echoed_chars=echoed)
    value = float(match.group(0))
    if value != int(value):
        return Verdict(None, f"grade {match.group(0)} is not a whole number", reason=OFF_SCALE, echoed_chars=echoed)
    grade = int(value)
    if not scale[0] <= grade <= scale[1]:
        return Verdict(None, f"grade {grade} is off the scale {scale[0]}..{scale[1]}", reason=OFF_SCALE,
                       echoed_chars=echoed)
    return Verdict(str(grade), how=how, echoed_chars=echoed)


def _grade_word(raw: str) -> str | None:
    """The number a grade marker holds (`7`, `8.0`, `7/10`), as written, or None (also for a
    range such as `1-10`: the scale, not a grade)."""
    text = raw.strip()
    return text if _NUMBER.match(text) and not _RANGE.match(text) else None


def _grade_key(value: str) -> float:
    match = _NUMBER.match(value)
    return float(match.group(0)) if match else float("nan")


def _answer(reply: str) -> str:
    """The reply, cleaned, without a reasoning model's `<think>...</think>` blocks (an unclosed one
    runs to the end): the model's deliberation, which may weigh both answers, is not its verdict."""
    text = _THINK.sub("\n", _clean(reply))
    unclosed = _THINK_OPEN.search(text)
    return text[: unclosed.start()] if unclosed else text


def _nothing(reply: str) -> Verdict:
    if reply.strip():
        return Verdict(None, "the reply holds only the model's reasoning (<think>...) and no answer",
                       reason=NO_VERDICT)
    return Verdict(None, "empty reply", reason=EMPTY)


def _clean(reply: str) -> str:
    """The reply without terminal escapes, markdown emphasis and backticks (for searching only)."""
    text = _ANSI.sub("", reply)
    return text.replace("**", "").replace("__", "").replace("`", "")


def _pair_word(raw: str) -> str | None:
    """Map a verdict word ('A', 'Assistant B', 'tie', '[C]', '"B"', 'B is better') to a label, or None."""
    word = re.sub(r"\s+", " ", raw.strip().strip("*_`'\".,;:!()[]{}<> ").lower())
    if _SLOT_LIST.match(word):  # "[[A, B]]", "[[A/B]]": the options, not a choice
        return None
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
_SLOT_LIST = re.compile(r"^[abcd](?:\s*(?:,|/|\||or|and)\s*[abcd])+$")
_RANGE = re.compile(r"^\d+\s*(?:-|–|to|\.\.)\s*\d+$", re.IGNORECASE)
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
