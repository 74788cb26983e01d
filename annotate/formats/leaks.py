"""Identity leaks: responses that name a model or its vendor ("As ChatGPT, I ...").

Annotators must not know which model wrote what; a response that names itself breaks the
blinding on that item. Importers warn (they do not fail: the text is what the model said, and a
lead may want to judge it anyway) and list the items, so the lead can drop or edit them.

Matching is case-insensitive on word boundaries (letters and digits; so `GPT-4` matches in
"gpt-4-turbo" but `Bard` does not match "Bardot"). The terms are a fixed list of model families
and vendors plus every model name found in the items' own `model` fields (names of at least
MIN_MODEL_NAME characters, so a model called "a" does not flag every text). False positives are
expected ("a llama is a camelid"): it is a warning for a human to read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from annotate.model import Item

KNOWN_TERMS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("OpenAI", r"open ?ai", ("openai", "open ai")),
    ("ChatGPT", r"chat ?gpt", ("chatgpt", "chat gpt")),
    ("GPT", r"gpt[- ]?(?:2|3|3\.5|4|4o|4\.\d|4-?turbo|5|j|neox?)", ("gpt",)),
    ("Claude", r"claude", ("claude",)),
    ("Anthropic", r"anthropic", ("anthropic",)),
    ("Gemini", r"gemini", ("gemini",)),
    ("Gemma", r"gemma", ("gemma",)),
    ("Bard", r"bard", ("bard",)),
    ("PaLM", r"palm[- ]?2", ("palm",)),
    ("DeepMind", r"(?:google )?deepmind", ("deepmind",)),
    ("LLaMA", r"llama(?:[- ]?[1-4])?", ("llama",)),
    ("Meta AI", r"meta ai", ("meta ai",)),
    ("Mistral", r"mistral(?: ai)?", ("mistral",)),
    ("Mixtral", r"mixtral", ("mixtral",)),
    ("Vicuna", r"vicuna", ("vicuna",)),
    ("Alpaca", r"alpaca", ("alpaca",)),
    ("Koala", r"koala", ("koala",)),
    ("Qwen", r"qwen|tongyi qianwen", ("qwen", "tongyi")),
    ("DeepSeek", r"deep ?seek", ("deepseek", "deep seek")),
    ("Cohere", r"cohere", ("cohere",)),
    ("Command R", r"command[- ]r\+?", ("command",)),
    ("Falcon", r"falcon", ("falcon",)),
    ("Grok", r"grok", ("grok",)),
    ("xAI", r"xai", ("xai",)),
    ("ERNIE", r"ernie ?bot", ("ernie",)),
    ("ChatGLM", r"chat ?glm", ("glm",)),
    ("Baichuan", r"baichuan", ("baichuan",)),
    ("InternLM", r"internlm", ("internlm",)),
    ("Yi", r"01\.ai", ("01.ai",)),
    ("Dolly", r"dolly(?:[- ]v?2)?", ("dolly",)),
    ("StableLM", r"stable ?lm|stability ai", ("stablelm", "stable lm", "stability ai")),
    ("WizardLM", r"wizard ?lm", ("wizard",)),
    ("Phi", r"phi-[1-4]", ("phi-",)),
    ("MPT", r"mpt-\d+b", ("mpt-",)),
    ("Zephyr", r"zephyr", ("zephyr",)),
    ("Guanaco", r"guanaco", ("guanaco",)),
    ("OpenAssistant", r"open ?assistant|oasst", ("openassistant", "open assistant", "oasst")),
    ("Copilot", r"bing chat|microsoft copilot", ("bing chat", "copilot")),
)
"""(name shown in warnings, case-insensitive pattern, the lower-case beginnings a match can have).
Only the first three characters of each beginning are used, as a cheap filter: a pattern runs on
a text only when some word of the text starts with them (see `_mentions`)."""
MIN_MODEL_NAME = 4
_EDGE_BEFORE = r"(?<![A-Za-z0-9])"
_EDGE_AFTER = r"(?![A-Za-z0-9])"
_WORD_STARTS = re.compile(r"(?<![a-z0-9])(?=([a-z0-9].{0,2}))", re.DOTALL)
"""The first three characters at every word start of a lower-cased text (overlapping)."""


@dataclass(frozen=True)
class _Term:
    name: str
    keys: frozenset[str]
    """First three lower-case characters of each way a match can begin; empty: always try."""
    pattern: re.Pattern[str]
    known: bool


def _term(name: str, pattern: str, stems: tuple[str, ...], known: bool) -> _Term:
    keys = frozenset(stem[:3] for stem in stems)
    if not all(stem[:1].isascii() and stem[:1].isalnum() for stem in stems):
        keys = frozenset()
    return _Term(name, keys, re.compile(f"{_EDGE_BEFORE}(?:{pattern}){_EDGE_AFTER}", re.IGNORECASE), known)


_KNOWN = tuple(_term(name, pattern, stems, True) for name, pattern, stems in KNOWN_TERMS)


@dataclass(frozen=True)
class Leak:
    """A response (or its history) that names a model or vendor."""

    item_id: str
    slot: str
    term: str
    """The family or vendor name from KNOWN_TERMS, or a model name from the items."""


def find_identity_leaks(items: Iterable[Item], extra_terms: Sequence[str] = ()) -> list[Leak]:
    """Every (item, slot, term) where a response's text or assistant history names a model.

    Terms: KNOWN_TERMS, the items' own model names and `extra_terms` (a model name that overlaps a
    known term's match, like "gpt-4" on "GPT", is reported once as the known term). One Leak per
    distinct term per slot, in item order, then in order of first mention.
    """
    items = list(items)
    names = {m for item in items for m in item.models if m and len(m) >= MIN_MODEL_NAME}
    names.update(t for t in extra_terms if len(t) >= MIN_MODEL_NAME)
    terms = _KNOWN + tuple(_term(n, re.escape(n), (n.lower(),), False) for n in sorted(names))
    leaks = []
    for item in items:
        for response in item.responses:
            texts = [response.text] + [m.content for m in response.history if m.role == "assistant"]
            first_seen: dict[str, tuple[int, int]] = {}
            for number, text in enumerate(texts):
                for term, start in _mentions(text, terms):
                    first_seen.setdefault(term, (number, start))
            ordered = sorted(first_seen, key=first_seen.__getitem__)
            leaks.extend(Leak(item.id, response.slot, term) for term in ordered)
    return leaks


def _mentions(text: str, terms: Sequence[_Term]) -> list[tuple[str, int]]:
    """(term, position of its first match) for each term in text; a model name inside a known
    term's match is not counted again."""
    starts = set(_WORD_STARTS.findall(text.lower()))
    found: list[tuple[str, int]] = []
    spans: list[tuple[int, int]] = []
    for term in terms:
        if term.keys and starts.isdisjoint(term.keys):
            continue
        first = None
        for match in term.pattern.finditer(text):
            if term.known:
                spans.append(match.span())
            elif any(s < match.end() and match.start() < e for s, e in spans):
                continue
            first = match.start() if first is None else first
            if not term.known:
                break
        if first is not None:
            found.append((term.name, first))
    return found


def leak_warning(leaks: Sequence[Leak], cap: int = 20) -> str | None:
    """One warning line listing the items with leaks (at most `cap`, then "and N more")."""
    if not leaks:
        return None
    per_item: dict[str, list[str]] = {}
    for leak in leaks:
        per_item.setdefault(leak.item_id, []).append(f"{leak.slot}: {leak.term}")
    shown = [f"{item_id} ({', '.join(terms)})" for item_id, terms in list(per_item.items())[:cap]]
    more = len(per_item) - len(shown)
    listing = "; ".join(shown) + (f"; and {more} more" if more else "")
    return (
        f"responses in {len(per_item)} item{'s' if len(per_item) != 1 else ''} name a model or vendor, which can"
        f" unblind annotators: {listing}"
    )
