"""Hostile text: after sanitising, no control, escape or bidi character survives, and the visible
content is kept (nothing silently dropped)."""

from __future__ import annotations

import pytest
from hostile_corpus import contains_forbidden, hostile_strings

from annotate.safe_text import sanitize

CASES = hostile_strings()


def test_corpus_is_large_and_named_uniquely() -> None:
    assert len(CASES) >= 100
    assert len({name for name, _ in CASES}) == len(CASES)


@pytest.mark.parametrize(("name", "text"), CASES, ids=[name for name, _ in CASES])
def test_sanitize_leaves_nothing_terminal_active(name: str, text: str) -> None:
    clean = sanitize(text)
    assert contains_forbidden(clean) == []
    printable_in = sum(1 for ch in text if ch.isprintable() and ch not in "\u202e\u202d")
    assert len(clean) >= printable_in * 0.9, "sanitize dropped visible text"
