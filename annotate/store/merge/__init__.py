"""`annotate merge`: bring judgments and events from copies of a session back into it.

A lead hands an annotator a copy of the session file; the annotator works offline; the lead
merges the copy back. The copy is opened read-only and never changed.

- Assignments are matched by their natural key (annotator name, item id, queue position), not
  by row id, so a copy made at any time (or a file of another session with the same items)
  merges correctly. An assignment the session lacks is created when its annotator's queue
  position is free (its item and annotator are copied when missing); a position already used
  by another item, a different side mapping or a different cohort is a conflict.
- Judgments and events are matched by their globally unique `uid`: a uid already present means
  already merged and is skipped, so merging the same file twice changes nothing.
- Revisions are reproduced: a judgment the copy superseded is superseded here too, by the same
  judgment. A judgment's error spans come with it (by its uid); spans are part of its answer, so
  two answers that differ only in their spans are a conflict like any other.
- A conflict is one assignment whose current judgment differs between the two files, neither
  having seen the other's (different uids, neither in the other's history) and with different
  answers. It is reported (annotator, item, position, both answers) and nothing of that
  assignment is written: no judgment and no event. Everything else is merged, unless `strict`,
  which writes nothing at all when there is a conflict. When both files hold independent
  judgments with the same answer, the copy's are kept as history of this file's one, which
  stays current.
- Settling: with `prefer="copy"` or `prefer="here"` such a conflict is merged instead, and both
  judgments are kept. `copy`: the copy's judgments come in and its current one supersedes this
  file's (which stays, as history). `here`: the copy's judgments come in as history of this
  file's current one, which stays current. Either way the copy's judgments are now here (by
  uid), so merging the file again finds nothing new and no conflict; each settlement is listed
  in the merge log (`details.settled`: who, what, both answers and uids, which side was kept).
  Conflicts of place (a queue position holding another item, sides or cohorts that differ) are
  never settled this way.
- Everything happens in one transaction, and each merge is logged in the `merges` table (file,
  SHA-256, time, counts, conflicts).

Modules:
    results    -- what a merge reports (conflicts, settlements, counts) and the strict merge's error.
    source     -- the copy, opened read-only and checked, its rows read once.
    matching   -- annotators, items and assignments matched by natural key, or conflicts of place.
    judgments  -- answers compared; one assignment's judgments merged, conflicts and settlements.
    merging    -- `merge_session` (one transaction, logged) and `merge_log`.
"""

from annotate.store.merge.merging import merge_log, merge_session
from annotate.store.merge.results import PREFER, MergeConflict, MergeConflictError, MergeReport, Settled
from annotate.store.merge.source import file_sha256, open_read_only

__all__ = [
    "PREFER",
    "MergeConflict",
    "MergeConflictError",
    "MergeReport",
    "Settled",
    "file_sha256",
    "merge_log",
    "merge_session",
    "open_read_only",
]
