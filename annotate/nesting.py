"""How deeply a parsed JSON or TOML document nests, and on which line of its text it nests too deep.

Python's JSON and TOML parsers recurse once per level of nesting and raise RecursionError (with a
traceback, not a message) somewhere near a thousand levels; data stored from a document just under
that limit can make a later `json.loads` or `json.dumps` fail the same way, from a deeper stack.
Readers therefore refuse anything nested more than MAX_DEPTH levels, far beyond real data, and name
the line where the nesting passes it. Both checks are iterative: they never recurse themselves.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DEPTH = 100
"""Deepest nesting of lists and objects (tables) accepted in an input file; the top level is 1."""

_JSON_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|[\[\]{}]|\n')
_TOML_TOKENS = re.compile(
    r'"""[\s\S]*?(?:"""|\Z)|\'\'\'[\s\S]*?(?:\'\'\'|\Z)|"(?:[^"\\\n]|\\.)*"?|\'[^\'\n]*\'?|#[^\n]*|[\[\]{}]|\n'
)


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when lists and dicts in `value` nest more than `limit` levels (a bare list is level 1)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def deep_line(text: str, limit: int = MAX_DEPTH, syntax: str = "json") -> int | None:
    """The 1-based line of `text` on which brackets and braces (outside strings and comments)
    first nest more than `limit` levels; None when they never do."""
    tokens = _TOML_TOKENS if syntax == "toml" else _JSON_TOKENS
    line, depth = 1, 0
    for match in tokens.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return line
        elif token in ("]", "}"):
            depth = max(0, depth - 1)
        line += token.count("\n")
    return None


def nesting_error(limit: int = MAX_DEPTH) -> str:
    """What a reader says about a document nested too deeply."""
    return f"lists and objects nested at most {limit} levels deep"
