"""Untrusted Markdown cut into runs of whole top-level blocks, each of which parses alone as it
does in the whole text: what lets `render.DocLines` render a long response a part at a time.

No Textual, no Rich: only the lines of the text are looked at (fences, list items, blank lines).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_LIST_ITEM = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")


def _indent(line: str) -> int:
    """Leading spaces; a tab counts as four (enough to make a line content, never a block start)."""
    indent = len(line) - len(line.lstrip(" "))
    return indent + 4 if line[indent:indent + 1] == "\t" else indent


def _fence_states(state: tuple[str, str, int], line: str) -> set[tuple[str, str, int]]:
    """The fence states after `line`, from `state`; several when the line is ambiguous.

    A state is ("", "", 0) outside fenced code, ("top", marker, 0) inside a top-level fence (which
    only its closing line ends), or ("item", marker, indent) inside a fence opened at `indent`
    spaces within a list item (which also ends when the item does; the item's content column is
    not tracked, so lines indented less than the fence are read both ways).
    """
    kind, marker, opened_at = state
    indent = _indent(line)
    match = _FENCE.match(line)
    closes = (match is not None and match.group(1)[0] == marker[:1] and len(match.group(1)) >= len(marker)
              and not match.group(2).strip(" \t"))
    if kind == "top":
        return {("", "", 0)} if closes and indent <= 3 else {state}
    if kind == "item":
        if not line.strip(" \t"):
            return {state}
        inside = {("", "", 0), state} if closes else {state}
        if indent >= opened_at:
            return inside
        outside = _fence_states(("", "", 0), line)  # the item (and its fence) ended before this line
        return outside if indent == 0 else outside | inside
    if match is None or (match.group(1)[0] == "`" and "`" in match.group(2)):
        return {state}
    if indent == 0:
        return {("top", match.group(1), 0)}
    return {("top", match.group(1), 0), ("item", match.group(1), indent)}


def iter_runs(text: str) -> Iterator[str]:
    """`text` cut into runs of whole top-level blocks, one at a time: `split_markdown`, lazily (a
    view shows the first runs of a long response before the rest is cut).
    """
    lines = text.split("\n")
    start = 0
    outside = ("", "", 0)
    states = {outside}
    blank_before = False
    list_open = False
    for i, line in enumerate(lines):
        blank = not line.strip(" \t")
        item = _indent(line) <= 3 and _LIST_ITEM.match(line.lstrip(" ")) is not None
        if (blank_before and not blank and line[0] not in " \t" and not (item and list_open)
                and all(kind != "top" for kind, _, _ in states)):
            yield "\n".join(lines[start:i])
            start = i
            states = {outside}
            list_open = False
        states = set().union(*(_fence_states(state, line) for state in states))
        list_open = list_open or item
        blank_before = blank
    yield "\n".join(lines[start:])


def split_markdown(text: str) -> list[str]:
    """`text` cut into runs of whole top-level blocks; `"\\n".join(runs) == text`.

    A cut goes before a line that follows a blank line and starts in column 0, unless a top-level
    fenced code block may be open there, or the line starts a list item and a list may be open
    (any line since the last cut started a list item): CommonMark must then start a new top-level
    block, so parsing each run alone gives the blocks of parsing the whole text. (Link reference
    definitions reach across runs: see `render.SafeMarkdown`.) Where unsure it does not cut, which
    is always safe.

    >>> split_markdown("a\\n\\n- b\\n\\n- c\\n\\nd\\n\\n1. e")
    ['a\\n', '- b\\n\\n- c\\n', 'd\\n', '1. e']
    """
    return list(iter_runs(text))
