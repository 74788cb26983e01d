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

__all__ = ["is_safe", "placeholder", "sanitize"]

_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_TAGS = "\U000e0000-\U000e007f"
_FLAG = "\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"
"""An emoji tag sequence (a subdivision flag such as England's): the one legitimate use of tags."""
_UNSAFE = re.compile(
    f"(?P<flag>{_FLAG})|[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u2028\u2029{_BIDI}{_TAGS}]"
)


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
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda m: m.group() if m.group("flag") else placeholder(m.group()), text)


def is_safe(text: str) -> bool:
    """True when `sanitize` would leave `text` unchanged apart from line endings."""
    return all(m.group("flag") for m in _UNSAFE.finditer(text))
