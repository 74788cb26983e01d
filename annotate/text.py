"""Small helpers for the wording of command-line messages (no Textual, no pandas)."""

from __future__ import annotations

__all__ = ["plural"]


def plural(n: int, word: str, many: str | None = None) -> str:
    """`n` and the noun, singular for exactly one and plural otherwise.

    `many` is the plural when it is not `word` + "s".

    >>> plural(1, "item"), plural(0, "item"), plural(2, "repeat vote"), plural(3, "entry", "entries")
    ('1 item', '0 items', '2 repeat votes', '3 entries')
    """
    return f"{n} {word if n == 1 else (many or word + 's')}"
