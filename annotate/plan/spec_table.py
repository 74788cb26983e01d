"""Writing what was planned into the spec's [plan] table, every other line left as it was."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from annotate.plan.planner import Rates

_TABLE_HEADER = re.compile(r"^\s*\[\[?\s*[A-Za-z0-9_.\- ]+\s*\]\]?\s*(#.*)?$")
_PLAN_HEADER = re.compile(r"^\s*\[\s*plan\s*\]\s*(#.*)?$")
_KEY_LINE = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


def plan_table_values(annotators: Iterable[str], overlap: int, rates: Rates) -> dict[str, Any]:
    """The [plan] keys `annotate plan` writes into the spec."""
    return {
        "annotators": list(dict.fromkeys(annotators)), "overlap": overlap, "gold_rate": rates.gold,
        "attention_rate": rates.attention, "repeat_rate": rates.repeat,
    }


def rewrite_plan_table(text: str, values: Mapping[str, Any]) -> str:
    """The spec text with the [plan] table's keys set to `values`.

    Only the lines of those keys change (a trailing comment on such a line is kept); every other
    line, comments included, stays as it was. Keys missing from the table are added after its
    last line; a missing table is appended at the end.
    """
    lines = text.splitlines()
    rendered = {key: f"{key} = {_toml_value(value)}" for key, value in values.items()}
    header = next((i for i, line in enumerate(lines) if _PLAN_HEADER.match(line)), None)
    if header is None:
        tail = [""] if lines and lines[-1].strip() else []
        return "\n".join([*lines, *tail, "[plan]", *rendered.values()]) + "\n"
    out = lines[: header + 1]
    index = header + 1
    written: set[str] = set()
    last_content = len(out)
    while index < len(lines) and not _TABLE_HEADER.match(lines[index]):
        line = lines[index]
        match = _KEY_LINE.match(line)
        if match and match.group(1) in values:
            key = match.group(1)
            code, comment = _split_comment(line)
            depth = _depth(code)
            while depth > 0 and index + 1 < len(lines):
                index += 1
                code, comment = _split_comment(lines[index])
                depth += _depth(code)
            out.append(rendered[key] + (f"  {comment}" if comment else ""))
            written.add(key)
        else:
            out.append(line)
        if line.strip():
            last_content = len(out)
        index += 1
    missing = [rendered[key] for key in values if key not in written]
    out[last_content:last_content] = missing
    out += lines[index:]
    return "\n".join(out) + "\n"


def write_plan_to_spec(path: Path, values: Mapping[str, Any]) -> bool:
    """Rewrite the spec file's [plan] table (see `rewrite_plan_table`) atomically, after checking
    that the result parses and holds exactly `values`. Returns False, leaving the file untouched,
    when the table already holds those values (annotators compared as a set, as the plan does)."""
    import os
    import tomllib

    raw = path.read_text(encoding="utf-8")
    bom = "\ufeff" if raw.startswith("\ufeff") else ""  # kept as it was, like every other byte
    text = raw[len(bom):]
    if _table_holds(tomllib.loads(text).get("plan", {}), values):
        return False
    updated = rewrite_plan_table(text, values)
    table = tomllib.loads(updated).get("plan", {})
    if any(table.get(key) != value for key, value in values.items()):
        raise ValueError(f"{path}: could not update the [plan] table safely; edit it by hand to {dict(values)}")
    if updated == text:
        return False
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(bom + updated, encoding="utf-8")
    os.replace(tmp, path)
    return True


def _table_holds(table: Mapping[str, Any], values: Mapping[str, Any]) -> bool:
    """Whether a parsed [plan] table already says `values` (the annotators in any order)."""
    for key, value in values.items():
        found = table.get(key)
        if key == "annotators" and isinstance(found, list):
            if sorted(map(str, found)) != sorted(value) or len(set(found)) != len(found):
                return False
        elif isinstance(found, bool) or found != value:
            return False
    return True


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def _split_comment(line: str) -> tuple[str, str]:
    """A TOML line's code and its trailing comment ('#' outside strings)."""
    quote = None
    escaped = False
    for index, char in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:index], line[index:]
    return line, ""


def _depth(code: str) -> int:
    """Open minus closed brackets outside strings."""
    depth = 0
    quote = None
    for char in code:
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
    return depth
