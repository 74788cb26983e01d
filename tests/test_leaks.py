"""Identity leaks: responses that name a model or vendor."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from annotate.formats import Leak, find_identity_leaks
from annotate.formats.leaks import KNOWN_TERMS, _terms_for, leak_warning
from annotate.formats.lookalikes import fold
from annotate.formats.word_starts import WordStarts, stem_keys
from annotate.model import Item, Message, Response


def item(item_id: str, a: str, b: str = "Fine.", models: tuple[str | None, str | None] = (None, None),
         history: tuple[Message, ...] = ()) -> Item:
    return Item(item_id, "pairwise", (Message("user", "Who are you?"),),
                (Response("A", a, models[0], history), Response("B", b, models[1])))


def test_known_names_case_insensitive_on_word_boundaries() -> None:
    leaks = find_identity_leaks([
        item("1", "I am ChatGPT, made by openai."),
        item("2", "Trained by Anthropic; I'm claude.", b="As an AI built on gpt-4-turbo ..."),
        item("3", "Brigitte Bardot and the Claudette Colbert film; openaire; GPT4All? no: gpt4all"),
        item("4", "Nothing to see here."),
    ])
    assert leaks == [
        Leak("1", "A", "ChatGPT"), Leak("1", "A", "OpenAI"),
        Leak("2", "A", "Anthropic"), Leak("2", "A", "Claude"), Leak("2", "B", "GPT"),
    ]


def test_model_names_from_the_items_and_history() -> None:
    leaks = find_identity_leaks([
        item("1", "Sure.", models=("basalt-8b", "quartz-70b")),
        item("2", "Unlike Quartz-70B, I ...", history=(Message("assistant", "I am basalt-8b."),)),
        item("3", "Ok", models=("gpt-4", "abc")),
        item("4", "As gpt-4 I ... abc, and again GPT-4."),
    ])
    assert leaks == [
        Leak("2", "A", "quartz-70b"), Leak("2", "A", "basalt-8b"),
        Leak("4", "A", "GPT"),  # reported once, as the family, not again as "gpt-4"; "abc" too short
    ]


def test_warning_lists_items_and_caps_the_list() -> None:
    leaks = [Leak(f"i{n}", "A", "Claude") for n in range(25)] + [Leak("i0", "B", "Gemini")]
    warning = leak_warning(leaks, cap=20)
    assert warning is not None
    assert warning.startswith("responses in 25 items name a model or vendor")
    assert "i0 (A: Claude, B: Gemini)" in warning and "i19 (A: Claude)" in warning
    assert "i20" not in warning and warning.endswith("and 5 more")
    assert leak_warning([]) is None


def story(item_id: str, prompt: str, a: str, b: str = "Fine.", models: tuple[str | None, str | None] = (None, None),
          ) -> Item:
    return Item(item_id, "pairwise", (Message("user", prompt),),
                (Response("A", a, models[0]), Response("B", b, models[1])))


def test_hidden_characters_fullwidth_and_lookalikes_do_not_hide_a_name() -> None:
    leaks = find_identity_leaks([
        item("zw", "I am C\u200blaude, here to help."),
        item("fw", "ＣｈａｔＧＰＴ here: sure."),
        item("cyr", "Hi! I'm \u0421laude (with a Cyrillic C).", b="Made by Оpen\u2060AI."),
        item("greek", "Trained by \u0391nthropic."),
        item("math", "\U0001d402\U0001d425\U0001d41a\U0001d42e\U0001d41d\U0001d41e at your service."),
        item("soft", "I am Ge\u00admini\ufe0f, a model."),
    ])
    assert leaks == [
        Leak("zw", "A", "Claude"), Leak("fw", "A", "ChatGPT"), Leak("cyr", "A", "Claude"),
        Leak("cyr", "B", "OpenAI"), Leak("greek", "A", "Anthropic"), Leak("math", "A", "Claude"),
        Leak("soft", "A", "Gemini"),
    ]


def test_an_ordinary_word_used_as_a_name_does_not_fire() -> None:
    leaks = find_identity_leaks([
        story("tale", "Write a story about a dragon called Zephyr.",
              "Zephyr spread her wings. As Zephyr flew over the falcon's nest, the wind rose.",
              "Once, Zephyr the dragon ...", models=("zephyr-7b-beta", "mistral-7b-instruct")),
        story("wind", "Describe the weather.", "A gentle zephyr from the west; a falcon overhead; a llama grazes."),
        story("poem", "A sonnet in the style of the Bard, please.", "The Bard would say ..."),
    ])
    assert leaks == []


def test_an_ordinary_word_fires_when_it_reads_as_a_model() -> None:
    leaks = find_identity_leaks([
        story("self", "Who are you?", "I am Zephyr, a model by HuggingFace."),
        story("size", "Which model?", "This answer comes from zephyr-7b.", b="Running on Llama 2."),
        story("vendor", "Hi", "Sure! As Gemini, I can help.", b="Gemini, Google's assistant, says hi."),
        story("asked", "Tell me about Zephyr the dragon. Who are you?", "I'm Zephyr, a language model."),
    ])
    assert leaks == [
        Leak("self", "A", "Zephyr"), Leak("size", "A", "Zephyr"), Leak("size", "B", "LLaMA"),
        Leak("vendor", "A", "Gemini"), Leak("vendor", "B", "Gemini"), Leak("asked", "A", "Zephyr"),
    ]


def test_names_the_prompt_brings_up_count_only_as_self_introductions() -> None:
    leaks = find_identity_leaks([
        story("compare", "Compare ChatGPT and Claude for coding.", "ChatGPT is faster; Claude writes more.",
              b="I'm Claude, and I think ChatGPT is good too."),
        story("models", "What do you think of quartz-70b?", "quartz-70b is a fine model.",
              b="As quartz-70b, I must say ...", models=("quartz-70b", "basalt-8b")),
    ])
    assert leaks == [Leak("compare", "B", "Claude"), Leak("models", "B", "quartz-70b")]


def test_the_stem_filter_never_hides_a_match() -> None:
    """A pattern runs only on texts whose lower-cased fold contains one of its stems: sound only if
    no character left after folding matches an ASCII letter or digit case-insensitively unless it
    lower-cases to it (the Kelvin sign, long s, dotless i are folded away first)."""
    import re

    from annotate.formats.lookalikes import fold

    ascii_chars = "abcdefghijklmnopqrstuvwxyz0123456789"
    pattern = re.compile(f"[{ascii_chars}]", re.IGNORECASE)
    hiding = []
    for code in range(0x80, 0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        for ch in fold(chr(code)):
            if not ch.isascii() and pattern.fullmatch(ch) and ch.lower() not in ascii_chars:
                hiding.append(hex(code))
    assert hiding == []


KNOWN_PATTERNS = [(name, re.compile(pattern, re.IGNORECASE), stems) for name, pattern, stems in KNOWN_TERMS]


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_match_of_a_known_term_begins_with_one_of_its_stems(data: st.DataObject) -> None:
    """The stems say how every match begins: the word-start filter and the substring filter rely on it."""
    for name, pattern, stems in KNOWN_PATTERNS:
        mention = data.draw(st.from_regex(pattern, fullmatch=True), label=name)
        assert mention.lower().startswith(stems), (name, mention)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), before=st.sampled_from(["", " ", "(", "«", "\n", "é ", "1. "]),
       after=st.sampled_from(["", " ", ",", ".", "»", "\u2019s", "-"]))
def test_the_word_start_filter_passes_every_text_a_term_matches_in(data: st.DataObject, before: str,
                                                                  after: str) -> None:
    names = ("quartz-70b", "Basalt_8B", "m-one", "x.ai.v2", "Zorblax-9")
    terms = _terms_for(names)
    texts = []
    for _name, pattern, _stems in KNOWN_PATTERNS:
        texts.append(before + data.draw(st.from_regex(pattern, fullmatch=True)) + after)
    texts += [f"{before}{name.upper()}{after}" for name in names]
    texts = [fold(text) for text in texts]
    matched = [text for text in texts if any(term.pattern.search(text) for term in terms.terms)]
    assert matched  # the edges chosen may hide a mention; never all of them
    others = ["nothing of the sort", "the wind, a bar, a clam", ""]
    flags = terms.candidates(matched + others)
    assert flags[:len(matched)] == [True] * len(matched)
    assert flags[len(matched):] == [False] * len(others)


def test_the_word_start_filter_keys() -> None:
    starts = WordStarts(["gpt", "open ai", "01.ai", "claude", "quartz-70b"])
    texts = ["a GPT4o here", "open-ai", "opal", "the 01 ai", "Claudette", "QUARTZ 70b", "gp t", "o pen", "x01"]
    assert starts.candidates(texts) == [True, True, False, True, True, True, False, False, False]
    assert len(stem_keys("gpt") or []) == 37 and stem_keys("phi-") == stem_keys("phi") [:1]
    assert stem_keys("-beta") is None and WordStarts(["-beta"]).candidates(["x"]) == [True]
