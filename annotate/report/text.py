"""Untrusted text made safe to show in a report cell, in any format.

Item ids, rater names, categories and model names come from files nobody on the team wrote. Before
any renderer escapes them for its format (Rich `Text`, Markdown, `html.escape`), `clean` makes them
inert and visible:

* terminal-active characters (C0/C1 controls, ESC and so CSI / OSC 52 / OSC 8 sequences, bidi
  overrides and isolates, line separators) become visible placeholders through
  `annotate.safe_text.sanitize` (``ESC`` shows as ``␛``);
* invisible format characters that could make two different names look the same (zero-width
  space / non-joiner, word joiner, BOM, invisible operators, Mongolian vowel separator, Unicode tag
  characters used to smuggle hidden text) become ``⟨U+XXXX⟩``; the zero-width *joiner* is kept,
  since emoji sequences need it;
* newlines and tabs become spaces (a cell is one line);
* text longer than ``limit`` characters is cut with a note of how much was left out, so a 1 MB id
  cannot stall the terminal or bloat the file.  The JSON report keeps the full text.
"""

from __future__ import annotations

import re

from annotate.safe_text import placeholder, sanitize

__all__ = ["CELL_LIMIT", "clean"]

CELL_LIMIT = 120
"""Default maximum characters of untrusted text shown in one cell."""

_INVISIBLE = re.compile("[\u180e\u200b\u200c\u2060-\u2064\ufeff\U000e0000-\U000e007f]")


def clean(text: object, limit: int = CELL_LIMIT) -> str:
    """One printable line from untrusted text, at most ``limit`` characters plus a length note.

    >>> clean("bob\\x1b]52;c;aGk=\\x07")
    'bob␛]52;c;aGk=␇'
    """
    raw = "" if text is None else str(text)
    cut = len(raw) - limit if len(raw) > limit else 0
    if cut:
        raw = raw[:limit]
    raw = raw.replace("\r\n", " ").replace("\n", " ").replace("\t", " ")
    safe = sanitize(raw)
    safe = _INVISIBLE.sub(lambda m: placeholder(m.group()), safe)
    return f"{safe}… (+{cut:,} chars)" if cut else safe
