"""Importing items (and Arena or MT-Bench votes) from a file of any size.

The file is read a record at a time (`annotate.formats.streaming`); each record is checked as it
comes (every field; its kind; the rater's cohort) and staged a batch at a time outside the session
(`annotate.store.staging`). Checks that need the whole file run on the staged rows: a key seen
twice, Arena ids that depend on every turn of a question, ids already stored with other content,
votes repeated with another label. The identity-leak scan needs every model name of the file: it
runs on each batch as it is staged, and again on the earlier items that a name first seen later may
be mentioned in (`annotate.formats.text_scan`). Only then is the session written, in one
transaction that copies the staged rows. Memory holds one batch, the file's model and rater names,
the leaks found, and (MT-Bench only) each model's answers to each question.

Arena battles, files of millions of small records, take a bulk path (`stage_battles`): a battle
of the plain shape is checked on its values and staged as a row built from them
(`annotate.formats.arena_batch`), without a Record, Item or label object; any other goes the
record-by-record way. A large file is parsed by a worker process while the batches before are
staged (`annotate.formats.battle_blocks`). The checks, the errors and the stored bytes are the
same either way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from annotate.formats.arena import SHOWN_FIRST, read_battle
from annotate.formats.arena import SOURCE as ARENA_SOURCE
from annotate.formats.arena_batch import battle_item, battle_row, plain_battle
from annotate.formats.battle_blocks import battle_values, default_workers
from annotate.formats.errors import FormatError, describe
from annotate.formats.leaks import Leak, leak_warning
from annotate.formats.mapped import FieldMap, check_mapping, default_item_map, mapped_item, repeated_row
from annotate.formats.mtbench import read_judgment
from annotate.formats.native import check_kind, parse_item
from annotate.formats.reading import Record
from annotate.formats.streaming import Source
from annotate.formats.text_scan import PlainPair, TextScan
from annotate.model import ExternalLabel, Item, Message
from annotate.spec import LabelSchema
from annotate.store import Store
from annotate.store.codec import item_row
from annotate.store.staging import ITEM_COLUMNS, ImportStaging, Where
from annotate.store.store import AddResult
from annotate.text import plural

BATCH = 1000
"""Records checked and staged at a time."""
REPEATS_SHOWN = 20


@dataclass(frozen=True)
class Entry:
    """What one record brings: an item under a key, and maybe a vote on it."""

    item: Item
    key: str
    label: ExternalLabel | None = None
    group: str | None = None
    suffix: str | None = None


class RecordReader(Protocol):
    def entry(self, record: Record) -> Entry: ...

    def repeat(self, record: Record, entry: Entry, first: Where, same: bool) -> str | None:
        """A record whose key was staged before: raise, or return a warning (or None) and fold it."""


@dataclass
class NativeReader:
    schema: LabelSchema

    def entry(self, record: Record) -> Entry:
        item = parse_item(record, self.schema)
        return Entry(item, item.id)

    def repeat(self, record: Record, entry: Entry, first: Where, same: bool) -> str | None:
        raise record.error("an id used once in the file", "id", found=f"{describe(entry.item.id)} again (first on"
                                                                       f" {first.text})")


@dataclass
class MappedReader:
    schema: LabelSchema
    mapping: FieldMap
    kind: str

    def entry(self, record: Record) -> Entry:
        item = mapped_item(record, self.mapping, self.schema, self.kind)
        check_kind(record, item, self.schema)
        return Entry(item, item.id)

    def repeat(self, record: Record, entry: Entry, first: Where, same: bool) -> str | None:
        return repeated_row(record, self.mapping, self.kind, entry.item.id, first.text, same)


class ArenaReader:
    """Arena battles: item `arena-{question_id}`, `-t{turn}` added once the file shows the
    question with several turns; one crowd vote per record."""

    def entry(self, record: Record) -> Entry:
        battle = read_battle(record)
        qid, turn = battle["question_id"], battle["turn"]
        item = Item(id=f"arena-{qid}", kind="pairwise", conversation=battle["conversation"],
                    responses=(battle["A"], battle["B"]), metadata=battle["metadata"])
        label = ExternalLabel(ARENA_SOURCE, battle["judge"], "crowd", item.id, battle["label"], battle["winner"],
                              shown_first=SHOWN_FIRST)
        return Entry(item, f"{qid}\x1f{turn}", label, group=qid, suffix=f"-t{turn}")

    def repeat(self, record: Record, entry: Entry, first: Where, same: bool) -> str | None:
        battle_repeat(record, entry.key, first, same)
        return None


def battle_repeat(record: Record, key: str, first: Where, same: bool) -> None:
    """A battle staged again under its key: the same one is kept once, another one refused."""
    if not same:
        qid, turn = key.split("\x1f")
        raise record.error(f"the same battle as {first.text} (question_id {describe(qid)}, turn {turn})",
                           "question_id", found="other models or messages")


@dataclass
class MtbenchReader:
    answers: dict[tuple[str, str], tuple[tuple[Message, ...], Record]] = field(default_factory=dict)

    def entry(self, record: Record) -> Entry:
        item, label = read_judgment(record, self.answers)
        return Entry(item, item.id, label)

    def repeat(self, record: Record, entry: Entry, first: Where, same: bool) -> str | None:
        if not same:  # cannot happen once the answers agree; kept as a guard
            raise record.error(f"the same messages as {first.text}", "conversation_a", found="different ones")
        return None


def reader_for(source: Source, format: str, mapping: FieldMap, schema: LabelSchema) -> RecordReader:
    """The reader of this file's records (checking a --map against the file first)."""
    if format == "arena":
        return ArenaReader()
    if format == "mtbench":
        return MtbenchReader()
    if mapping or source.is_csv:
        used = check_mapping(source, mapping or default_item_map(source), schema, defaulted=not mapping)
        return MappedReader(schema, used, "column" if source.is_csv else "field")
    return NativeReader(schema)


@dataclass
class Staged:
    """What a streamed import found on the way (everything else is in the staging tables)."""

    records: int = 0
    warnings: list[str] = field(default_factory=list)
    models: set[str] = field(default_factory=set)
    texts: TextScan = field(default_factory=TextScan)
    """Leaks and empty responses of the staged items, scanned batch by batch."""


def stage(store: Store, staging: ImportStaging, source: Source, reader: RecordReader, encodable: Any) -> Staged:
    """Read, check and stage every record of the file, a batch at a time; errors name the first bad record.

    Each entry goes to the staging tables as a row tuple (`ImportStaging.add_item_rows`), as the
    Arena bulk path stages its battles."""

    found = Staged()
    cohorts = {a.name: a.cohort for a in store.annotators()}
    rows: list[tuple[Any, ...]] = []
    pending: list[tuple[Record, Entry]] = []
    votes: list[tuple[Any, ...]] = []
    models = found.models

    def flush(scan: bool = True) -> None:
        batch = list(pending)
        staged = with_facts(rows, [entry.item for _, entry in batch])
        pending.clear()
        rows.clear()
        staging.add_label_rows(votes)
        votes.clear()
        first = staging.next_seq
        repeated = set()
        for repeat in staging.add_item_rows(staged):
            repeated.add(repeat.position)
            record, entry = batch[repeat.position]
            warning = reader.repeat(record, entry, repeat.first, repeat.same)
            if warning:
                found.warnings.append(warning)
        if scan:
            found.texts.scan([(first + k, entry.item) for k, (_, entry) in enumerate(batch) if k not in repeated],
                             models)

    records: Iterator[Record] = source.records()
    try:
        for record in records:
            found.records += 1
            entry = reader.entry(record)
            item = entry.item
            encodable(item, record)
            label = entry.label
            if label is not None:
                _check_cohort(record, label, cohorts)
                votes.append((record.line, record.index, entry.key, label.source, label.rater, label.cohort,
                              label.item_id, label.label, label.raw, label.shown_first))
            for response in item.responses:
                if response.model:
                    models.add(response.model)
            row = item_row(item, "", "")
            rows.append((staging.next_seq + len(rows), entry.key, entry.group, entry.suffix, record.line,
                         record.index, *(row[c] for c in ITEM_COLUMNS)))
            pending.append((record, entry))
            if len(pending) >= BATCH:
                flush()
    except FormatError:
        flush(scan=False)  # a repeat among the records before the bad one is reported first
        raise
    flush()
    return found


ARENA_BATCHES = 5
"""Battles are checked and staged BATCH * ARENA_BATCHES at a time (their rows are small)."""


def stage_battles(store: Store, staging: ImportStaging, source: Source, encodable: Any,
                  workers: int | None = None) -> Staged:
    """`stage` for Arena battles: a battle of the plain shape (`annotate.formats.arena_batch`) goes
    to the staging tables as a row built from its values, any other through `read_battle` and its
    Item; the checks, their order and their errors are those of `stage` with an ArenaReader.
    `workers`: processes that parse the file (`annotate.formats.battle_blocks`; None: as suits the file)."""

    found = Staged()
    cohorts = {a.name: a.cohort for a in store.annotators()}
    reader = ArenaReader()
    file = source.file
    known: set[str] = set()
    items: list[tuple[Any, ...]] = []
    labels: list[tuple[Any, ...]] = []
    scans: list[Item | PlainPair] = []
    facts: list[tuple[object, ...] | None] = []
    size = BATCH * ARENA_BATCHES

    def flush(scan: bool = True) -> None:
        texts = list(scans)
        batch = with_facts(items, texts, facts)
        staging.add_label_rows(labels)
        items.clear()
        labels.clear()
        scans.clear()
        facts.clear()
        first = staging.next_seq
        repeated = set()
        for repeat in staging.add_item_rows(batch):
            repeated.add(repeat.position)
            row = batch[repeat.position]
            battle_repeat(Record({}, file, row[4], row[5]), row[1], repeat.first, repeat.same)
        if scan:
            found.texts.scan([(first + k, entry) for k, entry in enumerate(texts) if k not in repeated], found.models)

    models = found.models
    seq = staging.next_seq
    try:
        if workers is None:
            workers = default_workers(source)
        for line, index, data, battle, row, given in battle_values(source, workers):
            found.records += 1
            if data is not None:
                battle = plain_battle(data, known)
                row = None if battle is None else battle_row(battle)
            if battle is None or row is None:
                record = Record(data, file, line, index)
                entry = reader.entry(record)
                encodable(entry.item, record)
                assert entry.label is not None
                _check_cohort(record, entry.label, cohorts)
                label = entry.label
                labels.append((line, index, entry.key, label.source, label.rater, label.cohort, label.item_id,
                               label.label, label.raw, label.shown_first))
                models.update(m for m in entry.item.models if m)
                row = item_row(entry.item, "", "")
                items.append((seq + len(items), entry.key, entry.group, entry.suffix, line, index,
                              *(row[c] for c in ITEM_COLUMNS)))
                scans.append(entry.item)
                facts.append(None)
            else:
                qid, turn, judge, winner, vote = battle[:5]
                item_id, conversation, responses, digest = row
                if cohorts.setdefault(judge, "crowd") != "crowd":
                    _check_cohort(Record(data, file, line, index), ExternalLabel(
                        ARENA_SOURCE, judge, "crowd", item_id, vote, winner, shown_first=SHOWN_FIRST), cohorts)
                key = f"{qid}\x1f{turn}"
                labels.append((line, index, key, ARENA_SOURCE, judge, "crowd", item_id, vote, winner, SHOWN_FIRST))
                models.add(battle[6])
                models.add(battle[8])
                items.append((seq + len(items), key, qid, f"-t{turn}", line, index, item_id, "pairwise", conversation,
                              responses, None, None, battle[10], digest))
                scans.append(PlainPair(battle[7], battle[9], battle[6], battle[8], partial(battle_item, battle)))
                facts.append(given)
            if len(items) >= size:
                flush()
                seq = staging.next_seq
    except FormatError:
        flush(scan=False)  # a repeat among the records before the bad one is reported first
        raise
    flush()
    return found


def with_facts(rows: Sequence[tuple[Any, ...]], items: Sequence[Item | PlainPair],
               given: Sequence[tuple[object, ...] | None] | None = None) -> list[tuple[Any, ...]]:
    """The staged rows of a batch with each item's facts appended (`ImportStaging.add_item_rows`):
    those `given` (made where the battle was parsed), the others found here."""
    from annotate.style_features import item_facts  # numpy: only when a file is imported

    known = list(given) if given is not None else [None] * len(items)
    missing = [place for place, facts in enumerate(known) if facts is None]
    for place, (_, facts) in zip(missing, item_facts([items[place] for place in missing]), strict=True):
        known[place] = facts
    return [(*row, *facts) for row, facts in zip(rows, known, strict=True)]  # type: ignore[misc]


def _check_cohort(record: Record, label: ExternalLabel, cohorts: dict[str, str]) -> None:
    known = cohorts.setdefault(label.rater, label.cohort)
    if known != label.cohort:
        raise record.error(
            f"a rater of one cohort ({describe(label.rater)} is already in cohort {known})",
            found=f"{describe(label.rater)} as {label.cohort}",
        )


def settle_ids(staging: ImportStaging, file: str) -> None:
    """Ids that depend on the whole file (Arena turns), then ids two keys ended up with: the same
    battle is kept once, another one is refused at its record."""
    staging.apply_suffixes()
    for key, where, first, same in staging.id_repeats():
        if not same:
            qid, turn = key.split("\x1f")
            raise Record({}, file, where.line, where.index).error(
                f"the same battle as {first.text} (question_id {describe(qid)}, turn {turn})", "question_id",
                found="other models or messages",
            )
        staging.fold(key)


def check_stored(staging: ImportStaging, file: str) -> None:
    """Refuse the first staged item whose id the session holds with other content."""
    conflict = staging.first_conflict()
    if conflict is not None:
        where, item_id = conflict
        raise Record({}, file, where.line, where.index).error(
            "an id not yet stored with other content (give a changed item a new id)", "id", got=item_id,
        )


def vote_warning(staging: ImportStaging) -> str | None:
    """The votes repeated with another label, as `_checked_votes` words them."""
    if not staging.n_labels:
        return None
    shown, total = staging.label_repeats(REPEATS_SHOWN)
    if not total:
        return None
    more = f"; and {total - REPEATS_SHOWN} more" if total > REPEATS_SHOWN else ""
    return (f"{plural(total, 'repeated vote')} with different labels (kept the first or stored one): "
            f"{'; '.join(shown)}{more}")


def text_warnings(leaks: Sequence[Leak], empty: Sequence[tuple[str, str]], empty_line: Any) -> list[str]:
    warnings = []
    warning = leak_warning(leaks)
    if warning:
        warnings.append(warning)
    if empty:
        warnings.append(empty_line(empty))
    return warnings


@dataclass(frozen=True)
class Outcome:
    """What a streamed import wrote and found."""

    items: AddResult
    labels: AddResult
    warnings: tuple[str, ...]
    cohorts: tuple[str, ...]
    leaks: tuple[Leak, ...]
    empty: tuple[tuple[str, str], ...]


def staged_import(store: Store, path: Path, source: Source, reader: RecordReader, encodable: Any,
                  empty_line: Any, workers: int | None = None) -> Outcome | None:
    """Stage, check and commit one file (None for a file without records: nothing is written).

    encodable(item, record) checks what the field checks do not (metadata as JSON); empty_line
    words the empty-responses warning; `workers`: processes parsing Arena battles (`stage_battles`)."""
    from annotate.store import utc_now

    with ImportStaging(store) as staging:
        if isinstance(reader, ArenaReader):
            found = stage_battles(store, staging, source, encodable, workers)
        else:
            found = stage(store, staging, source, reader, encodable)
        if not found.records:
            return None
        settle_ids(staging, source.file)
        check_stored(staging, source.file)
        warnings = list(found.warnings)
        votes = vote_warning(staging)
        if votes:
            warnings.append(votes)
        leaks, empty = found.texts.finish(staging, found.models)
        warnings += text_warnings(leaks, empty, empty_line)
        cohorts = staging.cohorts()
        items, labels = staging.commit(path.name, utc_now(), check=lambda: check_stored(staging, source.file))
    return Outcome(items, labels, tuple(warnings), cohorts, tuple(leaks), tuple(empty))
