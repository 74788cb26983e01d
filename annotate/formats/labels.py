"""Ratings made elsewhere (a spreadsheet of expert votes, crowd labels, an LLM judge's verdicts)
as external labels on the session's items.

Two layouts:
- long: one row per vote, columns item, rater, label (rename with --map item=COL, rater=COL,
  label=COL);
- wide: one row per item, one column per rater (--raters c1,c2; default every column but the item
  column); an empty cell is a missing vote and is skipped.

Foreign codes become our labels through a label map (`0=tie,1=A,2=B`); after mapping a label must
be valid for the session (pairwise: A, B, tie, both_bad; single: a grade of the scale). Rubric
sessions are not supported here: their labels are per criterion.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from annotate.formats.errors import describe, did_you_mean
from annotate.formats.fields import check_id
from annotate.formats.mapped import OptionError, check_columns, parse_field_map
from annotate.formats.reading import CONTAINERS, Record, Table, empty_warning, read_table
from annotate.model import COHORTS, ExternalLabel
from annotate.spec import LabelSchema

LABEL_TARGETS = ("item", "rater", "label")
LAYOUTS = ("long", "wide")
_INTEGRAL = re.compile(r"^[+-]?\d+\.0*$")


def parse_label_map(options: Sequence[str], schema: LabelSchema) -> dict[str, str]:
    """`0=tie,1=A,2=B` (one option or several) into {code: label}; every label must be valid."""
    mapping: dict[str, str] = {}
    for option in options:
        for entry in option.split(","):
            code, sep, label = entry.partition("=")
            code, label = code.strip(), label.strip()
            if not sep or not code or not label:
                raise OptionError(f"--label-map {option!r}: expected CODE=LABEL pairs, e.g. 0=tie,1=A,2=B")
            if label not in schema.labels:
                raise OptionError(
                    f"--label-map {option!r}: {label!r} is not a label of this {schema.kind} session;"
                    f" labels are {', '.join(schema.labels)}{did_you_mean(label, schema.labels)}"
                )
            if code in mapping and mapping[code] != label:
                raise OptionError(f"--label-map: code {code!r} is mapped twice")
            mapping[code] = label
    return mapping


def parse_labels(
    table: Table,
    schema: LabelSchema,
    *,
    cohort: str,
    source: str,
    known_items: Collection[str],
    layout: str = "long",
    raters: Sequence[str] | None = None,
    field_map: Sequence[str] = (),
    label_map: Mapping[str, str] | None = None,
) -> list[tuple[ExternalLabel, Record]]:
    """Every vote in the file as an ExternalLabel with the record it came from."""
    mapping = check_label_options(schema, cohort, layout, raters, field_map)
    columns = {target: mapping.get(target, (target,))[0] for target in LABEL_TARGETS}
    kind = "column" if table.is_csv else "field"
    label_map = dict(label_map or {})
    votes: list[tuple[ExternalLabel, Record]] = []
    if layout == "long":
        check_columns(table, {column: _reason(target, column, mapping) for target, column in columns.items()})
        for record in table.records:
            cell = _cell(record, columns["label"], kind)
            if cell is None:
                continue
            item = _item(record, columns["item"], kind, known_items)
            rater = check_id(record, columns["rater"], record.data.get(columns["rater"]), field_kind=kind,
                             what="rater name")
            label = _label(record, columns["label"], cell, schema, label_map, kind)
            votes.append((ExternalLabel(source, rater, cohort, item, label, cell), record))
        return votes
    item_column = columns["item"]
    rater_columns = list(raters) if raters else [c for c in table.columns if c != item_column]
    check_columns(table, {
        item_column: _reason("item", item_column, mapping), **{c: "a rater column of --raters" for c in rater_columns},
    })
    if not rater_columns:
        raise OptionError(f"{table.file}: no rater columns besides {item_column!r}")
    for record in table.records:
        item: str | None = None
        for column in rater_columns:
            cell = _cell(record, column, kind)
            if cell is None:
                continue
            item = item or _item(record, item_column, kind, known_items)
            rater = check_id(record, column, column, field_kind=kind, what="rater name (the column name)")
            label = _label(record, column, cell, schema, label_map, kind)
            votes.append((ExternalLabel(source, rater, cohort, item, label, cell), record))
    return votes


def read_votes(
    path: Path,
    schema: LabelSchema,
    *,
    cohort: str,
    source: str,
    known_items: Collection[str],
    layout: str = "long",
    raters: Sequence[str] | None = None,
    field_map: Sequence[str] = (),
    label_map: Sequence[str] = (),
    format: str | None = None,
) -> tuple[Table, list[tuple[ExternalLabel, Record]], str | None]:
    """Check the options, read a ratings file and parse its votes (labels import, suggestions).

    Options are checked before the file is read. Returns the table, the votes, and a warning when
    the file holds no records (then there are no votes).
    """
    if format is not None and format not in CONTAINERS:
        raise OptionError(f"--format {format!r}: expected one of {', '.join(CONTAINERS)}")
    codes = parse_label_map(label_map, schema)
    check_label_options(schema, cohort, layout, raters, field_map)
    table = read_table(path, format)
    empty = empty_warning(table)
    if empty:
        return table, [], empty
    votes = parse_labels(
        table, schema, cohort=cohort, source=source, known_items=known_items, layout=layout,
        raters=raters, field_map=field_map, label_map=codes,
    )
    return table, votes, None


def check_label_options(
    schema: LabelSchema, cohort: str, layout: str, raters: Sequence[str] | None, field_map: Sequence[str],
) -> dict[str, tuple[str, ...]]:
    """The options of a labels import checked without the file (OptionError naming the option);
    returns the parsed --map."""
    if schema.kind not in ("pairwise", "single"):
        raise OptionError("labels import supports pairwise and single sessions (rubric labels are per criterion)")
    if cohort not in COHORTS:
        raise OptionError(f"--cohort {cohort!r}: expected one of {', '.join(COHORTS)}")
    if layout not in LAYOUTS:
        raise OptionError(f"--layout {layout!r}: expected long or wide")
    mapping = parse_field_map(field_map, LABEL_TARGETS)
    if layout == "long" and raters:
        raise OptionError("--raters is for --layout wide; in long layout the rater is a column")
    if layout == "wide" and set(mapping) - {"item"}:
        raise OptionError("--layout wide takes --map item=COLUMN only; name the rater columns with --raters")
    return mapping


def _reason(target: str, column: str, mapping: Mapping[str, Any]) -> str:
    """Why a column is wanted, for the error when it is missing."""
    return f"--map {target}={column}" if target in mapping else f"the {target}; name yours with --map {target}=COL"


def _cell(record: Record, column: str, kind: str) -> str | None:
    """A vote cell as text, or None when empty (a missing vote)."""
    value: Any = record.data.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise record.error("a label (a string or a number)", column, got=value, field_kind=kind)
    return value.strip() if isinstance(value, str) else str(value)


def _item(record: Record, column: str, kind: str, known_items: Collection[str]) -> str:
    item = check_id(record, column, record.data.get(column), field_kind=kind, what="item id")
    if item not in known_items:
        raise record.error(
            f"the id of an item in the session (import the items first){did_you_mean(item, known_items)}",
            column, got=item, field_kind=kind,
        )
    return item


def _label(record: Record, column: str, cell: str, schema: LabelSchema, label_map: Mapping[str, str],
           kind: str) -> str:
    if cell in label_map:
        return label_map[cell]
    if cell in schema.labels:
        return cell
    if schema.kind == "single" and _INTEGRAL.match(cell) and str(int(float(cell))) in schema.labels:
        return str(int(float(cell)))
    codes = f" or a code of --label-map ({', '.join(describe(c) for c in label_map)})" if label_map else ""
    hint = "" if label_map else " (map foreign codes with --label-map, e.g. 0=tie,1=A,2=B)"
    raise record.error(f"a label among {', '.join(schema.labels)}{codes}{hint}", column, got=cell, field_kind=kind)
