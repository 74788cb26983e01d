"""The spec's [labels] table into a LabelSchema, every key checked.

```toml
# pairwise, four outcomes: no [labels] at all (or outcomes = ["A", "B", "tie"] for a subset)

[labels]                      # pairwise, graded
scale = "graded-5"            # outcomes | graded-5 | graded-7
both_bad = true               # graded: also offer "both bad", apart from the scale

[[labels.aspects]]            # pairwise, several questions on one pair (one row each)
name = "correctness"
scale = "outcomes"            # as above; outcomes = [...] and both_bad as above
description = "Which answer is factually right?"

[labels]                      # single
scale = [1, 10]

[[labels.criteria]]           # rubric
name = "helpfulness"
scale = [0, 4]
description = "..."

[labels]                      # ranking
k = 4                         # responses ranked per item, 3 to 6
ties = true                   # may two responses share a place (default true)

[labels.spans]                # any kind but ranking: annotators may mark error spans (annotate.design.spans)
categories = ["factual", "reasoning"]
```

A bad table raises `LabelsError(key, expected)`; `annotate.spec` adds the file.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from annotate.design.questions import GRADED_POINTS, PREFERENCES, Grade, Graded, Outcomes, Question
from annotate.design.ranking import MAX_K, MIN_K, Ranking
from annotate.design.schema import RUBRIC_CRITERIA, LabelSchema
from annotate.design.spans import SpanSpecError, parse_spans

PAIRWISE_SCALES = ("outcomes", *(f"graded-{n}" for n in GRADED_POINTS))
"""The names a pairwise `scale` may take."""
MAX_ASPECTS = 8
"""Aspects fit one screen as one row each (at 80x24 too)."""
NAME = re.compile(r"[a-z][a-z0-9_]{0,31}\Z")

_PAIRWISE_KEYS = {"scale", "both_bad", "outcomes", "aspects", "spans"}
_ASPECT_KEYS = {"name", "scale", "both_bad", "outcomes", "description"}
_SINGLE_KEYS = {"scale", "spans"}
_RUBRIC_KEYS = {"criteria", "spans"}
_CRITERION_KEYS = {"name", "scale", "description"}
_RANKING_KEYS = {"k", "ties", "description"}
_NOT_RANKING = {"k": "k is the number of responses of a ranking session (kind = \"ranking\")",
                "ties": "ties are for ranking sessions (kind = \"ranking\")"}


class LabelsError(ValueError):
    """A [labels] table that cannot be used: `key` is the dotted key, `expected` what it must be."""

    def __init__(self, key: str, expected: str) -> None:
        self.key = key
        self.expected = expected
        super().__init__(f"[{key}] {expected}")


def parse_labels(kind: str, table: Mapping[str, Any]) -> LabelSchema:
    """The schema of a session of `kind` whose [labels] table is `table` ({} when absent)."""
    schema = _answers(kind, {k: v for k, v in table.items() if k != "spans"})
    if "spans" not in table:
        return schema
    if kind == "ranking":
        raise LabelsError("labels.spans", "error spans are not available in ranking sessions (kind = \"ranking\"); "
                                          "mark errors in a pairwise, single or rubric session")
    try:
        return replace(schema, spans=parse_spans("labels.spans", table["spans"]))
    except SpanSpecError as exc:
        raise LabelsError(exc.key, exc.expected) from None


def _answers(kind: str, table: Mapping[str, Any]) -> LabelSchema:
    if kind == "pairwise":
        return _pairwise(table)
    if kind == "ranking":
        return _ranking(table)
    if kind == "single":
        _check_keys("labels", table, _SINGLE_KEYS, {"criteria": "no criteria for single (use kind = rubric)",
                                                    "aspects": "aspects are for pairwise sessions", **_NOT_RANKING})
        low, high = _int_scale("labels.scale", table.get("scale", [1, 10]))
        return LabelSchema.single(low, high)
    _check_keys("labels", table, _RUBRIC_KEYS, {"aspects": "aspects are for pairwise sessions (a rubric has criteria)",
                                                **_NOT_RANKING})
    raw = table.get("criteria")
    if raw is None:
        return LabelSchema.rubric(tuple(Grade(n, 0, 4) for n in RUBRIC_CRITERIA))
    if not isinstance(raw, list) or not raw:
        raise LabelsError("labels.criteria", "a non-empty array of tables [[labels.criteria]]")
    criteria = tuple(_criterion(i, c) for i, c in enumerate(raw))
    _distinct("labels.criteria", [c.name for c in criteria])
    return LabelSchema.rubric(criteria)


def _ranking(table: Mapping[str, Any]) -> LabelSchema:
    """`k` (required, MIN_K to MAX_K), `ties` (default true) and `description`."""
    _check_keys("labels", table, _RANKING_KEYS, {
        "scale": "a ranking has no scale: it puts the item's k responses in order (set k)",
        "aspects": "aspects are for pairwise sessions (a ranking session ranks k responses)",
        "criteria": "criteria are for rubric sessions (a ranking session ranks k responses)",
        "outcomes": "outcomes are for pairwise sessions (a ranking puts k responses in order)",
        "both_bad": "both_bad is for pairwise sessions (a ranking puts k responses in order)",
    })
    expected = f"an integer from {MIN_K} to {MAX_K}: how many responses each item has to rank"
    if "k" not in table:
        raise LabelsError("labels.k", f"{expected} (required for kind = \"ranking\")")
    k = table["k"]
    if isinstance(k, bool) or not isinstance(k, int) or not MIN_K <= k <= MAX_K:
        also = " (two responses are a pairwise session)" if k == 2 else ""
        raise LabelsError("labels.k", f"{expected}, not {k!r}{also}")
    ties = table.get("ties", True)
    if not isinstance(ties, bool):
        raise LabelsError("labels.ties", f"true or false, not {ties!r}")
    description = table.get("description", "")
    if not isinstance(description, str):
        raise LabelsError("labels.description", f"a string, not {description!r}")
    return LabelSchema.ranking(Ranking("ranking", k, ties, description))


def _pairwise(table: Mapping[str, Any]) -> LabelSchema:
    _check_keys("labels", table, _PAIRWISE_KEYS, {"criteria": "criteria are for rubric sessions (pairwise "
                                                              "sessions ask aspects: [[labels.aspects]])",
                                                  **_NOT_RANKING})
    if "aspects" not in table:
        return LabelSchema.pairwise(_question("labels", "preference", table))
    mixed = [k for k in ("scale", "both_bad", "outcomes") if k in table]
    if mixed:
        raise LabelsError(f"labels.{mixed[0]}", "set per aspect ([[labels.aspects]]), not beside aspects")
    raw = table["aspects"]
    if not isinstance(raw, list) or not raw:
        raise LabelsError("labels.aspects", "a non-empty array of tables [[labels.aspects]], one per aspect")
    if len(raw) > MAX_ASPECTS:
        raise LabelsError("labels.aspects", f"at most {MAX_ASPECTS} aspects (one row each on one screen), "
                                            f"not {len(raw)}")
    questions = []
    for index, entry in enumerate(raw):
        key = f"labels.aspects[{index}]"
        if not isinstance(entry, dict):
            raise LabelsError(key, f"a table with name and scale, not {type(entry).__name__}")
        _check_keys(key, entry, _ASPECT_KEYS)
        name = _name(f"{key}.name", entry.get("name"))
        questions.append(_question(key, name, entry))
    _distinct("labels.aspects", [q.name for q in questions])
    return LabelSchema.with_aspects(tuple(questions))


def _question(key: str, name: str, table: Mapping[str, Any]) -> Question:
    """One pairwise question from `scale`, `outcomes`, `both_bad` and `description`."""
    scale = table.get("scale", "outcomes")
    if not isinstance(scale, str) or scale not in PAIRWISE_SCALES:
        hint = difflib.get_close_matches(str(scale), PAIRWISE_SCALES, n=1)
        also = f" (did you mean {hint[0]!r}?)" if hint else ""
        found = f"{scale!r}" if isinstance(scale, str) else f"{scale!r} (a list is the scale of single grades)"
        raise LabelsError(f"{key}.scale", f"one of {', '.join(PAIRWISE_SCALES)}, not {found}{also}")
    description = table.get("description", "")
    if not isinstance(description, str):
        raise LabelsError(f"{key}.description", f"a string, not {description!r}")
    if scale == "outcomes":
        if "both_bad" in table:
            raise LabelsError(f"{key}.both_bad", "only for graded scales (for outcomes, list them: "
                                                 "outcomes = [\"A\", \"B\", \"tie\", \"both_bad\"])")
        return Outcomes(name, _outcomes(f"{key}.outcomes", table.get("outcomes", list(PREFERENCES))), description)
    if "outcomes" in table:
        raise LabelsError(f"{key}.outcomes", f"only for scale = \"outcomes\" ({scale} has its own points; "
                                             "both_bad = true adds \"both bad\")")
    both_bad = table.get("both_bad", False)
    if not isinstance(both_bad, bool):
        raise LabelsError(f"{key}.both_bad", f"true or false, not {both_bad!r}")
    return Graded(name, int(scale.split("-")[1]), both_bad, description)


def _outcomes(key: str, value: Any) -> tuple[str, ...]:
    """A subset of A, B, tie, both_bad holding A and B, put in that order."""
    expected = f"a non-empty array of {', '.join(PREFERENCES)} that holds A and B"
    if not isinstance(value, list) or not value:
        raise LabelsError(key, f"{expected}; an aspect without outcomes cannot be answered")
    unknown = [v for v in value if v not in PREFERENCES]
    if unknown:
        raise LabelsError(key, f"{expected}, not {unknown[0]!r}")
    if len(set(value)) != len(value):
        raise LabelsError(key, f"{expected}, each once")
    if "A" not in value or "B" not in value:
        raise LabelsError(key, f"{expected} (a preference needs both sides)")
    return tuple(o for o in PREFERENCES if o in value)


def _criterion(index: int, raw: Any) -> Grade:
    key = f"labels.criteria[{index}]"
    if not isinstance(raw, dict):
        raise LabelsError(key, f"a table, not {type(raw).__name__}")
    _check_keys(key, raw, _CRITERION_KEYS)
    name = _name(f"{key}.name", raw.get("name"))
    low, high = _int_scale(f"{key}.scale", raw.get("scale", [0, 4]))
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise LabelsError(f"{key}.description", f"a string, not {description!r}")
    return Grade(name, low, high, description)


def _name(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise LabelsError(key, f"a string, not {'nothing' if value is None else repr(value)}")
    if not NAME.match(value):
        raise LabelsError(key, "lower-case letters, digits and '_'")
    return value


def _distinct(key: str, names: list[str]) -> None:
    if len(set(names)) != len(names):
        raise LabelsError(key, f"distinct names, got {names}")


def _int_scale(key: str, value: Any) -> tuple[int, int]:
    ok = (
        isinstance(value, list) and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        and value[0] < value[1] and value[1] - value[0] <= 20
    )
    if not ok:
        raise LabelsError(key, f"[low, high] integers with low < high (at most 21 points), not {value!r}")
    return (value[0], value[1])


def _check_keys(section: str, table: Mapping[str, Any], allowed: set[str], wrong: Mapping[str, str] | None = None,
                ) -> None:
    for key in table:
        if key in allowed:
            continue
        if wrong and key in wrong:
            raise LabelsError(f"{section}.{key}", wrong[key])
        hint = difflib.get_close_matches(key, sorted(allowed), n=1)
        also = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise LabelsError(f"{section}.{key}", f"no such key{also}; expected one of {', '.join(sorted(allowed))}")
