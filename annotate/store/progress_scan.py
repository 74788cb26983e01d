"""The dashboard's counts computed from the rows themselves: a scan of the session's judgments and
assignments (what `annotate.store.progress` reads from its running tallies must equal it).

Used for agreement when a vote carries a label the schema does not know, and by the tests as the
recount the tallies are held to. The rules for which judgments count are `annotate.store.progress`'s.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from annotate.store.progress_types import AnnotatorCounts, Coincidences, GoldRow, LabelRow, ProgressCounts
from annotate.store.store import Store


@contextmanager
def read_snapshot(db: Any) -> Iterator[None]:
    """One read transaction around every query of a count, so all figures come from one snapshot of
    the file (a WAL reader: writers are not locked out); inside a caller's transaction, that one."""
    began = not db.conn.in_transaction
    if began:
        db.execute("BEGIN")
    try:
        yield
    finally:
        if began:
            db.execute("COMMIT")


def scan_progress_counts(
    store: Store, *, labels: Sequence[LabelRow] | None, gold: Sequence[GoldRow] = (), since: str, fast_ms: int
) -> ProgressCounts:
    """The counts of `annotate.store.progress.progress_counts` (same arguments, same result), by
    scanning judgments and assignments instead of reading the tallies: the tests' recount, and the
    fallback when a vote carries a label the schema does not know."""
    db = store.db
    pairs = list(labels or ())
    params = query_params(pairs, gold, since, fast_ms)
    with read_snapshot(db):
        has_flags = has_table(store, "flags")
        items = int(db.execute("SELECT count(*) FROM items").fetchone()[0])
        rows = db.execute(_annotators_sql(pairs, len(gold), has_flags), params).fetchall()
        medians = dict(db.execute(_median_sql(pairs), params).fetchall())
        agreement, coincidences = ({}, Coincidences((), 0)) if labels is None else scan_agreement(store, pairs, params)
    annotators = tuple(
        AnnotatorCounts(
            annotator_id=int(r[0]), name=r[1], cohort=r[2], assigned=int(r[3]), done=int(r[4] or 0),
            skipped=int(r[5] or 0), recent=int(r[6] or 0), open_hours=max(float(r[7] or 0.0), 0.0),
            votes=int(r[8] or 0), timed=int(r[9] or 0),
            median_ms=None if medians.get(r[0]) is None else float(medians[r[0]]),
            fast=int(r[10] or 0), gold=int(r[11] or 0), gold_correct=int(r[12] or 0), attention=int(r[13] or 0),
            attention_failed=int(r[14] or 0), pairs=agreement.get(r[0], (0, 0))[0],
            pairs_agreeing=agreement.get(r[0], (0, 0))[1], open_flags=int(r[15]) if has_flags else None,
        )
        for r in rows
    )
    return ProgressCounts(items, annotators, coincidences, has_flags)


def query_params(pairs: Sequence[LabelRow], gold: Sequence[GoldRow], since: str, fast_ms: int) -> dict[str, object]:
    """The named parameters of the queries: the window's start, the fast threshold, the LabelRows and GoldRows."""
    params: dict[str, object] = {"since": since, "fast_ms": fast_ms}
    for i, (raw, value, answer) in enumerate(pairs):
        params[f"raw{i}"], params[f"label{i}"], params[f"answer{i}"] = raw, value, answer
    for i, (raw, answer) in enumerate(gold):
        params[f"gold{i}"], params[f"gold_answer{i}"] = raw, answer
    return params


def scan_agreement(
    store: Store, pairs: list[LabelRow], params: dict[str, object]
) -> tuple[dict[int, tuple[int, int]], Coincidences]:
    """(annotator id -> (pairs, agreeing pairs), the coincidence matrix), from a scan of the votes."""
    agreement: dict[int, tuple[int, int]] = {}
    cells: list[tuple[str, str, float]] = []
    pairable = 0
    for kind, a, b, c in store.db.execute(agreement_sql(pairs), params).fetchall():
        if kind == "pairs":
            agreement[int(a)] = (int(b), int(c))
        elif kind == "o":
            cells.append((str(a), str(b), float(c)))
        else:
            pairable = int(a)
    return agreement, Coincidences(tuple(cells), pairable)


def has_table(store: Store, name: str) -> bool:
    return store.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).fetchone() \
        is not None


def labels_cte(pairs: list[LabelRow]) -> str:
    """`labels(raw, c, answer)`: the LabelRows (a join on it is the validity test: one lookup per row,
    where `label IN (...)` would be evaluated again in every sum that needs it)."""
    if not pairs:
        return "labels(raw, c, answer) AS (SELECT NULL, NULL, NULL WHERE 0)"
    rows = ", ".join(f"(:raw{i}, :label{i}, :answer{i})" for i in range(len(pairs)))
    return f"labels(raw, c, answer) AS (VALUES {rows})"


def golds_cte(n_gold: int) -> str:
    """`golds(raw, answer)`: the GoldRows."""
    if not n_gold:
        return "golds(raw, answer) AS (SELECT NULL, NULL WHERE 0)"
    rows = ", ".join(f"(:gold{i}, :gold_answer{i})" for i in range(n_gold))
    return f"golds(raw, answer) AS (VALUES {rows})"


def _valid(pairs: list[LabelRow]) -> tuple[str, str]:
    """(join, condition) that make a current judgment `j` a vote: a known label (any non-skip for rubric)."""
    if not pairs:
        return "", "j.id IS NOT NULL AND j.skip_reason IS NULL"
    return "LEFT JOIN labels l ON l.raw = j.label", "l.c IS NOT NULL AND j.skip_reason IS NULL"


REFERENCE_CTES = (
    # Adjudication votes first (the few adjudication assignments, by their index; CROSS JOIN keeps
    # SQLite from walking every current judgment instead), grouped after: grouping in the same query
    # walks every assignment in item order and looks up each one's judgment.
    "adjudication AS MATERIALIZED (SELECT a.item_id AS u, j.label AS label FROM assignments a"
    " CROSS JOIN judgments j ON j.assignment_id = a.id AND j.superseded_by IS NULL"
    " WHERE a.purpose = 'adjudication' AND j.skip_reason IS NULL AND j.label IS NOT NULL),"
    " adjudicated AS (SELECT u, min(label) AS label FROM adjudication GROUP BY u HAVING count(DISTINCT label) = 1),"
    " known AS (SELECT i.id AS u, i.gold AS gold, i.gold AS ref FROM items i WHERE i.gold IS NOT NULL"
    " UNION ALL SELECT d.u, NULL, d.label FROM adjudicated d JOIN items i ON i.id = d.u WHERE i.gold IS NULL),"
    " reference AS MATERIALIZED (SELECT k.u AS u, g.answer AS gold, r.answer AS ref FROM known k"
    " LEFT JOIN golds g ON g.raw = k.gold LEFT JOIN golds r ON r.raw = k.ref WHERE r.answer IS NOT NULL)"
)
"""`reference`: items with a known right answer: their gold label, else the adjudicated one where the
adjudicators agree (as `annotate.adjudication.reference_labels`); a few rows, looked up per vote."""


def _annotators_sql(pairs: list[LabelRow], n_gold: int, has_flags: bool) -> str:
    """One row per annotator with a queue, from one pass over their assignments in queue order:
    queue counts, recent judgments, open hours, vote counts for time, gold and attention, open flags."""
    join, valid = _valid(pairs)
    answer = "l.answer" if pairs else "NULL"
    flags = (
        ", (SELECT count(*) FROM flags f WHERE f.annotator_id = n.id AND f.cleared IS NULL)" if has_flags else ""
    )
    return (
        f"WITH {labels_cte(pairs)}, {golds_cte(n_gold)}, {REFERENCE_CTES},"
        " q AS (SELECT a.annotator_id AS r, j.id AS jid, j.skip_reason AS skip, j.submitted_at AS at,"
        f"  coalesce(j.active_ms, j.submit_ms) AS ms, {valid} AND coalesce(s.planted, 0) = 0 AS vote"
        "  FROM assignments a LEFT JOIN judgments j ON j.assignment_id = a.id AND j.superseded_by IS NULL"
        f"  {join} LEFT JOIN suggestions s ON s.id = a.suggestion_id WHERE a.purpose != 'adjudication'),"
        " queue AS (SELECT r, count(*) AS assigned, sum(jid IS NOT NULL AND skip IS NULL) AS done,"
        "  sum(skip IS NOT NULL) AS skipped, sum(skip IS NULL AND at >= :since) AS recent,"
        "  sum(vote) AS votes, sum(vote AND ms IS NOT NULL) AS timed, sum(vote AND ms < :fast_ms) AS fast"
        "  FROM q GROUP BY r),"
        # Gold and attention counts start from the few items with a right answer (index on item_id),
        # not from every vote: one lookup per reference item instead of one per vote.
        " checked AS (SELECT a.annotator_id AS r, a.purpose = 'attention' AS att, f.ref AS ref, f.gold AS gold,"
        f"  {answer} AS c FROM reference f JOIN assignments a ON a.item_id = f.u"
        "  JOIN judgments j ON j.assignment_id = a.id AND j.superseded_by IS NULL"
        f"  {join} LEFT JOIN suggestions s ON s.id = a.suggestion_id"
        f"  WHERE a.purpose != 'adjudication' AND {valid} AND coalesce(s.planted, 0) = 0),"
        " quality AS (SELECT r, sum(NOT att) AS gold, sum(NOT att AND c = ref) AS gold_correct,"
        "  sum(att AND gold IS NOT NULL) AS attention, sum(att AND gold IS NOT NULL AND c != gold) AS attention_failed"
        "  FROM checked GROUP BY r),"
        " open_time AS (SELECT annotator_id AS r, sum(coalesce(julianday(ended), 2440587.5 + heartbeat_unix / 86400.0)"
        "  - julianday(started)) * 24 AS hours FROM sittings GROUP BY annotator_id)"
        " SELECT n.id, n.name, n.cohort, q.assigned, q.done, q.skipped, q.recent, o.hours, q.votes, q.timed,"
        f"  q.fast, g.gold, g.gold_correct, g.attention, g.attention_failed{flags}"
        " FROM annotators n JOIN queue q ON q.r = n.id LEFT JOIN quality g ON g.r = n.id"
        " LEFT JOIN open_time o ON o.r = n.id ORDER BY n.name"
    )


def _votes_cte(pairs: list[LabelRow]) -> str:
    """`votes`: one row per vote: annotator r, item u, label c, purpose p, judgment id, time ms."""
    join, valid = _valid(pairs)
    label = "l.c" if pairs else "NULL"
    return (
        f"{labels_cte(pairs)}, votes AS (SELECT a.annotator_id AS r, a.item_id AS u, {label} AS c,"
        " a.purpose AS p, j.id AS jid, coalesce(j.active_ms, j.submit_ms) AS ms"
        f" FROM judgments j JOIN assignments a ON a.id = j.assignment_id {join}"
        " LEFT JOIN suggestions s ON s.id = a.suggestion_id"
        f" WHERE j.superseded_by IS NULL AND a.purpose != 'adjudication' AND {valid} AND coalesce(s.planted, 0) = 0)"
    )


def _median_sql(pairs: list[LabelRow]) -> str:
    """Each annotator's median time per vote (the mean of the two middle ones for an even count)."""
    return (
        f"WITH {_votes_cte(pairs)}, timed AS (SELECT r, ms, row_number() OVER (PARTITION BY r ORDER BY ms) AS k,"
        " count(*) OVER (PARTITION BY r) AS n FROM votes WHERE ms IS NOT NULL)"
        " SELECT r, avg(ms) FROM timed WHERE k IN ((n + 1) / 2, (n + 2) / 2) GROUP BY r"
    )


def agreement_sql(pairs: list[LabelRow]) -> str:
    """Rows tagged `pairs` (annotator, pairs with others on shared items, agreeing pairs), `o` (label c,
    label k, o_ck) and `units` (pairable items), from one vote per annotator and item: the main one,
    else the first (the report's `unique_votes`), attention checks left out.

    o_ck = sum over items with m_u >= 2 votes of n_uc (n_uk - [c = k]) / (m_u - 1) (Krippendorff 2011)."""
    return (
        f"WITH {_votes_cte(pairs)},"
        " one AS MATERIALIZED (SELECT r, u, c, min((p != 'main') * 1000000000000 + jid) FROM votes"
        "  WHERE p != 'attention' GROUP BY r, u),"  # c is the row of the min (SQLite's bare column rule)
        " cell AS MATERIALIZED (SELECT u, c, count(*) AS n FROM one GROUP BY u, c),"
        " unit AS MATERIALIZED (SELECT u, sum(n) AS m FROM cell GROUP BY u HAVING sum(n) >= 2)"
        " SELECT 'pairs', one.r, sum(unit.m - 1), sum(cell.n - 1) FROM one JOIN unit ON unit.u = one.u"
        "  JOIN cell ON cell.u = one.u AND cell.c = one.c GROUP BY one.r"
        " UNION ALL SELECT 'o', x.c, y.c, sum(x.n * (y.n - (x.c = y.c)) * 1.0 / (unit.m - 1)) FROM unit"
        "  JOIN cell x ON x.u = unit.u JOIN cell y ON y.u = unit.u GROUP BY x.c, y.c"
        " UNION ALL SELECT 'units', count(*), NULL, NULL FROM unit"
    )
