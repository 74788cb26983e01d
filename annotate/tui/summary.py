"""What an annotator's queue holds when the app exits: the one line the CLI prints after it.

No Textual here: `run_app` builds a `SittingSummary` from the queue once the app has quit and every
queued write has landed; the CLI prints `summary.line(resume_command)`.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotate.tui.queue import Queue


@dataclass(frozen=True)
class SittingSummary:
    """Counts of one annotator's queue at the end of a sitting."""

    total: int
    """Assignments in the queue."""
    answered: int
    """Assignments whose current judgment is an answer (skips not included)."""
    skipped: int
    """Assignments whose current judgment is a skip."""
    unsaved: int = 0
    """Writes that failed in this sitting (the app said NOT SAVED); 0 when everything landed."""
    stale: int = 0
    """Answers refused because the lead planned the session again and their item had left the queue."""
    stopped_by: str = ""
    """`terminated` when a signal stopped the app (after every queued write landed)."""
    unwritten: int = 0
    """Assignments of a newcomer's queue not yet written when the app stopped (the next start writes them)."""

    @classmethod
    def of(cls, queue: Queue, unsaved: int = 0, stale: int = 0, stopped_by: str = "",
           unwritten: int = 0) -> SittingSummary:
        skipped = queue.skipped
        return cls(total=len(queue), answered=queue.done - skipped, skipped=skipped, unsaved=unsaved,
                   stale=stale, stopped_by=stopped_by, unwritten=unwritten)

    def line(self, resume: str) -> str:
        """One line for the terminal, ending with the command that resumes (`resume`).

        >>> SittingSummary(46, 3, 1).line("annotate demo")
        '3 of 46 answered, 1 skipped, all saved; resume with: annotate demo'
        >>> SittingSummary(300, 3, 0, unwritten=9_700).line("annotate demo")
        '3 of 10,000 answered, all saved; 9,700 more join your queue on your next start; resume with: annotate demo'
        """
        if self.unwritten:
            counts = f"{self.answered:,} of {self.total + self.unwritten:,} answered"
            counts += f", {self.skipped:,} skipped" if self.skipped else ""
            verb = "resume with"
        elif self.answered + self.skipped == self.total:
            counts = f"All {self.total} items have an answer"
            counts += f" ({self.skipped} skipped)" if self.skipped else ""
            verb = "revise with"
        else:
            counts = f"{self.answered} of {self.total} answered"
            counts += f", {self.skipped} skipped" if self.skipped else ""
            verb = "resume with"
        saved = "all saved" if not self.unsaved else f"{self.unsaved} write(s) NOT saved"
        if self.stale:
            saved += f" ({self.stale} answer(s) refused: their item had left your queue after a new plan)"
        if self.unwritten:
            saved += f"; {self.unwritten:,} more join your queue on your next start"
        stopped = f"stopped ({self.stopped_by}) after the last write landed; " if self.stopped_by else ""
        return f"{stopped}{counts}, {saved}; {verb}: {resume}"
