"""Importing a file into a session: read, check everything, then write in one transaction.

Each import is atomic and idempotent. Atomic: the whole file is validated first (every field, ids
unique, items not clashing with stored ones, raters not clashing with another cohort), and only
then is the store written, in a single transaction; one bad record gives an error naming the
file, line or record and field, and the session file is left byte for byte as it was. Items are
read and staged a batch at a time (`annotate.formats.item_import`), so a file of any size imports
in the memory of one batch; labels files (`import_labels`) are read whole.
Idempotent: items already stored with the same content and votes already stored under the same
(source, rater, item) are counted as unchanged, so importing a file twice changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from annotate.formats.errors import describe
from annotate.formats.item_import import reader_for, staged_import
from annotate.formats.labels import parse_shown_first, read_votes
from annotate.formats.leaks import Leak
from annotate.formats.mapped import (
    ALL_ITEM_TARGETS,
    ITEM_TARGETS,
    OptionError,
    parse_field_map,
)
from annotate.formats.reading import CONTAINERS, Record
from annotate.formats.streaming import open_source
from annotate.model import INVALID_LABEL, ExternalLabel, Item
from annotate.spec import LabelSchema
from annotate.store import Store
from annotate.text import plural

ITEM_FORMATS = ("auto", "native", "arena", "mtbench", *CONTAINERS)
"""`auto`: the container from the extension or first character; JSON is read as the native format
unless --map is given; CSV always goes through a field map (by default, columns named like the
targets). `csv`/`tsv`/`json`/`jsonl` name the container the same way; `native`, `arena` and
`mtbench` name the shape."""


@dataclass(frozen=True)
class ImportReport:
    """What an import did."""

    items_added: int
    items_unchanged: int
    labels_added: int
    labels_unchanged: int
    warnings: tuple[str, ...] = ()
    cohorts: tuple[str, ...] = ()
    """The cohorts of the imported labels (for the summary line)."""
    leaks: tuple[Leak, ...] = ()
    """Responses naming a model or vendor (also summarised in `warnings`)."""
    of_labels: bool = False
    """A labels import: the summary speaks of labels even when there are none."""
    empty_responses: tuple[tuple[str, str], ...] = ()
    """(item id, slot) of every response in the file whose text is empty or blank."""
    labels_invalid: int = 0
    """Labels of the file mapped to `invalid` (stored, never votes)."""
    labels_skipped: int = 0
    """Labels outside the map that --skip-unmapped left out."""

    def summary(self) -> str:
        """One line such as `added 40 items (2 unchanged), 120 crowd labels (0 unchanged)`."""
        parts = []
        has_labels = self.labels_added or self.labels_unchanged or self.of_labels
        if self.items_added or self.items_unchanged or not has_labels:
            empty = f"; {_count(len(self.empty_responses), 'empty response')}" if self.empty_responses else ""
            parts.append(f"{_count(self.items_added, 'item')} ({self.items_unchanged} unchanged{empty})")
        if has_labels:
            cohort = "/".join(self.cohorts)
            label = f"{cohort} label" if cohort else "label"
            parts.append(f"{_count(self.labels_added, label)} ({self.labels_unchanged} unchanged)")
        summary = "added " + ", ".join(parts)
        if self.labels_invalid:
            summary += f"; {self.labels_invalid} invalid (stored, never counted as votes)"
        if self.labels_skipped:
            summary += f"; {self.labels_skipped} unmapped skipped"
        return summary


def _count(n: int, noun: str) -> str:
    return plural(n, noun)


def import_items(
    store: Store, schema: LabelSchema, path: Path | str, *, format: str = "auto", field_map: Sequence[str] = (),
    workers: int | None = None,
) -> ImportReport:
    """Import items (and, for arena / mtbench, their votes) from `path` into the session.

    field_map: `--map` options (`TARGET=SRC[,SRC...]`); workers: processes that parse an Arena file
    (`annotate.formats.battle_blocks`; None: as suits the file). Raises FormatError (naming the
    file, line or record and field) or OptionError; nothing is written then.
    """
    path = Path(path)
    if format not in ITEM_FORMATS:
        raise OptionError(f"--format {format!r}: expected one of {', '.join(ITEM_FORMATS)}")
    if field_map and format in ("native", "arena", "mtbench"):
        raise OptionError(f"--map does not apply to --format {format} (its fields are fixed)")
    targets = ALL_ITEM_TARGETS if schema.kind == "ranking" else ITEM_TARGETS
    mapping = parse_field_map(field_map, targets, allow_meta=True, joinable=("id", "prompt", *schema.slots))
    if format in ("arena", "mtbench") and schema.kind != "pairwise":
        raise OptionError(f"--format {format}: the records are pairwise, the session is {schema.kind}")
    source = open_source(path, format if format in CONTAINERS else None)
    if format == "native" and source.is_csv:
        raise OptionError(f"{source.file}: the native format is JSON Lines; map CSV columns with --map")
    if not source.has_records():
        header = " (only a header)" if source.is_csv and source.header else ""
        return ImportReport(0, 0, 0, 0, (f"{source.file} holds no records{header}",))
    reader = reader_for(source, format, mapping, schema)
    outcome = staged_import(store, path, source, reader, _check_encodable, empty_warning_line, workers)
    if outcome is None:  # emptied since it was opened
        return ImportReport(0, 0, 0, 0, (f"{source.file} holds no records",))
    return ImportReport(
        outcome.items.added, outcome.items.unchanged, outcome.labels.added, outcome.labels.unchanged,
        outcome.warnings, outcome.cohorts, outcome.leaks, empty_responses=outcome.empty,
    )


def empty_responses(items: Sequence[Item]) -> list[tuple[str, str]]:
    """(item id, slot) of each response judged whose text is empty or only white space."""
    return [(item.id, r.slot) for item in items for r in item.responses if not r.text.strip()]


def empty_warning_line(empty: Sequence[tuple[str, str]], cap: int = 20) -> str:
    """A note listing the empty responses (at most `cap`), so the lead knows they are there on purpose."""
    shown = "; ".join(f"{item_id} ({slot})" for item_id, slot in empty[:cap])
    more = f"; and {len(empty) - cap} more" if len(empty) > cap else ""
    return (
        f"{_count(len(empty), 'empty response')} (a model that returned nothing), imported as they are: annotators "
        f"see \"(empty response)\", and the report counts the votes on these items: {shown}{more}"
    )


def import_labels(
    store: Store,
    schema: LabelSchema,
    path: Path | str,
    *,
    cohort: str,
    layout: str = "long",
    raters: Sequence[str] | None = None,
    field_map: Sequence[str] = (),
    label_map: Sequence[str] = (),
    source: str | None = None,
    format: str | None = None,
    skip_unmapped: bool = False,
    shown_first: str | None = None,
    shown_first_column: str | None = None,
    shown_first_map: Sequence[str] = (),
) -> ImportReport:
    """Import ratings made elsewhere as external labels of `cohort` (see formats/labels.py).

    source: the name the votes are filed under (default: the file name); re-importing the same
    file under the same source changes nothing. skip_unmapped: leave out (and count) labels that
    are neither the session's nor in the label map, instead of refusing the file. shown_first /
    shown_first_column / shown_first_map: which slot each rater saw first (`parse_shown_first`).
    """
    path = Path(path)
    order = parse_shown_first(schema, shown_first, shown_first_column, shown_first_map)
    read = read_votes(
        path, schema, cohort=cohort, source=source or path.name, known_items=set(store.item_ids()),
        layout=layout, raters=raters, field_map=field_map, label_map=label_map, format=format,
        skip_unmapped=skip_unmapped, shown_first=order,
    )
    if read.empty:
        return ImportReport(0, 0, 0, 0, (read.empty,), of_labels=True)
    labels, warnings = _checked_votes(store, read.votes)
    if read.skipped:
        warnings.append(skipped_warning(read.table.file, read.skipped))
    if not labels and not read.skipped:
        warnings.append(f"{read.table.file}: no votes found (every cell empty?)")
    _, added = store.add_items_and_labels([], labels, source=path.name)
    return ImportReport(
        0, 0, added.added, added.unchanged, tuple(warnings), (cohort,) if labels else (), of_labels=True,
        labels_invalid=sum(1 for lab in labels if lab.label == INVALID_LABEL), labels_skipped=len(read.skipped),
    )


def skipped_warning(file: object, skipped: Sequence[tuple[str, str]], cap: int = 10) -> str:
    """One line naming the labels --skip-unmapped left out (the first `cap`, with their lines)."""
    shown = "; ".join(f"{describe(cell)} at {where}" for where, cell in skipped[:cap])
    more = f"; and {len(skipped) - cap} more" if len(skipped) > cap else ""
    return f"{file}: {_count(len(skipped), 'label')} outside the label map left out (--skip-unmapped): {shown}{more}"


def _checked_votes(
    store: Store, votes: Sequence[tuple[ExternalLabel, Record]],
) -> tuple[list[ExternalLabel], list[str]]:
    """Votes ready to write: one per (source, rater, item), raters in one cohort each.

    A vote repeated with the same label is kept once. A rater voting twice on an item with
    different labels (in the file, or against what is stored under the same source) keeps the
    first vote and gives a warning: it is data, not a broken file.
    """
    cohorts = {a.name: a.cohort for a in store.annotators()}
    sources = {lab.source for lab, _ in votes}
    stored = {
        (lab.source, lab.rater, lab.item_id): lab.label for lab in store.external_labels() if lab.source in sources
    } if votes else {}
    kept: dict[tuple[str, str, str], tuple[ExternalLabel, Record]] = {}
    conflicts: list[str] = []
    for label, record in votes:
        known = cohorts.setdefault(label.rater, label.cohort)
        if known != label.cohort:
            raise record.error(
                f"a rater of one cohort ({describe(label.rater)} is already in cohort {known})",
                found=f"{describe(label.rater)} as {label.cohort}",
            )
        key = (label.source, label.rater, label.item_id)
        first = kept.get(key)
        if first is None:
            kept[key] = (label, record)
            if key in stored and stored[key] != label.label:
                conflicts.append(
                    f"{label.rater} on {label.item_id}: {label.label} at {record.where}, stored {stored[key]}"
                )
        elif first[0].label != label.label:
            conflicts.append(
                f"{label.rater} on {label.item_id}: {first[0].label} at {first[1].where},"
                f" {label.label} at {record.where}"
            )
    warnings = []
    if conflicts:
        shown = "; ".join(conflicts[:20]) + (f"; and {len(conflicts) - 20} more" if len(conflicts) > 20 else "")
        warnings.append(
            f"{plural(len(conflicts), 'repeated vote')} with different labels (kept the first or stored one): {shown}"
        )
    return [label for label, _ in kept.values()], warnings


def _check_encodable(item: Item, record: Record) -> None:
    """The item's metadata can be stored as UTF-8 JSON (its texts were checked field by field)."""
    if not item.metadata or all(_plain(key) and _plain(value) for key, value in item.metadata.items()):
        return
    try:
        json.dumps(dict(item.metadata), ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        raise record.error("valid Unicode text", "metadata", found="a lone surrogate (\\ud800-\\udfff)") from None
    except (TypeError, ValueError) as exc:
        raise record.error("JSON-compatible values", "metadata", found=str(exc)) from None


def _plain(value: object) -> bool:
    """A value JSON takes as it is, checked without encoding the whole metadata (most of it is)."""
    kind = type(value)
    return value is None or kind is bool or kind is int or (kind is str and value.isascii())  # type: ignore[union-attr]
