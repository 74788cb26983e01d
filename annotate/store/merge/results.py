"""What a merge reports: conflicts left, conflicts settled, the counts of what came in, and the error
a strict merge raises."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotate.store.store import StoreError
from annotate.text import plural


@dataclass(frozen=True)
class MergeConflict:
    """One assignment that could not be merged; nothing of it was written."""

    annotator: str
    item_id: str
    position: int
    ours: str
    """This session's current answer (or what occupies the place)."""
    theirs: str
    """The copy's current answer (or what it has in that place)."""
    reason: str
    settleable: bool = False
    """True for two different answers, which `prefer` can settle; False for a conflict of place."""


@dataclass(frozen=True)
class Settled:
    """A conflict of answers that `prefer` settled: both judgments are kept, `kept`'s is current."""

    annotator: str
    item_id: str
    position: int
    ours: str
    theirs: str
    kept: str
    """`copy` or `here`."""
    ours_uid: str
    theirs_uid: str


PREFER = ("copy", "here")
"""How a conflict of answers may be settled (`merge_session(prefer=...)`)."""


@dataclass(frozen=True)
class MergeReport:
    """What a merge did (or, when `written` is False, would have done)."""

    source: str
    sha256: str
    items: int = 0
    annotators: int = 0
    assignments: int = 0
    judgments: int = 0
    events: int = 0
    already: int = 0
    """Judgments of the copy already in this session (merged before, or made before the copy)."""
    duplicates: int = 0
    """Assignments judged independently in both files with the same answer (kept as history)."""
    conflicts: tuple[MergeConflict, ...] = ()
    written: bool = True
    settled: tuple[Settled, ...] = ()
    """Conflicts of answers settled by `prefer` (merged, both judgments kept)."""

    @property
    def changed(self) -> bool:
        return any((self.items, self.annotators, self.assignments, self.judgments, self.events))


class MergeConflictError(StoreError):
    """A strict merge refused because of conflicts; nothing was written."""

    def __init__(self, report: MergeReport) -> None:
        self.report = report
        super().__init__(
            f"{plural(len(report.conflicts), 'conflict')} in {report.source}; nothing was merged (strict)"
        )


class _Abort(Exception):
    pass


@dataclass
class _Counts:
    items: int = 0
    annotators: int = 0
    assignments: int = 0
    judgments: int = 0
    events: int = 0
    already: int = 0
    duplicates: int = 0
    conflicts: list[MergeConflict] = field(default_factory=list)
    settled: list[Settled] = field(default_factory=list)


def _report(source: str, sha: str, counts: _Counts, written: bool) -> MergeReport:
    return MergeReport(
        source=source, sha256=sha, items=counts.items, annotators=counts.annotators,
        assignments=counts.assignments, judgments=counts.judgments, events=counts.events,
        already=counts.already, duplicates=counts.duplicates, conflicts=tuple(counts.conflicts),
        written=written, settled=tuple(counts.settled),
    )
