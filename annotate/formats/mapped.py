"""Items from CSV, JSON or JSON Lines of any shape, through field mappings.

Real data never arrives in our shape, so the lead says which source field fills which part of an
item: `--map prompt=instruction,input --map A=response1 --map B=response2`. A comma joins several
source fields into one text, with a blank line between them (empty ones are skipped). Targets:

    id, prompt, A, B, model_A, model_B, category, gold, meta.KEY
    (ranking sessions also C, D, E, F and model_C .. model_F, as many as the session's k)

Without an `id` mapping the id is the first 12 hex digits of a SHA-256 over prompt, A and B (and the
further responses of a ranking item), so
importing the same rows again finds the same ids. Only `meta.*` mappings reach an item's metadata:
other columns are left out on purpose, because they might name the models.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from annotate.design import RANK_SLOTS
from annotate.formats.errors import FormatError, describe, did_you_mean
from annotate.formats.fields import check_id, check_text, optional_str
from annotate.formats.native import check_gold, item_kind_for, kind_of
from annotate.formats.reading import Record, Table
from annotate.formats.streaming import Source
from annotate.model import Item, Message, Response
from annotate.spec import LabelSchema

ITEM_TARGETS = ("id", "prompt", "A", "B", "model_A", "model_B", "category", "gold")
RANK_TARGETS = tuple(RANK_SLOTS[2:]) + tuple(f"model_{s}" for s in RANK_SLOTS[2:])
"""The further targets of ranking items: C .. F and their models."""
ALL_ITEM_TARGETS = ITEM_TARGETS + RANK_TARGETS
_ALIASES = {s.lower(): s for s in RANK_SLOTS} | {f"model_{s.lower()}": f"model_{s}" for s in RANK_SLOTS}
_JOINABLE = {"id", "prompt", *RANK_SLOTS}
"""Targets that take several source fields: texts (joined by a blank line) and id (joined by -)."""
FieldMap = Mapping[str, tuple[str, ...]]
"""Target -> the source fields that fill it, in order."""


class OptionError(ValueError):
    """A command-line option that cannot be understood; the message names it."""


def parse_field_map(
    options: Sequence[str], targets: Sequence[str], *, option: str = "--map", allow_meta: bool = False,
    joinable: Sequence[str] = (),
) -> dict[str, tuple[str, ...]]:
    """Parse `TARGET=SRC[,SRC...]` options into {target: (src, ...)}; errors name the option."""
    mapping: dict[str, tuple[str, ...]] = {}
    for text in options:
        target, sep, sources = text.partition("=")
        target = target.strip()
        target = _ALIASES.get(target, target) if "A" in targets else target
        if not sep or not target:
            raise OptionError(f"{option} {text!r}: expected TARGET=COLUMN (several columns: TARGET=COL1,COL2)")
        if not (target in targets or (allow_meta and target.startswith("meta.") and len(target) > 5)):
            also = ", meta.KEY" if allow_meta else ""
            raise OptionError(
                f"{option} {text!r}: unknown target {target!r}{did_you_mean(target, targets)};"
                f" targets are {', '.join(targets)}{also}"
            )
        columns = tuple(c.strip() for c in sources.split(","))
        if not all(columns):
            raise OptionError(f"{option} {text!r}: expected column names after '=', separated by commas")
        if len(columns) > 1 and target not in joinable:
            raise OptionError(f"{option} {text!r}: {target} takes one column")
        if target in mapping:
            raise OptionError(f"{option}: {target} is mapped twice")
        mapping[target] = columns
    return mapping


def default_item_map(table: Table | Source) -> dict[str, tuple[str, ...]]:
    """With no --map, a CSV file's columns named like the targets (prompt, A, B, ...) are used."""
    return {target: (target,) for target in ALL_ITEM_TARGETS if target in table.columns}


def check_columns(table: Table | Source, wanted: Mapping[str, str]) -> None:
    """Every wanted source field exists in the file; else an error naming it, why it was wanted
    (wanted: column -> reason, e.g. "--map B=resp2") and listing what the file has."""
    if table.has_columns(set(wanted)):
        return
    columns = table.columns
    for column, reason in wanted.items():
        if column not in columns:
            available = ", ".join(describe(c) for c in columns) or "none"
            noun = "column" if table.is_csv else "field"
            raise FormatError(
                table.file, f"a {noun} of the file ({reason})", field=column, field_kind=noun,
                found=f"no such {noun}{did_you_mean(column, columns)}; the file has: {available}",
            )


def map_reasons(mapping: FieldMap, option: str = "--map") -> dict[str, str]:
    """column -> the option that asked for it, for check_columns."""
    return {column: f"{option} {target}={','.join(columns)}" for target, columns in mapping.items()
            for column in columns}


def check_mapping(
    table: Table | Source, mapping: FieldMap, schema: LabelSchema, *, defaulted: bool = False,
) -> FieldMap:
    """The mapping to make the session's items with; refused when it cannot make them from this file
    (a required target not mapped, B in a single-response session, a mapped field the file does not have).

    defaulted: the mapping is default_item_map's (the user gave no --map), for a better error.
    """
    slots = schema.slots
    required = ["prompt", *slots]
    extra = [t for t in mapping if t.removeprefix("model_") in RANK_SLOTS and t.removeprefix("model_") not in slots]
    if defaulted:  # columns that happen to be named like a ranking's further slots (C .. F) are not mapped
        mapping = {t: c for t, c in mapping.items() if t not in extra or t.removeprefix("model_") in ("A", "B")}
        extra = [t for t in extra if t in mapping]
    missing = [target for target in required if target not in mapping]
    if missing:
        columns = ", ".join(describe(c) for c in table.columns) or "none"
        if defaulted:
            example = " ".join(f"--map {t}=COLUMN" for t in required)
            raise FormatError(
                table.file, f"columns named {', '.join(required)}, or --map options naming yours ({example})",
                found=f"the columns {columns}",
            )
        raise FormatError(
            table.file, f"a mapping for {missing[0]}, e.g. --map {missing[0]}=COLUMN",
            found=f"none; the file has: {columns}",
        )
    if extra:
        first = extra[0].removeprefix("model_")
        if item_kind_for(schema) == "ranking":
            raise OptionError(f"--map {first}=...: the session ranks k = {schema.n_responses} responses "
                              f"({', '.join(slots)}); set k in its [labels] to rank more")
        if len(slots) == 1:
            raise OptionError(f"--map {first}=...: the session is {schema.kind}, its items have one response (A only)")
        raise OptionError(f"--map {first}=...: the session is {schema.kind}, its items have two responses (A and B);"
                          " more are for kind = \"ranking\"")
    check_columns(table, map_reasons(mapping))
    return mapping


def mapped_item(record: Record, mapping: FieldMap, schema: LabelSchema, kind: str) -> Item:
    """One record into an item through the mapping (kind: `column` for CSV, `field` for JSON)."""
    return _item(record, mapping, schema, kind)


def repeated_row(record: Record, mapping: FieldMap, kind: str, item_id: str, first: str, same: bool) -> str:
    """A record whose id an earlier one (at `first`) already gave: refused when ids are mapped or
    the content differs; a row repeated exactly is imported once, with the warning returned."""
    if "id" in mapping:
        raise record.error("an id used once in the file", ",".join(mapping["id"]), field_kind=kind,
                           found=f"{describe(item_id)} again (first on {first})")
    if not same:
        raise record.error(
            "different prompt and responses from every earlier row, or an id column (--map id=COLUMN)",
            found=f"the same prompt and responses as {first} with other fields",
        )
    return f"{record.file}: {record.where} repeats {first}; imported once"


def _item(record: Record, mapping: FieldMap, schema: LabelSchema, kind: str) -> Item:
    def text(target: str) -> str:
        """The target's text; a response (A, B) may be empty: a model that returned nothing."""
        columns = mapping[target]
        value = "\n\n".join(v for v in (_cell(record, c, kind) for c in columns) if v.strip())
        return check_text(record, ",".join(columns), value, field_kind=kind, allow_blank=target != "prompt",
                          what=f"a non-empty text for {target}")

    def short(target: str) -> str | None:
        if target not in mapping:
            return None
        column = mapping[target][0]
        return optional_str(record, column, record.data.get(column), field_kind=kind)

    prompt = text("prompt")
    texts = {slot: text(slot) for slot in RANK_SLOTS if slot in mapping}
    if "id" in mapping:
        columns = mapping["id"]
        if len(columns) == 1:
            item_id = check_id(record, columns[0], record.data.get(columns[0]), field_kind=kind)
        else:
            parts = [check_id(record, c, record.data.get(c), field_kind=kind) for c in columns]
            item_id = "-".join(parts)
    else:
        parts = [prompt, texts["A"], texts.get("B", ""), *(texts[s] for s in RANK_SLOTS[2:] if s in texts)]
        digest = hashlib.sha256("\x1f".join(parts).encode("utf-8"))
        item_id = digest.hexdigest()[:12]
    responses = tuple(Response(slot, body, short(f"model_{slot}")) for slot, body in texts.items())
    gold = None
    if "gold" in mapping:
        column = mapping["gold"][0]
        gold = check_gold(record, column, record.data.get(column), schema, field_kind=kind)
    metadata = {
        target[len("meta."):]: record.data.get(columns[0])
        for target, columns in mapping.items() if target.startswith("meta.")
    }
    return Item(
        id=item_id, kind=kind_of(responses),
        conversation=(Message("user", prompt),), responses=responses,
        category=short("category"), gold=gold, metadata=metadata,
    )


def _cell(record: Record, column: str, kind: str) -> str:
    """A source value as text: strings as is, numbers written out, missing / null as empty."""
    value: Any = record.data.get(column)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise record.error("a string", column, got=value, field_kind=kind)
