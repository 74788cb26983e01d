"""Identity leaks: responses that name a model or its vendor ("As ChatGPT, I ...").

Annotators must not know which model wrote what; a response that names itself breaks the
blinding on that item. Importers warn (they do not fail: the text is what the model said, and a
lead may want to judge it anyway) and list the items, so the lead can drop or edit them.

What is matched: a fixed list of model families and vendors (KNOWN_TERMS) plus every model name
found in the items' own `model` fields (names of at least MIN_MODEL_NAME characters, so a model
called "a" does not flag every text); never other words of the file. How:

- On the text as it looks, not as it is encoded (`annotate.formats.lookalikes.fold`): zero-width
  and other invisible characters are removed, fullwidth and mathematical letters and Cyrillic or
  Greek lookalikes become Latin, so `C\u200blaude` and `ＣｈａｔＧＰＴ` are found.
- Whole words, case-insensitively (letters and digits are word characters; so `GPT-4` matches in
  "gpt-4-turbo" but `Bard` does not match "Bardot").
- Family names that are ordinary words (ORDINARY_WORDS: Zephyr, Falcon, Llama, Gemini, Bard, ...)
  count only where they read as a model: with a version or size ("zephyr-7b", "Llama 2"), in a
  self-introduction ("I am Zephyr", "As Gemini, ..."), or with a word about AI models near them
  ("a model", "assistant", "trained by", a vendor). A wind or a character called Zephyr does not.
- A name the item's own prompt (its conversation, and the user turns of the histories) already
  mentions is the user's word, not a leak: the response counts only when it introduces itself
  by it ("I'm Claude"). A prompt asking to compare ChatGPT and Claude, or about a dragon named
  Zephyr, does not flag the answers that discuss them.

False positives remain possible (a story in which "the assistant Gemini" appears): it is a
warning for a human to read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from annotate.formats.lookalikes import fold
from annotate.formats.word_starts import WordStarts
from annotate.model import Item, Response

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
    ("DeepMind", r"(?:google )?deepmind", ("google deepmind", "deepmind")),
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
    ("ChatGLM", r"chat ?glm", ("chatglm", "chat glm")),
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
    ("Copilot", r"bing chat|microsoft copilot", ("bing chat", "microsoft copilot")),
)
"""(name shown in warnings, case-insensitive pattern, lower-case stems: every match begins with one).
The stems are a cheap filter: a pattern runs on a text only when a word of the text begins as one
of them does (`_Terms.candidates`, for a batch of texts at once) and the lower-cased text contains
one of them (a substring search; see `_mentions`)."""
ORDINARY_WORDS = frozenset({
    "Alpaca", "Bard", "Cohere", "Dolly", "Falcon", "Gemini", "Grok", "Guanaco", "Koala", "LLaMA", "Mistral",
    "Vicuna", "Zephyr",
})
"""Family names that are also ordinary words or names: they need a model context to count."""
MIN_MODEL_NAME = 4
_VERSION_AFTER = re.compile(r"[- ]?v?\d")
"""Right after a name: a version or size (zephyr-7b, Llama 2, Gemini 1.5)."""
_INTRODUCTION_BEFORE = re.compile(r"\b(?:i am|i'm|i’m|my name is|this is|call me)\s+$", re.IGNORECASE)
"""Right before a name: the speaker introducing itself ("I am X", "my name is X")."""
_AS_BEFORE = re.compile(r"(?:^|[.!?:;\n]\s*)as\s+$", re.IGNORECASE)
"""Right before a name at the start of a sentence: "As X, I ..." (with the comma after the name)."""
_MODEL_CONTEXT = re.compile(
    r"\b(?:ai|a\.i\.|artificial intelligence|assistant|chat ?bot|bot|language models?|llms?|models?|trained|"
    r"fine-?tuned|developed|created|built|made by|hugging ?face|open ?ai|anthropic|google|meta|microsoft|"
    r"databricks|lmsys|technology innovation institute|tii|xai|mistral ai)\b",
    re.IGNORECASE,
)
"""Words near a name that make an ordinary word read as a model's name."""
_CONTEXT_CHARS = 60
_EDGE_BEFORE = r"(?<![A-Za-z0-9])"
_EDGE_AFTER = r"(?![A-Za-z0-9])"


@dataclass(frozen=True)
class _Term:
    name: str
    stems: tuple[str, ...]
    """Lower-case text every match contains one of; empty: always try the pattern."""
    pattern: re.Pattern[str]
    known: bool


def _term(name: str, pattern: str, stems: tuple[str, ...], known: bool) -> _Term:
    if not all(stem.isascii() for stem in stems):
        stems = ()  # lower() and the pattern's case-insensitive match may part ways outside ASCII
    return _Term(name, stems, re.compile(f"{_EDGE_BEFORE}(?:{pattern}){_EDGE_AFTER}", re.IGNORECASE), known)


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
    known term's match, like "gpt-4" on "GPT", is reported once as the known term). The rules of
    the module docstring decide which mentions count. One Leak per distinct term per slot, in
    item order, then in order of first mention.
    """
    return [leak for found in leaks_per_item(items, extra_terms) for leak in found]


def leaks_per_item(items: Iterable[Item], extra_terms: Sequence[str] = ()) -> list[list[Leak]]:
    """`find_identity_leaks`, one list per item (in the order of `items`)."""
    items = list(items)
    names = {m for item in items for m in item.models if m and len(m) >= MIN_MODEL_NAME}
    names.update(t for t in extra_terms if len(t) >= MIN_MODEL_NAME)
    terms = _terms_for(tuple(sorted(names)))
    texts = [response_texts(response) for item in items for response in item.responses]
    passed = iter(terms.candidates([text for response in texts for text in response]))
    per_response = iter(texts)
    found: list[list[Leak]] = []
    for item in items:
        leaks: list[Leak] = []
        asked: set[str] | None = None  # the terms the prompt mentions, scanned only when a response has one
        for response in item.responses:
            first_seen: dict[str, tuple[int, int]] = {}
            for number, text in enumerate(next(per_response)):
                if not next(passed):
                    continue
                for term, mention in _mentions(text, terms).items():
                    if asked is None:
                        asked = {t for prompt in _prompt_texts(item) for t in _mentions(fold(prompt), terms)}
                    start = mention.introduced if term in asked else mention.as_model
                    if start is not None:
                        first_seen.setdefault(term, (number, start))
            ordered = sorted(first_seen, key=first_seen.__getitem__)
            leaks.extend(Leak(item.id, response.slot, term) for term in ordered)
        found.append(leaks)
    return found


def leak_candidates(folded: Sequence[str], extra_terms: Sequence[str]) -> tuple[list[bool], Any]:
    """For each folded response text (`annotate.formats.lookalikes.fold`), whether a term may match
    in it: the first filter of `leaks_per_item`, with these terms (which must include the items'
    own model names), so that the items whose texts are all passed over need not be built at all;
    and the keys of the texts' words (`annotate.formats.word_starts.word_keys`)."""
    names = tuple(sorted({t for t in extra_terms if len(t) >= MIN_MODEL_NAME}))
    return _terms_for(names).candidates_and_keys(folded)


def names_may_begin(names: Iterable[str], keys: Any) -> bool:
    """Whether a text whose words have these keys (`annotate.formats.word_starts.word_keys`) may
    mention one of these model names: the filter `may_mention` applies, on what is left of a batch."""
    stems = tuple(sorted({name.lower() for name in names}))
    if not all(stem.isascii() for stem in stems):
        return True  # such a name is always looked for (see `_term`)
    return _starts_for(stems).may_begin_any(keys)


@lru_cache(maxsize=8)
def _starts_for(stems: tuple[str, ...]) -> WordStarts:
    """The filter of these stems (the batches read before a name was first seen share their late names)."""
    return WordStarts(stems)


def may_mention(items: Sequence[Item], names: Iterable[str]) -> list[bool]:
    """For each item, whether a response of it (or its assistant history) may name one of these
    model names; False only when none can match in it (the filter of `_Terms.candidates`)."""
    terms = _Terms(tuple(_term(n, re.escape(n), (n.lower(),), False) for n in sorted(names)))
    texts = [[text for response in item.responses for text in response_texts(response)] for item in items]
    passed = iter(terms.candidates([text for item_texts in texts for text in item_texts]))
    return [any([next(passed) for _ in item_texts]) for item_texts in texts]


def response_texts(response: Response) -> list[str]:
    """A response's text and its assistant history, folded (`annotate.formats.lookalikes.fold`)."""
    return [fold(text) for text in [response.text] + [m.content for m in response.history if m.role == "assistant"]]


@lru_cache(maxsize=4)
def _terms_for(names: tuple[str, ...]) -> _Terms:
    """The known terms and these model names (an import asks for the same set batch after batch)."""
    return _Terms(_KNOWN + tuple(_term(n, re.escape(n), (n.lower(),), False) for n in names))


def _prompt_texts(item: Item) -> list[str]:
    """What the user wrote or was shown before the responses: the conversation, the histories' user turns."""
    texts = [m.content for m in item.conversation]
    texts += [m.content for r in item.responses for m in r.history if m.role == "user"]
    return texts


@dataclass
class _Mention:
    """Where a term is first mentioned in a text: reading as a model's name, and as a self-introduction."""

    as_model: int | None = None
    introduced: int | None = None


class _Terms:
    """The terms of one scan, with their stems laid out flat for the filters of `_mentions`."""

    def __init__(self, terms: Sequence[_Term]) -> None:
        self.terms = tuple(terms)
        self.stems = tuple((stem, k) for k, term in enumerate(self.terms) for stem in term.stems)
        self.always = frozenset(k for k, term in enumerate(self.terms) if not term.stems)
        self._starts: WordStarts | None = None

    def candidates(self, texts: Sequence[str]) -> list[bool]:
        """For each (folded) text, whether a term may match in it: False when no word of it begins
        as a stem does (`annotate.formats.word_starts`); always True when a term has no stems."""
        if self.always:
            return [True] * len(texts)
        if self._starts is None:
            self._starts = WordStarts(stem for stem, _ in self.stems)
        return self._starts.candidates(texts)

    def candidates_and_keys(self, texts: Sequence[str]) -> tuple[list[bool], Any]:
        """`candidates`, and the keys of the texts' words."""
        if self._starts is None:
            self._starts = WordStarts(stem for stem, _ in self.stems)
        flags, keys = self._starts.candidates_and_keys(texts)
        return ([True] * len(texts) if self.always else flags), keys

    def present(self, text: str) -> list[_Term]:
        """The terms whose stem the lower-cased text contains (and those without stems), in order."""
        lowered = text.lower()
        hits = {k for stem, k in self.stems if stem in lowered} | self.always
        return [self.terms[k] for k in sorted(hits)]


def _mentions(text: str, terms: _Terms) -> dict[str, _Mention]:
    """Each term matched in (folded) text, with the first match that reads as a model's name
    (distinctive names: any match; ordinary words: `_reads_as_model`) and the first that is a
    self-introduction (`_introduces`), either None. A model name inside a known term's match is
    not counted again.
    """
    found: dict[str, _Mention] = {}
    spans: list[tuple[int, int]] = []
    for term in terms.present(text):
        for match in term.pattern.finditer(text):
            if term.known:
                spans.append(match.span())
            elif any(s < match.end() and match.start() < e for s, e in spans):
                continue
            mention = found.setdefault(term.name, _Mention())
            introduced = _introduces(text, match)
            if mention.introduced is None and introduced:
                mention.introduced = match.start()
            if mention.as_model is None and (
                term.name not in ORDINARY_WORDS or introduced or _reads_as_model(text, match)
            ):
                mention.as_model = match.start()
            if not term.known and mention.introduced is not None:
                break
    return found


def _introduces(text: str, match: re.Match[str]) -> bool:
    """The name is the speaker's own: "I am X", "I'm X", "my name is X", "As X, ..."."""
    start = match.start()
    before = text[max(0, start - 24):start]
    if _INTRODUCTION_BEFORE.search(before):
        return True
    if start > 24:
        before = "x" + before  # the window does not begin a sentence
    return _AS_BEFORE.search(before) is not None and text.startswith(",", match.end())


def _reads_as_model(text: str, match: re.Match[str]) -> bool:
    """An ordinary word used as a model's name: a version right after it, or AI words near it."""
    if _VERSION_AFTER.match(text, match.end()) or any(c.isdigit() for c in match.group()):
        return True
    before = text[max(0, match.start() - _CONTEXT_CHARS):match.start()]
    after = text[match.end():match.end() + _CONTEXT_CHARS]
    return _MODEL_CONTEXT.search(before) is not None or _MODEL_CONTEXT.search(after) is not None


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
