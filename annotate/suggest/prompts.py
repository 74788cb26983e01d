"""Judge prompts: the shipped, editable templates and how an item fills them.

A prompt file is plain text in three parts:

    documentation (never sent)
    --- system ---
    the system message
    --- user ---
    the user message, with {placeholders}

Only the placeholders a kind knows (see `PLACEHOLDERS`) are replaced; any other braces in the
template, and everything in the item's text, pass through untouched, so an answer that contains
`{question}` is not expanded again. The shipped templates are `annotate/suggest/prompts/*.txt`;
`annotate suggest --print-prompt` prints the one a session uses, to copy and edit.

`JudgePrompt.hash` is the SHA-256 of the template text (system and user sections, with the
session-level placeholders such as the scale filled in, the item's not): it names the prompt,
not the item, and is stored on every suggestion so a run resumes only over its own prompt.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from annotate.model import Item, Message

__all__ = ["PLACEHOLDERS", "JudgePrompt", "PromptError", "load_prompt", "shipped_prompt_text"]

PLACEHOLDERS: dict[str, tuple[str, ...]] = {
    "pairwise": ("question", "conversation", "answer_a", "answer_b"),
    "single": ("question", "conversation", "answer", "scale_low", "scale_high"),
}
"""Item kind -> the placeholders its template may use."""

SESSION_PLACEHOLDERS = ("scale_low", "scale_high")
"""Placeholders filled once per session (part of the prompt hash), not per item."""

_SECTION = re.compile(r"^--- (system|user) ---[ \t]*$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


class PromptError(ValueError):
    """A prompt file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class JudgePrompt:
    """A judge prompt ready to fill: its kind, system and user templates, and where it came from."""

    kind: str
    """`pairwise` or `single`."""
    system: str
    user: str
    source: str
    """The file it was read from, or `shipped:<kind>`."""

    @property
    def hash(self) -> str:
        """SHA-256 (hex) of the template text; equal hashes mean the same prompt."""
        text = json.dumps({"system": self.system, "user": self.user}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def messages(self, item: Item, first: str = "A") -> list[dict[str, str]]:
        """The chat messages asking about `item`.

        Pairwise: `first` is the slot shown as "Assistant A" (`A` for the item's order, `B` for
        the swapped run). Single items use slot A and ignore `first`.
        """
        values = {"question": item.prompt, "conversation": _conversation(item.conversation)}
        if self.kind == "pairwise":
            second = "B" if first == "A" else "A"
            values["answer_a"] = _answer(item, first)
            values["answer_b"] = _answer(item, second)
        else:
            values["answer"] = _answer(item, "A")
        out = []
        if self.system.strip():
            out.append({"role": "system", "content": _fill(self.system, values)})
        out.append({"role": "user", "content": _fill(self.user, values)})
        return out


def shipped_prompt_text(kind: str) -> str:
    """The text of the shipped template for `kind` (`pairwise` or `single`)."""
    if kind not in PLACEHOLDERS:
        raise PromptError(f"no judge prompt for {kind!r} sessions: suggestions exist for pairwise and single")
    return resources.files("annotate.suggest").joinpath("prompts", f"{kind}.txt").read_text(encoding="utf-8")


def load_prompt(kind: str, path: Path | str | None = None, scale: tuple[int, int] = (1, 10)) -> JudgePrompt:
    """The judge prompt for a session: the file at `path`, or the shipped one for `kind`.

    `scale` fills {scale_low} and {scale_high} for single grades. Raises PromptError when the
    file has no `--- user ---` section or uses a placeholder the kind does not know.
    """
    if path is None:
        text, source = shipped_prompt_text(kind), f"shipped:{kind}"
    else:
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise PromptError(f"{path}: no such prompt file") from None
        except UnicodeDecodeError:
            raise PromptError(f"{path}: not UTF-8 text") from None
    if kind not in PLACEHOLDERS:
        raise PromptError(f"no judge prompt for {kind!r} sessions: suggestions exist for pairwise and single")
    sections = _sections(text, source)
    allowed = set(PLACEHOLDERS[kind])
    for name, template in sections.items():
        for found in _PLACEHOLDER.findall(template):
            if found not in allowed and _looks_like_placeholder(found):
                raise PromptError(
                    f"{source}: the {name} section uses {{{found}}}, which {kind} prompts do not fill;"
                    f" known: {', '.join('{' + p + '}' for p in PLACEHOLDERS[kind])}"
                )
    session_values = {"scale_low": str(scale[0]), "scale_high": str(scale[1])}
    system = _fill(sections.get("system", ""), session_values)
    user = _fill(sections["user"], session_values)
    return JudgePrompt(kind, system, user, source)


def _looks_like_placeholder(name: str) -> bool:
    """A `{word}` that is probably a mistyped placeholder rather than literal text."""
    known = {p for names in PLACEHOLDERS.values() for p in names}
    return name in known or name.startswith(("answer", "question", "scale", "conv"))


def _sections(text: str, source: str) -> dict[str, str]:
    marks = list(_SECTION.finditer(text))
    if not any(m.group(1) == "user" for m in marks):
        raise PromptError(f"{source}: no '--- user ---' line; a prompt needs a user section")
    sections: dict[str, str] = {}
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        name = mark.group(1)
        if name in sections:
            raise PromptError(f"{source}: the '--- {name} ---' section appears twice")
        sections[name] = text[mark.end() :end].strip("\n")
    return sections


def _fill(template: str, values: dict[str, str]) -> str:
    """Replace known {placeholders} in one pass, so replaced text is never scanned again."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _conversation(messages: tuple[Message, ...]) -> str:
    """Every turn before the last user message, as `[role]\\ntext` blocks, with a blank line after."""
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=len(messages))
    earlier = messages[:last_user]
    if not earlier:
        return ""
    return "".join(f"[{m.role}]\n{m.content}\n\n" for m in earlier)


def _answer(item: Item, slot: str) -> str:
    """The text of a slot, with any side-specific earlier turns above it."""
    response = item.response(slot)
    if not response.history:
        return response.text
    earlier = "".join(f"[{m.role}]\n{m.content}\n\n" for m in response.history)
    return f"{earlier}[assistant]\n{response.text}"
