"""Ratings made elsewhere (a spreadsheet of expert votes, crowd labels, an LLM judge's verdicts)
as external labels on the session's items.

Two layouts:
- long: one row per vote, columns item, rater, label (rename with --map item=COL, rater=COL,
  label=COL);
- wide: one row per item, one column per rater (--raters c1,c2; default every column but the item
  column); an empty cell is a missing vote and is skipped.

Foreign codes become our labels through a label map (`0=tie,1=A,2=B`); after mapping a label must
be valid for the session's primary question (pairwise: A, B, tie, both_bad, or on a graded scale a
strength such as `+2`, `2` or `-1`; single: a grade of the scale), or `invalid` (`--label-map
garbage=invalid`: the rater gave no usable answer; stored and counted, never a vote). A label that is
neither is an error naming the line, unless `--skip-unmapped` leaves it out (and counts it). Rubric
sessions are not supported here: their labels are per criterion; in aspect sessions a vote is the
primary aspect's.

Display order: `--shown-first A|B` says every rater saw that slot first; `--shown-first-column COL`
reads it per row (A or B, any case, or codes through `--shown-first-map 0=A,1=B`; an empty cell is
unknown). It is stored with each vote for the report's position bias.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotate.formats.errors import describe, did_you_mean
from annotate.formats.fields import check_id
from annotate.formats.mapped import OptionError, check_columns, parse_field_map
from annotate.formats.reading import CONTAINERS, Record, Table, empty_warning, read_table
from annotate.model import COHORTS, INVALID_LABEL, SLOTS, ExternalLabel
from annotate.spec import LabelSchema

LABEL_TARGETS = ("item", "rater", "label")
LAYOUTS = ("long", "wide")


@dataclass(frozen=True)
class ShownFirst:
    """Which slot each rater saw first: one for the whole file, or a column (codes mapped), or neither."""

    slot: str | None = None
    """`A` or `B` for every vote (--shown-first)."""
    column: str | None = None
    """The column that says it per row (--shown-first-column)."""
    codes: Mapping[str, str] | None = None
    """Codes of that column -> slot (--shown-first-map); A and B (any case) are always understood."""


@dataclass(frozen=True)
class VoteFile:
    """A ratings file read and parsed: its table, its votes, and what was left out."""

    table: Table
    votes: list[tuple[ExternalLabel, Record]]
    empty: str | None
    """A warning when the file holds no records (then there are no votes)."""
    skipped: tuple[tuple[str, str], ...] = ()
    """(where, cell) of each label outside the map that --skip-unmapped left out."""


def parse_label_map(options: Sequence[str], schema: LabelSchema, option: str = "--label-map") -> dict[str, str]:
    """`0=tie,1=A,2=B` (one option or several) into {code: label}; every label must be valid or `invalid`."""
    mapping: dict[str, str] = {}
    for text in options:
        for entry in text.split(","):
            code, sep, label = entry.partition("=")
            code, label = code.strip(), label.strip()
            if not sep or not code or not label:
                raise OptionError(f"{option} {text!r}: expected CODE=LABEL pairs, e.g. 0=tie,1=A,2=B")
            valid = label in schema.labels or (schema.primary is not None and schema.primary.parse(label) is not None)
            if not valid and label != INVALID_LABEL:
                listed = schema.ranked is None
                expected = f"labels are {', '.join(schema.labels)}" if listed else f"a label is {schema.expected_label}"
                hint = did_you_mean(label, (*schema.labels, INVALID_LABEL)) if listed else ""
                raise OptionError(
                    f"{option} {text!r}: {label!r} is not a label of this {schema.kind} session;"
                    f" {expected}, or {INVALID_LABEL} (no usable answer: stored, never a vote){hint}"
                )
            if code in mapping and mapping[code] != label:
                raise OptionError(f"{option}: code {code!r} is mapped twice")
            mapping[code] = label
    return mapping


def parse_shown_first(
    schema: LabelSchema, slot: str | None, column: str | None, codes: Sequence[str] = (),
) -> ShownFirst:
    """Check --shown-first, --shown-first-column and --shown-first-map (OptionError naming the option)."""
    if slot is None and column is None and not codes:
        return ShownFirst()
    if schema.kind != "pairwise":
        raise OptionError(f"--shown-first is for pairwise sessions (the session is {schema.kind})")
    if slot is not None and column is not None:
        raise OptionError("give --shown-first (one slot for every vote) or --shown-first-column, not both")
    if codes and column is None:
        raise OptionError("--shown-first-map needs --shown-first-column (the column whose codes it maps)")
    if slot is not None:
        if slot.strip().upper() not in SLOTS:
            raise OptionError(f"--shown-first {slot!r}: expected A or B (the slot the raters saw first)")
        return ShownFirst(slot=slot.strip().upper())
    mapping: dict[str, str] = {}
    for text in codes:
        for entry in text.split(","):
            code, sep, target = entry.partition("=")
            code, target = code.strip(), target.strip().upper()
            if not sep or not code or target not in SLOTS:
                raise OptionError(f"--shown-first-map {text!r}: expected CODE=A or CODE=B pairs, e.g. 0=A,1=B")
            if mapping.get(code, target) != target:
                raise OptionError(f"--shown-first-map: code {code!r} is mapped twice")
            mapping[code] = target
    return ShownFirst(column=column, codes=mapping)


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
    skip_unmapped: bool = False,
    shown_first: ShownFirst | None = None,
) -> tuple[list[tuple[ExternalLabel, Record]], list[tuple[str, str]]]:
    """Every vote in the file as an ExternalLabel with the record it came from, and the (where,
    cell) of the labels --skip-unmapped left out."""
    mapping = check_label_options(schema, cohort, layout, raters, field_map)
    columns = {target: mapping.get(target, (target,))[0] for target in LABEL_TARGETS}
    kind = "column" if table.is_csv else "field"
    label_map = dict(label_map or {})
    order = shown_first or ShownFirst()
    votes: list[tuple[ExternalLabel, Record]] = []
    skipped: list[tuple[str, str]] = []
    wanted = {} if order.column is None else {order.column: f"--shown-first-column {order.column}"}

    def vote(record: Record, item: str, rater: str, column: str, cell: str, first: str | None) -> None:
        label = _label(record, column, cell, schema, label_map, kind, skip_unmapped)
        if label is None:
            skipped.append((record.where, cell))
        else:
            votes.append((ExternalLabel(source, rater, cohort, item, label, cell, first), record))

    if layout == "long":
        check_columns(table, {
            **{column: _reason(target, column, mapping) for target, column in columns.items()}, **wanted,
        })
        for record in table.records:
            cell = _cell(record, columns["label"], kind)
            if cell is None:
                continue
            item = _item(record, columns["item"], kind, known_items)
            rater = check_id(record, columns["rater"], record.data.get(columns["rater"]), field_kind=kind,
                             what="rater name")
            vote(record, item, rater, columns["label"], cell, _shown_first(record, order, kind))
        return votes, skipped
    item_column = columns["item"]
    rater_columns = list(raters) if raters else [c for c in table.columns if c not in (item_column, order.column)]
    check_columns(table, {
        item_column: _reason("item", item_column, mapping), **{c: "a rater column of --raters" for c in rater_columns},
        **wanted,
    })
    if not rater_columns:
        raise OptionError(f"{table.file}: no rater columns besides {item_column!r}")
    if order.column is not None and order.column in rater_columns:
        raise OptionError(f"--shown-first-column {order.column}: it is also a rater column of --raters")
    for record in table.records:
        item: str | None = None
        for column in rater_columns:
            cell = _cell(record, column, kind)
            if cell is None:
                continue
            item = item or _item(record, item_column, kind, known_items)
            rater = check_id(record, column, column, field_kind=kind, what="rater name (the column name)")
            vote(record, item, rater, column, cell, _shown_first(record, order, kind))
    return votes, skipped


def _shown_first(record: Record, order: ShownFirst, kind: str) -> str | None:
    """The slot this row's rater saw first, or None when unknown."""
    if order.column is None:
        return order.slot
    cell = _cell(record, order.column, kind)
    if cell is None:
        return None
    codes = order.codes or {}
    if cell in codes:
        return codes[cell]
    if cell.upper() in SLOTS:
        return cell.upper()
    known = f" or a code of --shown-first-map ({', '.join(describe(c) for c in codes)})" if codes else ""
    hint = "" if codes else " (map other codes with --shown-first-map, e.g. 0=A,1=B)"
    raise record.error(f"A or B, the slot shown first{known}{hint}", order.column, got=cell, field_kind=kind)


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
    skip_unmapped: bool = False,
    shown_first: ShownFirst | None = None,
) -> VoteFile:
    """Check the options, read a ratings file and parse its votes (labels import, suggestions).

    Options are checked before the file is read.
    """
    if format is not None and format not in CONTAINERS:
        raise OptionError(f"--format {format!r}: expected one of {', '.join(CONTAINERS)}")
    codes = parse_label_map(label_map, schema)
    check_label_options(schema, cohort, layout, raters, field_map)
    table = read_table(path, format)
    empty = empty_warning(table)
    if empty:
        return VoteFile(table, [], empty)
    votes, skipped = parse_labels(
        table, schema, cohort=cohort, source=source, known_items=known_items, layout=layout,
        raters=raters, field_map=field_map, label_map=codes, skip_unmapped=skip_unmapped, shown_first=shown_first,
    )
    return VoteFile(table, votes, None, tuple(skipped))


def check_label_options(
    schema: LabelSchema, cohort: str, layout: str, raters: Sequence[str] | None, field_map: Sequence[str],
) -> dict[str, tuple[str, ...]]:
    """The options of a labels import checked without the file (OptionError naming the option);
    returns the parsed --map."""
    if schema.kind not in ("pairwise", "single", "ranking"):
        raise OptionError("labels import supports pairwise, single and ranking sessions (rubric labels are per"
                          " criterion)")
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
           kind: str, skip_unmapped: bool = False) -> str | None:
    """The session label of a cell (or `invalid`, through the map); None when --skip-unmapped skips it."""
    if cell in label_map:
        mapped = label_map[cell]
        return schema.primary.parse(mapped) or mapped if schema.primary is not None else mapped
    if schema.ranked is None and cell in schema.labels:
        return cell
    parsed = schema.primary.parse(cell) if schema.primary is not None else None
    if parsed is not None:  # `7.0` for a grade, `2` or `+2` for a graded strength
        return parsed
    if skip_unmapped:
        return None
    codes = f" or a code of --label-map ({', '.join(describe(c) for c in label_map)})" if label_map else ""
    hint = "" if label_map else " (map foreign codes with --label-map, e.g. 0=tie,1=A,2=B)"
    expected = f"a label among {', '.join(schema.labels)}"
    if schema.ranked is not None:
        expected, hint = schema.expected_label, "" if label_map else " (map foreign codes with --label-map)"
    raise record.error(
        f"{expected}{codes}{hint}; or map it to {INVALID_LABEL}"
        f" (--label-map CODE={INVALID_LABEL}) or leave such labels out with --skip-unmapped",
        column, got=cell, field_kind=kind,
    )
