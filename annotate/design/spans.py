"""Error spans: what an annotator may mark in a response, in any study design.

A session turns span marking on with a `[labels.spans]` table in its spec (any kind: pairwise,
graded, aspects, single, rubric); it is an addition to the answer, not a design of its own. Each
span is a stretch of one response's original text (character offsets, `annotate.model.Span`) with a
category of the *error taxonomy* and a severity:

```toml
[labels.spans]                 # annotators may mark errors in the responses
categories = ["factual", "reasoning", "instruction", "unsafe"]   # optional: else the guideline's
severities = ["minor", "major"]  # optional; this is the default
```

Without `categories` the taxonomy is the guideline's, declared in its front matter:

```markdown
---
id: pairwise-errors
version: 1.0
errors: factual, reasoning, instruction, unsafe
severities: minor, major
---
```

Category and severity names are lower-case words (`instruction_not_followed`); on screen an `_`
reads as a space. The spec's list wins over the guideline's. `resolve_taxonomy` gives the taxonomy a
session uses, or a `LabelsError` naming the key (the spec's, or the guideline's front matter).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annotate.guidelines import Guideline

SPAN_KEYS = frozenset({"categories", "severities"})
SEVERITIES = ("minor", "major")
"""The default severities, least severe first."""
MAX_CATEGORIES = 9
"""One digit key per category in the span dialog."""
MAX_SEVERITIES = 4
MAX_NOTE = 1000
"""Characters of a span's note."""
_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}\Z")


class SpanSpecError(ValueError):
    """A taxonomy that cannot be used: `key` names where (a spec key, or a guideline's front matter)."""

    def __init__(self, key: str, expected: str) -> None:
        self.key = key
        self.expected = expected
        super().__init__(f"[{key}] {expected}")


def words(name: str) -> str:
    """A category or severity as it reads on screen: `instruction_not_followed` -> `instruction not followed`."""
    return name.replace("_", " ")


@dataclass(frozen=True)
class SpanSpec:
    """The spec's `[labels.spans]`: span marking is on; the taxonomy, where the spec gives one."""

    categories: tuple[str, ...] = ()
    """The spec's categories; empty: the guideline's (`resolve_taxonomy`)."""
    severities: tuple[str, ...] = ()
    """The spec's severities; empty: the guideline's, else `SEVERITIES`."""

    def identity(self) -> dict[str, Any]:
        """What the session file records (a change is refused once answers exist)."""
        return {"categories": list(self.categories) or "guideline", "severities": list(self.severities) or "default"}


@dataclass(frozen=True)
class Taxonomy:
    """The categories and severities a span may carry in a session."""

    categories: tuple[str, ...]
    severities: tuple[str, ...] = SEVERITIES
    source: str = "spec"
    """`spec` or the guideline's id: where the categories come from."""

    def check(self, category: str, severity: str) -> None:
        """ValueError unless `category` and `severity` are in the taxonomy."""
        if category not in self.categories:
            raise ValueError(f"span category {category!r}: expected one of {', '.join(self.categories)}")
        if severity not in self.severities:
            raise ValueError(f"span severity {severity!r}: expected one of {', '.join(self.severities)}")


def parse_spans(key: str, table: Any) -> SpanSpec:
    """The `[labels.spans]` table (`key` is its dotted name) as a SpanSpec."""
    if not isinstance(table, Mapping):
        raise SpanSpecError(key, f"a table ([labels.spans]), not {type(table).__name__}")
    for name in table:
        if name not in SPAN_KEYS:
            import difflib

            hint = difflib.get_close_matches(str(name), sorted(SPAN_KEYS), n=1)
            also = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise SpanSpecError(f"{key}.{name}", f"no such key{also}; expected one of {', '.join(sorted(SPAN_KEYS))}")
    categories = _names(f"{key}.categories", table.get("categories", []), MAX_CATEGORIES, allow_empty=True)
    severities = _names(f"{key}.severities", table.get("severities", []), MAX_SEVERITIES, allow_empty=True)
    return SpanSpec(categories, severities)


def _names(key: str, value: Any, most: int, allow_empty: bool = False) -> tuple[str, ...]:
    expected = f"an array of 1 to {most} distinct lower-case names (letters, digits, '_')"
    if not isinstance(value, list) or (not value and not allow_empty):
        raise SpanSpecError(key, f"{expected}, not {value!r}")
    if len(value) > most:
        raise SpanSpecError(key, f"{expected}: {len(value)} is too many (one digit key each)")
    for name in value:
        if not isinstance(name, str) or not _NAME.match(name):
            raise SpanSpecError(key, f"{expected}; {name!r} is not one")
    if len(set(value)) != len(value):
        raise SpanSpecError(key, f"{expected}; {value!r} repeats a name")
    return tuple(value)


def guideline_list(guideline: Guideline, field: str, most: int) -> tuple[str, ...]:
    """A comma-separated front matter field of `guideline` (`errors`, `severities`) as names."""
    raw = guideline.fields.get(field, "")
    names = [n.strip() for n in raw.split(",") if n.strip()] if raw else []
    try:
        return _names(field, names, most, allow_empty=True)
    except SpanSpecError as exc:
        raise SpanSpecError(f"{guideline.path}: front matter: {field}", exc.expected) from None


def resolve_taxonomy(spans: SpanSpec, guideline: Guideline | None) -> Taxonomy:
    """The taxonomy of a session: the spec's categories, else its guideline's `errors:` (module
    docstring); severities likewise, else minor and major. SpanSpecError naming the key when the
    session has no categories anywhere or the guideline's list is malformed."""
    from_guideline: tuple[str, ...] = ()
    severities: tuple[str, ...] = spans.severities
    if guideline is not None:
        from_guideline = guideline_list(guideline, "errors", MAX_CATEGORIES)
        if not severities:
            severities = guideline_list(guideline, "severities", MAX_SEVERITIES)
    categories = spans.categories or from_guideline
    if not categories:
        where = f"guideline {guideline.id!r} ({guideline.path})" if guideline is not None else "the guideline"
        raise SpanSpecError(
            "labels.spans.categories",
            f"the error categories annotators choose from; give them here (categories = [\"factual\", ...]) or in "
            f"the front matter of {where} (errors: factual, reasoning, ...), which has none",
        )
    source = "spec" if spans.categories else (guideline.id if guideline is not None else "guideline")
    return Taxonomy(categories, severities or SEVERITIES, source)


def check_spans(spans: Sequence[Any], texts: Mapping[str, str], taxonomy: Taxonomy | None = None) -> None:
    """ValueError naming the span unless every span lies inside its slot's text (0 <= start < end <=
    len) and, given a taxonomy, carries its category and severity; notes at most MAX_NOTE characters."""
    for number, span in enumerate(spans, start=1):
        if span.slot not in texts:
            raise ValueError(f"span {number}: slot {span.slot!r}: expected one of {', '.join(sorted(texts))}")
        length = len(texts[span.slot])
        ok = (isinstance(span.start, int) and isinstance(span.end, int) and not isinstance(span.start, bool)
              and 0 <= span.start < span.end <= length)
        if not ok:
            raise ValueError(f"span {number}: offsets {span.start!r}..{span.end!r} are not inside slot {span.slot}'s "
                             f"text (0..{length}, start before end)")
        if len(span.note) > MAX_NOTE:
            raise ValueError(f"span {number}: a note of at most {MAX_NOTE} characters, not {len(span.note)}")
        if taxonomy is not None:
            try:
                taxonomy.check(span.category, span.severity)
            except ValueError as exc:
                raise ValueError(f"span {number}: {exc}") from None
