"""The texts of a streamed import, checked as they are staged: identity leaks and empty responses.

The leak scan needs every model name of the file (a response may name a model that only a later
record brings), but reading the staged items back for a second pass costs as much as staging
them. So each batch is scanned when it is staged, on the items already parsed, with the model
names read so far; once the file is read, a batch scanned before some name was first seen is read
back and scanned again, and only its items whose responses may mention one of those late names
(`annotate.formats.leaks.may_mention`). Usually every name shows up in the first batch, and
nothing is read back. The result is the same as one scan of every item with every name.

Findings are kept per staged row (its `seq`), so an id settled after staging (an Arena question
with several turns gets `-t{turn}`) and an item folded into an earlier one are accounted for when
the import asks for them (`finish`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from annotate.formats.leaks import (
    MIN_MODEL_NAME,
    Leak,
    leak_candidates,
    leaks_per_item,
    may_mention,
    names_may_begin,
    response_texts,
)
from annotate.formats.lookalikes import fold
from annotate.model import Item
from annotate.store.staging import ImportStaging


@dataclass(frozen=True)
class _Batch:
    first: int
    last: int
    """The seqs of the batch's first and last staged rows."""
    names: frozenset[str]
    """The model names it was scanned with."""
    keys: Any = None
    """The keys of the words of its responses (`word_keys`), when kept: a batch whose words cannot
    begin a late name is not read back."""


class PlainPair(NamedTuple):
    """A pairwise item without histories, as the scan needs it: its two responses (slots A and B),
    their models, and how to make the Item, which is done only for responses that may name a model."""

    a: str
    b: str
    model_a: str
    model_b: str
    item: Callable[[], Item]


def _scanned_names(names: set[str]) -> frozenset[str]:
    return frozenset(name for name in names if len(name) >= MIN_MODEL_NAME)


_ESCAPED = frozenset('"\\') | frozenset(map(chr, range(0x20)))
"""Characters JSON writes escaped: a name with one is not found as it is in the responses' JSON."""


def _may_name(responses: str, names: frozenset[str]) -> bool:
    """Whether a staged row's responses (their JSON) may mention one of `names`: a cheap first look
    before the row is decoded. ASCII responses are folded as they are, so a mention is the name's
    letters in them, in any case; other responses and names JSON escapes are always looked at."""
    if not responses.isascii():
        return True
    lowered = responses.lower()
    return any(not _ESCAPED.isdisjoint(name) or name.lower() in lowered for name in names)


@dataclass
class TextScan:
    """Leaks and empty responses of the staged rows, by seq."""

    leaks: dict[int, list[Leak]] = field(default_factory=dict)
    empty: dict[int, list[str]] = field(default_factory=dict)
    """The slots whose text is empty or blank."""
    batches: list[_Batch] = field(default_factory=list)

    def scan(self, staged: Sequence[tuple[int, Item | PlainPair]], names: set[str]) -> None:
        """Scan a staged batch ((seq, item) in file order) with the model names read so far (which
        include the batch's own). An item given as a PlainPair is made only when a term may match
        in one of its responses; a batch with some keeps its words' keys for `finish`."""
        if not staged:
            return
        scanned = _scanned_names(names)
        terms = sorted(scanned)
        if not any(isinstance(entry, PlainPair) for _, entry in staged):
            self._record(staged, leaks_per_item([item for _, item in staged], extra_terms=terms))  # type: ignore[misc]
            self.batches.append(_Batch(staged[0][0], staged[-1][0], scanned))
            return
        texts = [[entry.a, entry.b] if isinstance(entry, PlainPair) else
                 [text for r in entry.responses for text in response_texts(r)] for _, entry in staged]
        folded = [text for group in texts for text in group]
        if not all(map(str.isascii, folded)):  # fold leaves ASCII as it is (response_texts has folded the rest)
            folded = [text for (_, entry), group in zip(staged, texts, strict=True)
                      for text in ([fold(t) for t in group] if isinstance(entry, PlainPair) else group)]
        flags, keys = leak_candidates(folded, sorted({*terms, *(m for _, e in staged if isinstance(e, PlainPair)
                                                                for m in (e.model_a, e.model_b))}))
        passed = iter(flags)
        looked = []
        for (seq, entry), group in zip(staged, texts, strict=True):
            if not isinstance(entry, PlainPair):
                for _ in group:
                    next(passed)
                looked.append((seq, entry))
            elif next(passed) | next(passed):  # both texts' flags taken
                looked.append((seq, entry.item()))
            else:
                slots = [slot for slot, text in (("A", entry.a), ("B", entry.b)) if not text or text.isspace()]
                if slots:
                    self.empty[seq] = slots
        if looked:
            self._record(looked, leaks_per_item([item for _, item in looked], extra_terms=terms))
        self.batches.append(_Batch(staged[0][0], staged[-1][0], scanned, keys))

    def _record(self, staged: Sequence[tuple[int, Item]], found: Sequence[list[Leak]]) -> None:
        for (seq, item), leaks in zip(staged, found, strict=True):
            if leaks:
                self.leaks[seq] = leaks
            else:
                self.leaks.pop(seq, None)
            slots = [r.slot for r in item.responses if not r.text or r.text.isspace()]
            if slots:
                self.empty[seq] = slots

    def finish(self, staging: ImportStaging, names: set[str]) -> tuple[list[Leak], list[tuple[str, str]]]:
        """Every leak and empty response of the rows staged now, in file order, under their settled ids,
        once `names` (every model name of the file) is known."""
        final = _scanned_names(names)
        terms = sorted(final)
        for batch in self.batches:
            late = final - batch.names
            if not late or (batch.keys is not None and not names_may_begin(late, batch.keys)):
                continue
            seqs = [seq for seq, responses in staging.responses_between(batch.first, batch.last)
                    if _may_name(responses, late)]
            staged = list(staging.items_at(seqs))
            again = [(seq, item) for (seq, item), maybe in zip(staged, may_mention([i for _, i in staged], late),
                                                                strict=True) if maybe]
            if again:
                self._record(again, leaks_per_item([item for _, item in again], extra_terms=terms))
        ids = staging.ids_of(sorted(self.leaks.keys() | self.empty.keys()))
        leaks = [Leak(ids[seq], leak.slot, leak.term) for seq in sorted(self.leaks) if seq in ids
                 for leak in self.leaks[seq]]
        empty = [(ids[seq], slot) for seq in sorted(self.empty) if seq in ids for slot in self.empty[seq]]
        return leaks, empty
