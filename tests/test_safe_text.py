"""The sanitiser turns every terminal-active character into a visible placeholder."""

from __future__ import annotations

import pytest

from annotate.safe_text import is_safe, placeholder, sanitize

HOSTILE = [
    "\x1b[2J",
    "\x1b]52;c;aGk=\x07",
    "\x1b]8;;http://x\x07link\x1b]8;;\x07",
    "\x1bP1$r\x1b\\",
    "\x9b31m",
    "\x9d0;title\x9c",
    "abc\rXYZ",
    "a\bb",
    "\u202eevil\u202c",
    "\u2066iso\u2069",
    "x\u2028y",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_neutralised(text: str) -> None:
    out = sanitize(text)
    assert is_safe(out)
    assert not any(ord(c) < 0x20 and c not in "\n\t" for c in out)
    assert not any(0x7F <= ord(c) <= 0x9F for c in out)


def test_escape_sequences_show_literally() -> None:
    assert sanitize("\x1b[2J") == "␛[2J"
    assert sanitize("\x1b]52;c;aGk=\x07") == "␛]52;c;aGk=␇"
    assert sanitize("\x1b]8;;http://x\x07link\x1b]8;;\x07") == "␛]8;;http://x␇link␛]8;;␇"


def test_ordinary_text_is_unchanged() -> None:
    text = "Hello\tworld\n```py\nprint('é 日本 🙂')\n```\n[bold red]x[/]"
    assert sanitize(text) == text
    assert is_safe(text)


def test_line_endings() -> None:
    assert sanitize("a\r\nb") == "a\nb"
    assert sanitize("a\rb") == "a␍b"


def test_placeholders() -> None:
    assert placeholder("\x00") == "␀"
    assert placeholder("\x7f") == "␡"
    assert placeholder("\u202e") == "⟨U+202E⟩"
    assert placeholder("\x85") == "⟨U+0085⟩"


def test_invisible_tag_characters_become_visible_but_subdivision_flags_stay() -> None:
    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    hidden = "ok\U000e0049\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065"  # "Ignore" in tag characters
    assert sanitize(england) == england
    assert is_safe(england)
    assert sanitize(hidden) == "ok⟨U+E0049⟩⟨U+E0067⟩⟨U+E006E⟩⟨U+E006F⟩⟨U+E0072⟩⟨U+E0065⟩"
    assert not is_safe(hidden)


def _sanitize_by_regex_alone(text: str) -> str:
    """`sanitize` as it was before its fast paths (ASCII, no unsafe character): the reference."""
    from annotate.safe_text import _UNSAFE

    text = text.replace("\r\n", "\n")
    return _UNSAFE.sub(lambda m: m.group() if m.group("flag") else placeholder(m.group()), text)


def test_the_fast_paths_give_what_the_regex_alone_gives() -> None:
    import random

    from hostile_corpus import hostile_strings

    alphabet = (
        [chr(c) for c in range(0x00, 0x100)] + ["\r\n", "\u2028", "\u2029", "\u061c", "\u200e", "\u202e", "\u2066",
                                                "\U000e0041", "\U000e007f", "\U0001f3f4", "é", "漢", "😀", "\u00a0"]
        + ["\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"]  # England's flag
    )
    rng = random.Random(3)
    texts = [text for _name, text in hostile_strings(include_huge=False)]
    for _ in range(3000):
        pool = alphabet if rng.random() < 0.5 else [chr(c) for c in range(0x20, 0x7F)] + ["\n", "\t", "\r", "\x1b"]
        texts.append("".join(rng.choice(pool) for _ in range(rng.randint(0, 40))))
    texts += ["plain ascii\n\twith tabs", "ünïcödé only", "a\r\nb", "\r", ""]
    for text in texts:
        assert sanitize(text) == _sanitize_by_regex_alone(text), repr(text)
