"""The fast paths of the style counts (`annotate.style_features`) against the patterns they stand for:
fences found by searching for backticks against ``_FENCE.sub``, bold spans by the form a text can
hold against ``_BOLD.findall``, tokens from collapsed character codes against ``_TOKEN.findall``, on
texts made of the pieces these patterns care about."""

from __future__ import annotations

import random

import pytest

from annotate import style_features as style

PIECES = ("```", "````", "`", "\n", "\n", " ", "\t", "x", "py", "#", "- ", "**", "__", "*", "_", "\r\n", "é",
          "\u2003", "\x1c", "\x00", "...", "ab_c", "٣")


def random_texts(seed: int, count: int, longest: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, longest))) for _ in range(count)]


FIXED = [
    "", "```", "```\n```", "a\n```\nb\n```\nc", "  ```py\ncode\n\t```  tail\nafter", "x ```\n```\n```",
    "```\n```\n```", "```\nno close", "\n```\n\n```\n", "``` ```\n```", "````\n```", "**a__b**c__", "__a**b__c**",
    "**a**", "__a__", "** **", "**\n**", "*a*", "____", "****",
]


@pytest.mark.parametrize("seed", range(4))
def test_fences_are_taken_out_as_the_pattern_takes_them_out(seed: int) -> None:
    for text in [*FIXED, *random_texts(seed, 4000, 40)]:
        assert style.without_fences(text) == style._FENCE.sub("", text), repr(text)


@pytest.mark.parametrize("seed", range(4))
def test_bold_spans_are_counted_as_the_pattern_counts_them(seed: int) -> None:
    for text in [*FIXED, *random_texts(seed, 4000, 40)]:
        assert style._bold_count(text) == len(style._BOLD.findall(text)), repr(text)


@pytest.mark.parametrize("seed", range(3))
def test_tokens_of_a_batch_are_the_tokens_of_each_text(seed: int) -> None:
    texts = [*FIXED, *random_texts(seed, 2000, 30)]
    ascii_texts = [t for t in texts if t.isascii()]
    for batch in (texts, ascii_texts, ["\ud800a", "b\udfff"], ["", ""], [""]):
        assert style._token_counts(batch).tolist() == [style.count_tokens(t) for t in batch]


@pytest.mark.parametrize("left_out", ["_", "*", ""])
def test_bold_spans_of_a_batch_are_the_spans_of_each_text(left_out: str) -> None:
    """Batches where only one form of bold can open (one scan of the joined texts) and where both can."""
    texts = [t.replace(left_out, "") if left_out else t for t in [*FIXED, *random_texts(7, 3000, 40)]]
    counts = style.features_of_texts(texts)[:, 3].tolist()
    assert counts == [len(style._BOLD.findall(style._FENCE.sub("", t))) for t in texts]
