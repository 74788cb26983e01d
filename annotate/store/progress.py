"""How each annotator is doing, counted in SQL for the live dashboard (`annotate status --watch`).

Every figure is an aggregate: a refresh reads a few rows per annotator and a few per label,
whatever the session's size, and never builds one Python object per judgment. All of it is read
in one read transaction, so the figures of one refresh belong to one moment of the file even
while annotators write to it (WAL readers see a fixed snapshot and take no write lock).

The votes that count for quality and agreement follow the report's rules
(`annotate.report.context.prepare_votes`): current judgments that are not skips, with a label the
schema knows (pairwise `tie_inconsistent` counts as `tie`; rubric judgments count by their
scores), adjudication left out, judgments made under a planted suggestion left out. The
reference for gold accuracy is the item's gold label, else the adjudicators' label where they
agree; attention checks are measured apart. Progress (assigned, done, skipped, pace) counts every
judgment but adjudication.

The queries live here, and only here, so that they can read running tallies instead once the
session file keeps them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from annotate.store.store import Store

_LABEL_SQL = "CASE j.label WHEN 'tie_inconsistent' THEN 'tie' ELSE j.label END"


@dataclass(frozen=True)
class AnnotatorCounts:
    """One annotator's counts at one moment; times in milliseconds, open time in hours."""

    annotator_id: int
    name: str
    """As stored: untrusted text (it may come from an imported or merged file)."""
    cohort: str
    assigned: int
    """Assignments in the annotator's queue, adjudication left out."""
    done: int
    """Assignments with a current judgment that is not a skip."""
    skipped: int
    """Assignments whose current judgment is a skip."""
    recent: int
    """Judgments that are not skips submitted at or after the window's start."""
    open_hours: float
    """Hours the annotation app was open for the annotator (their sittings, from start to end or last beat)."""
    votes: int
    """Judgments that count as votes (see the module docstring)."""
    timed: int
    """Votes with an active (or, missing that, submit) time."""
    median_ms: float | None
    """Median of those times; None without one."""
    fast: int
    """Votes with a time under the fast threshold."""
    gold: int
    """Votes on items with a reference label (gold, or agreed adjudication), attention checks left out."""
    gold_correct: int
    attention: int
    """Votes on attention checks that have a gold label."""
    attention_failed: int
    pairs: int
    """Pairs (this annotator's vote, another annotator's vote) on the same item: one vote per annotator
    and item (the main one first), attention checks left out."""
    pairs_agreeing: int
    """Of those pairs, the ones with the same label."""
    open_flags: int | None
    """Open flags the annotator raised; None when the session file has no flags."""


@dataclass(frozen=True)
class Coincidences:
    """Krippendorff's coincidence matrix of the session's votes (one per annotator and item, attention
    checks left out), over the items that at least two annotators have voted on."""

    cells: tuple[tuple[str, str, float], ...]
    """(label c, label k, o_ck), both orders of each pair of labels."""
    items: int
    """Items with at least two votes (the pairable units)."""


@dataclass(frozen=True)
class ProgressCounts:
    """Everything one dashboard refresh reads from the file, read in one transaction."""

    items: int
    annotators: tuple[AnnotatorCounts, ...]
    """Annotators with at least one assignment (adjudication aside), by name."""
    coincidences: Coincidences
    has_flags: bool
    """Whether the session file keeps flags (its open flags are in `AnnotatorCounts.open_flags`)."""


def progress_counts(
    store: Store, *, labels: Sequence[str] | None, since: str, fast_ms: int
) -> ProgressCounts:
    """Read the dashboard's counts.

    labels: the labels a vote may carry (pairwise in slot space, grades as text); None for rubric
    sessions, whose judgments count as votes when they are not skips. since: UTC ISO-8601 time
    (as the store writes `submitted_at`) from which judgments count as `recent`. fast_ms: the
    fast-answer threshold in milliseconds.
    """
    db = store.db
    began = not db.conn.in_transaction
    if began:
        db.execute("BEGIN")
    try:
        votes, params = _votes_cte(labels)
        has_flags = _has_table(store, "flags")
        items = int(db.execute("SELECT count(*) FROM items").fetchone()[0])
        rows = db.execute(_per_annotator_sql(votes, has_flags), {**params, "since": since, "fast_ms": fast_ms}
                          ).fetchall()
        medians = dict(db.execute(_MEDIAN_SQL.format(votes=votes), params).fetchall())
        agreement: dict[int, tuple[int, int]] = {}
        cells: tuple[tuple[str, str, float], ...] = ()
        pairable = 0
        if labels is not None:  # rubric votes carry scores, not one label: no agreement on labels
            agreement = {
                r[0]: (int(r[1]), int(r[2])) for r in db.execute(_PAIRS_SQL.format(votes=votes), params).fetchall()
            }
            cells = tuple(
                (str(c), str(k), float(o))
                for c, k, o in db.execute(_COINCIDENCE_SQL.format(votes=votes), params).fetchall()
            )
            pairable = int(db.execute(_PAIRABLE_SQL.format(votes=votes), params).fetchone()[0])
    finally:
        if began:
            db.execute("COMMIT")
    annotators = tuple(
        AnnotatorCounts(
            annotator_id=int(r[0]), name=r[1], cohort=r[2], assigned=int(r[3]), done=int(r[4]),
            skipped=int(r[5]), recent=int(r[6]), open_hours=float(r[7] or 0.0), votes=int(r[8]),
            timed=int(r[9]), median_ms=None if medians.get(r[0]) is None else float(medians[r[0]]),
            fast=int(r[10]), gold=int(r[11]), gold_correct=int(r[12]), attention=int(r[13]),
            attention_failed=int(r[14]), pairs=agreement.get(r[0], (0, 0))[0],
            pairs_agreeing=agreement.get(r[0], (0, 0))[1], open_flags=None if not has_flags else int(r[15]),
        )
        for r in rows
    )
    return ProgressCounts(items, annotators, Coincidences(cells, pairable), has_flags)


def _has_table(store: Store, name: str) -> bool:
    return store.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).fetchone() \
        is not None


def _votes_cte(labels: Sequence[str] | None) -> tuple[str, dict[str, str]]:
    """`votes`: one row per vote (see the module docstring) with annotator, item, label, purpose, time
    and its rank among the annotator's votes on the item (`k` = 1: the main one first; attention
    checks ranked apart); and the query parameters it names (the labels)."""
    params = {f"label{i}": label for i, label in enumerate(labels or ())}
    valid = "j.label IS NULL" if labels is None else f"({_LABEL_SQL}) IN ({', '.join(':' + k for k in params)})"
    return (
        "votes AS (SELECT a.annotator_id AS r, a.item_id AS u, a.purpose AS purpose,"
        f" {_LABEL_SQL} AS c, j.id AS jid, coalesce(j.active_ms, j.submit_ms) AS ms,"
        " row_number() OVER (PARTITION BY a.annotator_id, a.item_id, a.purpose = 'attention'"
        "  ORDER BY a.purpose != 'main', j.id) AS k"
        " FROM judgments j JOIN assignments a ON a.id = j.assignment_id"
        " LEFT JOIN suggestions s ON s.id = a.suggestion_id"
        " WHERE j.superseded_by IS NULL AND j.skip_reason IS NULL AND a.purpose != 'adjudication'"
        f" AND coalesce(s.planted, 0) = 0 AND {valid})"
    ), params


_REFERENCE_CTE = (
    "adjudicated AS (SELECT a.item_id AS u, min(j.label) AS label FROM judgments j"
    " JOIN assignments a ON a.id = j.assignment_id"
    " WHERE a.purpose = 'adjudication' AND j.superseded_by IS NULL AND j.skip_reason IS NULL AND j.label IS NOT NULL"
    " GROUP BY a.item_id HAVING count(DISTINCT j.label) = 1),"
    " reference AS (SELECT i.id AS u, coalesce(i.gold, d.label) AS label FROM items i"
    " LEFT JOIN adjudicated d ON d.u = i.id WHERE coalesce(i.gold, d.label) IS NOT NULL)"
)
"""`reference`: the best known right answer per item: its gold label, else the adjudicated one
where the adjudicators agree (as `annotate.adjudication.reference_labels`)."""


def _per_annotator_sql(votes: str, has_flags: bool) -> str:
    """One row per annotator: queue counts, recent judgments, open hours, vote quality counts, open flags.
    Parameters: since, fast_ms and those of `votes`."""
    flags = (
        ", (SELECT count(*) FROM flags f WHERE f.annotator_id = n.id AND f.cleared IS NULL)" if has_flags else ""
    )
    return (
        f"WITH {votes}, {_REFERENCE_CTE},"
        " queue AS (SELECT a.annotator_id AS r, count(*) AS assigned,"
        "  sum(j.id IS NOT NULL AND j.skip_reason IS NULL) AS done, sum(j.skip_reason IS NOT NULL) AS skipped,"
        "  sum(j.skip_reason IS NULL AND j.submitted_at >= :since) AS recent"
        "  FROM assignments a LEFT JOIN judgments j ON j.assignment_id = a.id AND j.superseded_by IS NULL"
        "  WHERE a.purpose != 'adjudication' GROUP BY a.annotator_id),"
        " quality AS (SELECT v.r AS r, count(*) AS votes, count(v.ms) AS timed, sum(v.ms < :fast_ms) AS fast,"
        "  sum(v.purpose != 'attention' AND f.label IS NOT NULL) AS gold,"
        "  sum(v.purpose != 'attention' AND f.label IS NOT NULL AND v.c = f.label) AS gold_correct,"
        "  sum(v.purpose = 'attention' AND i.gold IS NOT NULL) AS attention,"
        "  sum(v.purpose = 'attention' AND i.gold IS NOT NULL AND v.c != i.gold) AS attention_failed"
        "  FROM votes v JOIN items i ON i.id = v.u LEFT JOIN reference f ON f.u = v.u GROUP BY v.r),"
        " open_time AS (SELECT annotator_id AS r, sum(coalesce(julianday(ended), 2440587.5 + heartbeat_unix / 86400.0)"
        "  - julianday(started)) * 24 AS hours FROM sittings GROUP BY annotator_id)"
        " SELECT n.id, n.name, n.cohort, q.assigned, coalesce(q.done, 0), coalesce(q.skipped, 0),"
        "  coalesce(q.recent, 0), max(coalesce(o.hours, 0), 0), coalesce(g.votes, 0), coalesce(g.timed, 0),"
        "  coalesce(g.fast, 0), coalesce(g.gold, 0), coalesce(g.gold_correct, 0), coalesce(g.attention, 0),"
        f"  coalesce(g.attention_failed, 0){flags}"
        " FROM annotators n JOIN queue q ON q.r = n.id LEFT JOIN quality g ON g.r = n.id"
        " LEFT JOIN open_time o ON o.r = n.id ORDER BY n.name"
    )


_MEDIAN_SQL = (
    "WITH {votes}, timed AS (SELECT r, ms, row_number() OVER (PARTITION BY r ORDER BY ms) AS k,"
    " count(*) OVER (PARTITION BY r) AS n FROM votes WHERE ms IS NOT NULL)"
    " SELECT r, avg(ms) FROM timed WHERE k IN ((n + 1) / 2, (n + 2) / 2) GROUP BY r"
)
"""Each annotator's median time per vote (the mean of the two middle ones for an even count)."""

_UNIQUE = (
    "WITH {votes}, one AS (SELECT r, u, c FROM votes WHERE k = 1 AND purpose != 'attention'),"
    " cell AS (SELECT u, c, count(*) AS n FROM one GROUP BY u, c),"
    " unit AS (SELECT u, sum(n) AS m FROM cell GROUP BY u HAVING sum(n) >= 2)"
)

_PAIRS_SQL = _UNIQUE + (
    " SELECT one.r, sum(unit.m - 1), sum(cell.n - 1) FROM one JOIN cell ON cell.u = one.u AND cell.c = one.c"
    " JOIN unit ON unit.u = one.u GROUP BY one.r"
)
"""Per annotator: pairs with other annotators' votes on shared items, and the agreeing ones."""

_COINCIDENCE_SQL = _UNIQUE + (
    " SELECT x.c, y.c, sum(x.n * (y.n - (x.c = y.c)) * 1.0 / (unit.m - 1)) FROM cell x"
    " JOIN cell y ON y.u = x.u JOIN unit ON unit.u = x.u GROUP BY x.c, y.c"
)
"""o_ck = sum over pairable items of n_uc (n_uk - [c = k]) / (m_u - 1) (Krippendorff 2011, section C)."""

_PAIRABLE_SQL = _UNIQUE + " SELECT count(*) FROM unit"
