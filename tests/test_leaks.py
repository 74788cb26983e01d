"""Identity leaks: responses that name a model or vendor."""

from __future__ import annotations

from annotate.formats import Leak, find_identity_leaks
from annotate.formats.leaks import leak_warning
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
