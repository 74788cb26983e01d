"""Exporting a session's items, judgments or imported labels as CSV, JSON Lines or Parquet.

- items: one row per item. CSV and Parquet: id, kind, category, gold, prompt, conversation
  (JSON), A, model_A, history_A (JSON), B, model_B, history_B (JSON) (ranking sessions: also C,
  model_C, history_C, ... up to the session's k), metadata (JSON); the
  column names are the import targets, so the CSV imports back as is. JSON Lines: the native
  item format, so `export --what items --format jsonl` round-trips through `import`. Model names
  are included: this export is for leads.
- judgments: one row per current judgment (JUDGMENT_COLUMNS); `label` in slot space and
  `label_side` as it was seen on screen (left / right / tie / both_bad, via the assignment's
  swapped flag; for rankings the same ranking over display positions, `3>1=2>4`, via the
  assignment's `display_order`, the slots at positions 1, 2, ... as `CADB`). Judgments made
  under planted suggestions are left out unless asked for. The
  suggestion linked to the assignment: `suggestion_label` (slot space), `suggestion_model` and
  `suggestion_shown` (see `suggestion_shown`), so the suggestion analysis can be redone.
- labels: the external labels (LABEL_COLUMNS), in the long layout `labels import` reads.
- suggestions: every stored LLM suggestion (SUGGESTION_COLUMNS), planted ones flagged.
- flags: every flag annotators raised (FLAG_COLUMNS), open and cleared, with the item's reference.
- Judgments, items (CSV, Parquet), flags and spans carry `ref`, the item reference annotators see on screen
  (annotate.refs), so a lead can find the item an annotator quotes.
- preferences and answers: chosen / rejected pairs for training, and the answers per question of
  the label schema, long or wide (`annotate.formats.export_designs`); streamed row by row.
- spans: one row per error span (SPAN_COLUMNS): who, which item, the slot in slot space and the side
  it was shown on, the slot's model, the offsets into the original response text (`start`
  inclusive, `end` exclusive, Python str indices) and that `text`, category, severity and note;
  streamed row by row. Model names are included: this export is for leads.

In CSV, missing values are empty cells, booleans are `true`/`false`, and nested values are JSON
text; a field with a comma, quote, CR or LF is quoted, and a cell a spreadsheet would run as a
formula gets a leading `'` unless `raw_csv` (`csv_out`). In JSON Lines they are null, true/false
and nested JSON, with terminal-active characters as `\\u` escapes. Parquet needs pyarrow (the
`parquet` extra) and an output file; nested values are JSON text there too, and every column has a
declared type (booleans, whole numbers, text), also when it holds no value.

Every export streams: rows are read from the session a batch at a time and written as they come, so
its memory does not grow with the session.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from annotate.design import LabelSchema, order_of
from annotate.formats.csv_out import csv_row
from annotate.model import PAIRWISE_LABELS, Item, slot_to_side
from annotate.outputs import Protected, atomic_output
from annotate.safe_text import escape_json
from annotate.store import Store

WHATS = ("items", "judgments", "labels", "suggestions", "preferences", "answers", "flags", "spans")
EXPORT_FORMATS = ("csv", "jsonl", "parquet")
ITEM_COLUMNS = (
    "id", "ref", "kind", "category", "gold", "prompt", "conversation", "A", "model_A", "history_A", "B", "model_B",
    "history_B", "metadata", "adjudicated",
)
JUDGMENT_COLUMNS = (
    "uid", "annotator", "cohort", "item", "ref", "label", "label_side", "swapped", "display_order", "initial_label",
    "scores",
    "rationale",
    "confidence", "skip_reason", "guideline_id", "guideline_version", "shown_at", "first_input_ms", "submit_ms",
    "active_ms", "timings", "submitted_at", "condition", "purpose", "position", "planted", "superseded",
    "app_version", "suggestion_label", "suggestion_model", "suggestion_shown",
)
NATIVE_COLUMNS = ("id", "prompt", "conversation", "responses", "category", "gold", "metadata")
LABEL_COLUMNS = ("source", "rater", "cohort", "item", "label", "raw")
SUGGESTION_COLUMNS = ("item", "source_model", "label", "swapped_label", "planted", "prompt_hash", "rationale")
FLAG_COLUMNS = (
    "id", "item", "ref", "annotator", "kind", "note", "created", "position", "purpose", "cleared", "cleared_by",
    "clear_note", "uid",
)
SPAN_COLUMNS = (
    "uid", "annotator", "cohort", "item", "ref", "slot", "side", "model", "start", "end", "text", "category",
    "severity", "note", "purpose", "submitted_at", "superseded", "planted",
)


class ExportError(ValueError):
    """An export that cannot be written as asked (e.g. Parquet without pyarrow)."""


def export_rows(
    store: Store, what: str, *, native_items: bool = False, include_superseded: bool = False,
    include_planted: bool = False, schema: LabelSchema | None = None, layout: str = "long",
    aspect: str | None = None,
) -> tuple[tuple[str, ...], Iterable[dict[str, Any]]]:
    """(columns, rows) of one export; nested values are Python lists and dicts. The rows are a
    generator reading the session a batch at a time, so an export holds one batch, never the session.
    `preferences` and `answers` need the session's label schema."""
    if what in ("preferences", "answers"):
        from annotate.formats.export_designs import (
            PREFERENCE_COLUMNS,
            answer_columns,
            answer_rows,
            preference_rows,
        )

        if schema is None:
            raise ExportError(f"--what {what} needs the session's label schema")
        if what == "preferences":
            return PREFERENCE_COLUMNS, preference_rows(store, schema, aspect=aspect, include_planted=include_planted)
        return answer_columns(schema, layout), answer_rows(
            store, schema, layout=layout, include_superseded=include_superseded, include_planted=include_planted)
    from annotate.refs import ref_maker
    from annotate.store.refs import ref_key

    ref = ref_maker(ref_key(store))
    if what == "flags":
        from annotate.store.flags import flag_rows

        return FLAG_COLUMNS, ({**row, "ref": ref(row["item"])} for row in flag_rows(store))
    if what == "items":
        if native_items:
            return NATIVE_COLUMNS, (native_item(item) for item in store.iter_items())
        from annotate.adjudication import adjudicated_labels

        adjudicated = adjudicated_labels(store)
        slots = _item_slots(schema)
        return item_columns(schema), (
            {**_flat_item(item, slots), "ref": ref(item.id), "adjudicated": adjudicated.get(item.id)}
            for item in store.iter_items()
        )
    if what == "judgments":
        rows = store.judgment_export_rows(include_superseded, include_planted)
        return JUDGMENT_COLUMNS, ({**_judgment(row, schema), "ref": ref(row["item"])} for row in rows)
    if what == "labels":
        return LABEL_COLUMNS, (
            {"source": lab.source, "rater": lab.rater, "cohort": lab.cohort, "item": lab.item_id,
             "label": lab.label, "raw": lab.raw}
            for lab in store.iter_external_labels()
        )
    if what == "spans":
        from annotate.store.streams import span_rows

        rows = span_rows(store, include_superseded, include_planted)
        return SPAN_COLUMNS, ({**_span(row), "ref": ref(row["item"])} for row in rows)
    if what == "suggestions":
        return SUGGESTION_COLUMNS, (
            {"item": s.item_id, "source_model": s.source_model, "label": s.label, "swapped_label": s.swapped_label,
             "planted": s.planted, "prompt_hash": s.prompt_hash, "rationale": s.rationale}
            for s in store.iter_suggestions()
        )
    raise ExportError(f"--what {what!r}: expected one of {', '.join(WHATS)}")


def export(
    store: Store, what: str, fmt: str, *, output: Path | None = None, stream: TextIO | None = None,
    include_superseded: bool = False, include_planted: bool = False, raw_csv: bool = False,
    protected: Iterable[Protected] = (), force: bool = False, schema: LabelSchema | None = None,
    layout: str = "long", aspect: str | None = None,
) -> int:
    """Write one export to `output` or `stream`; returns the row count.

    Rows are written as they are read (CSV and JSON Lines line by line, Parquet a row group of
    PARQUET_BATCH rows at a time), so memory stays flat whatever the session's size.
    `output` is written whole or not at all (`annotate.outputs.atomic_output`): never over a
    `protected` file, over another existing file only with `force`. CSV cells that a spreadsheet
    would run as formulas get a leading `'` unless `raw_csv` (`annotate.formats.csv_out`).
    schema, layout, aspect: for `preferences` and `answers` (see `export_rows`).
    """
    if fmt not in EXPORT_FORMATS:
        raise ExportError(f"--format {fmt!r}: expected one of {', '.join(EXPORT_FORMATS)}")
    if fmt == "parquet" and output is None:
        raise ExportError("--format parquet writes a binary file: give one with -o FILE")
    if raw_csv and fmt != "csv":
        raise ExportError(f"--raw-csv applies to --format csv, not {fmt}")
    if fmt == "parquet":
        _require_pyarrow()
    columns, produced = export_rows(
        store, what, native_items=fmt == "jsonl", include_superseded=include_superseded,
        include_planted=include_planted, schema=schema, layout=layout, aspect=aspect,
    )
    rows = _Counted(produced)
    if output is None:
        assert stream is not None
        _write_text(stream, fmt, columns, rows, raw_csv=raw_csv)
        return rows.count
    with atomic_output(output, protected, force=force) as tmp:
        if fmt == "parquet":
            _write_parquet(tmp, columns, list(rows))
        else:
            with tmp.open("w", encoding="utf-8", newline="") as handle:
                _write_text(handle, fmt, columns, rows, raw_csv=raw_csv)
    return rows.count


class _Counted:
    """Rows passed through once, counted on the way (a generator has no length)."""

    def __init__(self, rows: Iterable[dict[str, Any]]) -> None:
        self._rows = rows
        self.count = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for row in self._rows:
            self.count += 1
            yield row


def native_item(item: Item) -> dict[str, Any]:
    """An item in the native import format (only the keys that carry something)."""
    row: dict[str, Any] = {"id": item.id}
    if len(item.conversation) == 1 and item.conversation[0].role == "user":
        row["prompt"] = item.conversation[0].content
    else:
        row["conversation"] = [{"role": m.role, "content": m.content} for m in item.conversation]
    responses: dict[str, Any] = {}
    for response in item.responses:
        body: dict[str, Any] = {"text": response.text}
        if response.model is not None:
            body["model"] = response.model
        if response.history:
            body["history"] = [{"role": m.role, "content": m.content} for m in response.history]
        responses[response.slot] = body
    row["responses"] = responses
    for key, value in (("category", item.category), ("gold", item.gold)):
        if value is not None:
            row[key] = value
    if item.metadata:
        row["metadata"] = dict(item.metadata)
    return row


def _item_slots(schema: LabelSchema | None) -> tuple[str, ...]:
    """The response slots of the session's items: A and B, or a ranking's k slots."""
    primary = schema.primary if schema is not None else None
    return tuple(getattr(primary, "slots", ("A", "B"))) if primary is not None and primary.shape == "ranking" \
        else ("A", "B")


def item_columns(schema: LabelSchema | None = None) -> tuple[str, ...]:
    """ITEM_COLUMNS, with C, model_C, history_C, ... before metadata for a ranking session's k slots."""
    extra = tuple(c for slot in _item_slots(schema)[2:] for c in (slot, f"model_{slot}", f"history_{slot}"))
    head = ITEM_COLUMNS.index("metadata")
    return ITEM_COLUMNS[:head] + extra + ITEM_COLUMNS[head:]


def _flat_item(item: Item, slots: Sequence[str] = ("A", "B")) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": item.id, "kind": item.kind, "category": item.category, "gold": item.gold, "prompt": item.prompt,
        "conversation": [{"role": m.role, "content": m.content} for m in item.conversation],
        "metadata": dict(item.metadata),
    }
    for slot in slots:
        try:
            response = item.response(slot)
        except KeyError:
            row.update({slot: None, f"model_{slot}": None, f"history_{slot}": None})
            continue
        row.update({
            slot: response.text, f"model_{slot}": response.model,
            f"history_{slot}": [{"role": m.role, "content": m.content} for m in response.history],
        })
    return row


def suggestion_shown(row: dict[str, Any], timings: dict[str, Any]) -> bool | None:
    """Whether the judgment's suggestion was on screen, by its condition; None when it cannot be told.

    No suggestion or `none`: False. `upfront`: True. `after`: True once a first answer was committed
    (an initial label exists), else False. `on_request`: True when a reveal was logged; False when the
    assignment has events but no reveal; None without any event (e.g. labels from elsewhere).
    Wherever the app recorded the time the suggestion was on screen (`suggestion_ms`), True.
    """
    condition = row.get("condition") or "none"
    if row.get("suggestion_label") is None or condition == "none":
        return False
    if timings.get("suggestion_ms") is not None or row.get("shown_event"):
        return True
    if condition == "upfront":
        return True
    if condition == "after":
        return row.get("initial_label") is not None
    if condition == "on_request":
        return False if row.get("has_events") else None
    return None


def _label_side(label: str | None, swapped: bool, schema: LabelSchema | None, order: str = "") -> str | None:
    """The label as the screen showed it (left / right, a strength from the left's view, or a
    ranking of display positions through ``order``); None for grades and values outside the schema."""
    if label is None:
        return None
    primary = schema.primary if schema is not None else None
    if primary is None:
        return slot_to_side(label, swapped) if label in PAIRWISE_LABELS else None
    value = primary.parse(label)
    if value is None or not primary.sided:
        return None
    if primary.shape == "ranking" and not order:
        return None  # a ranking whose display order was not kept cannot be put in screen terms
    return primary.to_side(value, order_of(swapped, order or ()))


def _judgment(row: dict[str, Any], schema: LabelSchema | None = None) -> dict[str, Any]:
    swapped = bool(row["swapped"])
    label = row["label"]
    out = dict(row)
    timings = json.loads(row["timings"] or "{}")
    out.update(
        swapped=swapped, planted=bool(row["planted"]), superseded=bool(row["superseded"]),
        label_side=_label_side(label, swapped, schema, row.get("display_order") or ""),
        display_order=row.get("display_order") or None,
        scores=json.loads(row["scores"] or "{}"), timings=timings,
        suggestion_shown=suggestion_shown(row, timings),
    )
    return {column: out.get(column) for column in JUDGMENT_COLUMNS}


def _span(row: dict[str, Any]) -> dict[str, Any]:
    side = slot_to_side(row["slot"], bool(row["swapped"])) if row["kind"] == "pairwise" else "response"
    out = {**row, "side": side, "superseded": bool(row["superseded"]), "planted": bool(row["planted"])}
    return {column: out.get(column) for column in SPAN_COLUMNS}


def _json_line(row: dict[str, Any]) -> str:
    """Compact JSON in which every terminal-active character is a `\\u` escape (`escape_json`), so
    the line is inert on a terminal and `json.loads` gives the stored text back."""
    return escape_json(json.dumps(row, ensure_ascii=False))


def _cell(value: Any) -> str:
    if value is None:
        return ""
    kind = type(value)
    if kind is str:
        return value
    if kind is bool:
        return "true" if value else "false"
    if kind is int or kind is float:
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _write_text(
    stream: TextIO, fmt: str, columns: Sequence[str], rows: Iterable[dict[str, Any]], *, raw_csv: bool = False,
) -> None:
    if fmt == "jsonl":
        for row in rows:
            stream.write(_json_line(row) + "\n")
        return
    stream.write(csv_row(columns, raw=True))
    for row in rows:
        stream.write(csv_row((_cell(row.get(column)) for column in columns), raw=raw_csv))


def _require_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ExportError(
            "--format parquet needs pyarrow: in the annotate project folder, pip install -e '.[parquet]'"
            " (or use --format csv / jsonl)"
        ) from None


PARQUET_BATCH = 10_000
"""Rows per Parquet row group: one group is what an export holds in memory at a time."""
_INTEGER_COLUMNS = frozenset({"confidence", "first_input_ms", "submit_ms", "active_ms", "position"})
_BOOLEAN_COLUMNS = frozenset({"swapped", "planted", "superseded", "suggestion_shown"})


def _parquet_type(column: str) -> Any:
    """The Arrow type of an export column: booleans and whole numbers where the column holds them,
    text for everything else (nested values are JSON text). Declared, not guessed from the values, so
    every row group has the same schema and a column that happens to be empty is still typed."""
    import pyarrow as pa

    if column in _BOOLEAN_COLUMNS:
        return pa.bool_()
    if column in _INTEGER_COLUMNS:
        return pa.int64()
    return pa.string()


def _write_parquet(path: Path, columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> None:
    import itertools

    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(column, _parquet_type(column)) for column in columns])
    iterator = iter(rows)
    with pq.ParquetWriter(path, schema) as writer:
        while batch := list(itertools.islice(iterator, PARQUET_BATCH)):
            data = {
                column: [json.dumps(r[column], ensure_ascii=False) if isinstance(r.get(column), list | dict)
                         else r.get(column) for r in batch]
                for column in columns
            }
            writer.write_table(pa.table(data, schema=schema))
