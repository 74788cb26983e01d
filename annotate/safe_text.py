"""Make untrusted text (prompts, model responses, rationales) safe to put on a terminal.

Item text comes from models and from files nobody on the team wrote. Written to a terminal as is,
a few characters act instead of showing:

- C0 controls (U+0000-U+001F except tab and newline) and DEL: ESC starts escape sequences (CSI
  such as `ESC [ 2 J` clears the screen; OSC 52 writes the clipboard; OSC 8 makes hidden
  hyperlinks; DCS and APC reach the terminal's own parser), BEL rings, BS and CR overwrite what
  was already shown, so a response could hide part of itself.
- C1 controls (U+0080-U+009F): single-character forms of the same introducers (U+009B is CSI,
  U+009D is OSC) that some terminals honour.
- Bidirectional overrides, embeddings, isolates and marks (U+202A-U+202E, U+2066-U+2069,
  U+200E, U+200F, U+061C): they reorder what is displayed ("Trojan Source"), so the text an
  annotator reads is not the text that is stored.
- Line and paragraph separators (U+2028, U+2029) break lines where the renderer does not expect.
- Unicode tag characters (U+E0000-U+E007F) are invisible: a response could carry text that the
  annotator never sees but an LLM judge reads. Only inside an emoji subdivision flag are they kept.

`sanitize` replaces each of them with a visible placeholder instead of deleting it, so an
annotator sees that the text contained something odd and a rendered escape sequence becomes
inert printable text (`ESC [2J` shows as `␛[2J`). CRLF becomes a plain newline first. Every
other character, including emoji and non-Latin scripts, is kept.

This module only neutralises terminal behaviour. It does not escape Rich console markup: text
must still never go through `Text.from_markup` or a markup-enabled widget.
"""

from __future__ import annotations

import re
from array import array
from typing import TextIO

__all__ = ["SanitizingWriter", "escape_json", "is_safe", "one_line", "placeholder", "sanitize", "sanitize_offsets"]

_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_TAGS = "\U000e0000-\U000e007f"
_FLAG = "\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"
"""An emoji tag sequence (a subdivision flag such as England's): the one legitimate use of tags."""
_UNSAFE = re.compile(
    f"(?P<flag>{_FLAG})|[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u2028\u2029{_BIDI}{_TAGS}]"
)

_UNSAFE_CHAR = re.compile(f"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u2028\u2029{_BIDI}{_TAGS}]")
"""The characters `_UNSAFE`'s matches are made of (a flag holds tag characters; CR is one of them):
text without any of them is safe as it is."""
_ASCII_SHOWN = bytes(range(0x20, 0x7F)) + b"\t\n"
"""The ASCII characters `sanitize` keeps as they are."""


def placeholder(char: str) -> str:
    """The visible stand-in for one unsafe character.

    C0 controls and DEL become their Unicode "control picture" (ESC -> `␛`, BEL -> `␇`,
    NUL -> `␀`, DEL -> `␡`), which is one printable cell; everything else becomes `⟨U+XXXX⟩`.
    """
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"⟨U+{code:04X}⟩"


def sanitize(text: str) -> str:
    """`text` with every terminal-active character replaced by a visible placeholder.

    Newlines and tabs are kept; `\\r\\n` becomes `\\n` first, a lone `\\r` becomes `␍`.

    >>> sanitize("a\\x1b[2Jb")
    'a␛[2Jb'
    """
    if text.isascii():  # O(1); the check below is one pass in C, where `_UNSAFE` takes ~25x longer
        if not text.encode("ascii").translate(None, _ASCII_SHOWN):
            return text
    elif _UNSAFE_CHAR.search(text) is None:
        return text
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda m: m.group() if m.group("flag") else placeholder(m.group()), text)


_MAPPED = re.compile("(?P<crlf>\r\n)|" + _UNSAFE.pattern)
"""What `sanitize` changes, in one left-to-right pass: CRLF, then (as in `_UNSAFE`) flags and unsafe characters."""


def sanitize_offsets(text: str) -> tuple[str, array, array]:
    """`sanitize(text)`, and where each of its characters comes from in `text`.

    Returns (shown, starts, ends): `shown == sanitize(text)`, and `shown[i]` stands for
    `text[starts[i]:ends[i]]` (Python str indices). Kept characters map one to one; a placeholder's
    characters all stand for the one character it replaces (`⟨U+202E⟩`: eight characters, one
    original); the newline made from `\r\n` stands for both. So a stretch `shown[i:j]` is
    `text[starts[i]:ends[j - 1]]` of the original, never an offset into what is on screen.

    >>> shown, starts, ends = sanitize_offsets("a\x1bb")
    >>> shown, list(starts), list(ends)
    ('a␛b', [0, 1, 2], [1, 2, 3])
    """
    pieces: list[str] = []
    starts, ends = array("q"), array("q")
    pos = 0
    for match in _MAPPED.finditer(text):
        begin, stop = match.span()
        if begin > pos:
            pieces.append(text[pos:begin])
            starts.extend(range(pos, begin))
            ends.extend(range(pos + 1, begin + 1))
        if match.group("crlf"):
            pieces.append("\n")
            starts.append(begin)
            ends.append(stop)
        elif match.group("flag"):
            pieces.append(match.group())
            starts.extend(range(begin, stop))
            ends.extend(range(begin + 1, stop + 1))
        else:
            shown = placeholder(match.group())
            pieces.append(shown)
            starts.extend([begin] * len(shown))
            ends.extend([stop] * len(shown))
        pos = stop
    if pos < len(text):
        pieces.append(text[pos:])
        starts.extend(range(pos, len(text)))
        ends.extend(range(pos + 1, len(text) + 1))
    return "".join(pieces), starts, ends


def one_line(text: object) -> str:
    """`sanitize`d text that stays on one line: newlines and tabs shown as `␊` and `␉` too.

    For a name, an id or a file name inside a message, where a line break would fake a new line.

    >>> one_line("a\\nb\\x1b[2J")
    'a␊b␛[2J'
    """
    return sanitize(str(text)).replace("\n", "\u240a").replace("\t", "\u2409")


def is_safe(text: str) -> bool:
    """True when `sanitize` would leave `text` unchanged apart from line endings."""
    return all(m.group("flag") for m in _UNSAFE.finditer(text))


def escape_json(text: str) -> str:
    r"""JSON text with every terminal-active character written as a `\uXXXX` escape.

    `text` must be JSON (as `json.dumps` writes it); the escapes only occur inside its strings, so
    `json.loads` gives back exactly the same value. Characters beyond U+FFFF become a surrogate pair.

    >>> escape_json('"a\u202eb"')
    '"a\\u202eb"'
    """
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda m: m.group() if m.group("flag") else _json_escape(m.group()), text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


class SanitizingWriter:
    """A text stream that passes everything written through `sanitize` (data shown on a terminal)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(sanitize(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()
