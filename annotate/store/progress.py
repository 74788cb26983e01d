"""How each annotator is doing, counted in SQL for the live dashboard (`annotate status --watch`).

Every figure is read from running tallies (annotate/store/tallies.py, annotate/store/vote_tallies.py)
or from an index range: a refresh reads a few rows per annotator and label, plus the votes on the
items with a right answer, the judgments of the pace window and, per annotator, half an index
walk for the median time; it never builds one Python object per judgment. All of it is read in
one read transaction, so the figures of one refresh belong to one moment of the file even while
annotators write to it (WAL readers see a fixed snapshot and take no write lock).

The votes that count for quality and agreement follow the report's rules
(`annotate.report.context.prepare_votes`): current judgments that are not skips, with a label the
schema knows (pairwise `tie_inconsistent` counts as `tie`; rubric judgments count by their
scores), adjudication left out, judgments made under a planted suggestion left out. The
reference for gold accuracy is the item's gold label, else the adjudicators' label where they
agree; attention checks are measured apart. Progress (assigned, done, skipped, pace) counts every
judgment but adjudication.

Agreement is counted by a scan (`annotate.store.progress_scan`, the recount the tests hold the
tallies to) while a vote carries a label the schema does not know: the tallies pair every stored
label, the report leaves such votes out.
"""

from __future__ import annotations

from collections.abc import Sequence

from annotate.store.progress_scan import (
    REFERENCE_CTES,
    golds_cte,
    has_table,
    labels_cte,
    query_params,
    read_snapshot,
    scan_agreement,
)
from annotate.store.progress_types import AnnotatorCounts, Coincidences, GoldRow, LabelRow, ProgressCounts
from annotate.store.store import Store

__all__ = ["AnnotatorCounts", "Coincidences", "GoldRow", "LabelRow", "ProgressCounts", "progress_counts"]


def progress_counts(
    store: Store, *, labels: Sequence[LabelRow] | None, gold: Sequence[GoldRow] = (), since: str, fast_ms: int
) -> ProgressCounts:
    """Read the dashboard's counts.

    labels: every label a vote may carry, as LabelRows (the caller maps them from the label schema:
    slot space, an inconsistent tie as a tie, a graded strength's preference); None when a vote is
    any judgment that is not a skip (rubric scores, rankings: no agreement on labels here). gold:
    how an item's gold (or adjudicated) label reads as an answer; a vote is right when its answer
    equals it. since: UTC ISO-8601 time (as the store writes `submitted_at`) from which judgments
    count as `recent`. fast_ms: the fast-answer threshold in milliseconds.
    """
    db = store.db
    pairs = list(labels or ())
    params = query_params(pairs, gold, since, fast_ms)
    known = _known(pairs)
    with read_snapshot(db):
        has_flags = has_table(store, "flags")
        items = int(db.execute('SELECT coalesce(sum("items"), 0) FROM "item_tally"').fetchone()[0])
        queues = db.execute(
            'SELECT n."id", n."name", n."cohort", p."assigned", p."answered" - p."skipped", p."skipped"'
            ' FROM "progress_tally" p JOIN "annotators" n ON n."id" = p."annotator_id"'
            ' WHERE p."adjudication" = 0 AND p."assigned" > 0 ORDER BY n."name"'
        ).fetchall()
        recent = dict(db.execute(_RECENT_SQL, params).fetchall())
        open_hours = dict(db.execute(_OPEN_HOURS_SQL).fetchall())
        votes = {r: (v, t) for r, v, t in db.execute(
            f'SELECT "annotator_id", sum("votes"), sum("timed") FROM "vote_label_tally" WHERE {known}'
            ' GROUP BY 1', params)}
        quality = {r[0]: r[1:] for r in db.execute(_quality_sql(pairs, len(gold)), params)}
        flags = dict(db.execute(
            'SELECT "annotator_id", count(*) FROM "flags" WHERE "cleared" IS NULL GROUP BY 1').fetchall()
        ) if has_flags else {}
        counted = []
        for r, name, cohort, assigned, done, skipped in queues:
            n_votes, timed = votes.get(r, (0, 0))
            fast = db.execute(
                f'SELECT count(*) FROM "vote_index" WHERE "annotator_id" = :r AND "ms" < :fast_ms AND {known}',
                {**params, "r": r}).fetchone()[0]
            gold_n, gold_correct, attention, attention_failed = quality.get(r, (0, 0, 0, 0))
            counted.append((r, name, cohort, assigned, done, skipped, n_votes, timed, fast,
                            gold_n, gold_correct, attention, attention_failed))
        medians = {r[0]: _median(store, r[0], int(r[7] or 0), known, params) for r in counted}
        if labels is None:
            agreement, coincidences = {}, Coincidences((), 0)
        elif _unknown_labels(store, known, params):
            agreement, coincidences = scan_agreement(store, pairs, params)
        else:
            agreement, coincidences = _tallied_agreement(store, pairs, params)
    annotators = tuple(
        AnnotatorCounts(
            annotator_id=int(r), name=name, cohort=cohort, assigned=int(assigned), done=int(done or 0),
            skipped=int(skipped or 0), recent=int(recent.get(r) or 0),
            open_hours=max(float(open_hours.get(r) or 0.0), 0.0), votes=int(n_votes or 0), timed=int(timed or 0),
            median_ms=medians[r], fast=int(fast or 0), gold=int(gold_n or 0), gold_correct=int(gold_correct or 0),
            attention=int(attention or 0), attention_failed=int(attention_failed or 0),
            pairs=agreement.get(r, (0, 0))[0], pairs_agreeing=agreement.get(r, (0, 0))[1],
            open_flags=int(flags.get(r, 0)) if has_flags else None,
        )
        for r, name, cohort, assigned, done, skipped, n_votes, timed, fast, gold_n, gold_correct, attention,
        attention_failed in counted
    )
    return ProgressCounts(items, annotators, coincidences, has_flags)


def _known(pairs: list[LabelRow]) -> str:
    """The condition on a `label` column that makes a vote row a vote: a label the schema knows (any, for
    rubric and ranking sessions, whose judgments count by their scores or order)."""
    if not pairs:
        return "1"
    return f'"label" IN ({", ".join(f":raw{i}" for i in range(len(pairs)))})'


_RECENT_SQL = (
    'SELECT a."annotator_id", count(*) FROM "judgments" j INDEXED BY "idx_judgments_recent"'
    ' JOIN "assignments" a ON a."id" = j."assignment_id"'
    ' WHERE j."superseded_by" IS NULL AND j."submitted_at" >= :since AND j."skip_reason" IS NULL'
    ' AND a."purpose" != \'adjudication\' GROUP BY 1'
)
"""Judgments that are not skips submitted in the window, per annotator: a range of the index."""

_OPEN_HOURS_SQL = (
    'SELECT "annotator_id", sum(coalesce(julianday("ended"), 2440587.5 + "heartbeat_unix" / 86400.0)'
    ' - julianday("started")) * 24 FROM "sittings" GROUP BY 1'
)


def _quality_sql(pairs: list[LabelRow], n_gold: int) -> str:
    """Per annotator: votes on reference items (attention checks left out) and the right ones; votes on
    attention checks with a gold label and the failed ones. From the few items with a right answer (CROSS
    JOIN: SQLite would otherwise walk every vote and look its item up)."""
    join = 'JOIN labels l ON l.raw = v."label"' if pairs else ""
    answer = "l.answer" if pairs else "NULL"
    return (
        f"WITH {labels_cte(pairs)}, {golds_cte(n_gold)}, {REFERENCE_CTES},"
        " checked AS (SELECT v.annotator_id AS r, v.purpose = 'attention' AS att, f.ref AS ref, f.gold AS gold,"
        f"  {answer} AS c FROM reference f CROSS JOIN vote_index v ON v.item_id = f.u {join})"
        " SELECT r, sum(NOT att), sum(NOT att AND c = ref), sum(att AND gold IS NOT NULL),"
        "  sum(att AND gold IS NOT NULL AND c != gold) FROM checked GROUP BY r"
    )


def _median(store: Store, annotator_id: int, timed: int, known: str, params: dict[str, object]) -> float | None:
    """The median time of the annotator's `timed` timed votes (the mean of the two middle ones for an even
    count): the middle of their slice of the (annotator, time) index."""
    if timed <= 0:
        return None
    value = store.db.execute(
        f'SELECT avg("ms") FROM (SELECT "ms" FROM "vote_index" WHERE "annotator_id" = :r AND "ms" IS NOT NULL'
        f' AND {known} ORDER BY "ms" LIMIT :take OFFSET :skip)',
        {**params, "r": annotator_id, "take": 2 - timed % 2, "skip": (timed - 1) // 2},
    ).fetchone()[0]
    return None if value is None else float(value)


def _unknown_labels(store: Store, known: str, params: dict[str, object]) -> bool:
    """Whether a vote row carries a label the schema does not know (then agreement is scanned)."""
    return store.db.execute(
        f'SELECT 1 FROM "vote_label_tally" WHERE "votes" > 0 AND NOT ({known}) LIMIT 1', params
    ).fetchone() is not None


def _tallied_agreement(
    store: Store, pairs: list[LabelRow], params: dict[str, object]
) -> tuple[dict[int, tuple[int, int]], Coincidences]:
    """Agreement so far and the coincidence matrix from the pair tallies, stored labels mapped to the
    values agreement compares (exact: every count is linear in the pairs)."""
    db = store.db
    cte = f"WITH {labels_cte(pairs)}"
    agreement = {
        int(r): (int(n), int(same)) for r, n, same in db.execute(
            f'{cte} SELECT t."annotator_id", sum(t."pairs"), sum(t."pairs" * (x.c = y.c)) FROM "agreement_tally" t'
            ' JOIN labels x ON x.raw = t."c" JOIN labels y ON y.raw = t."k" GROUP BY 1 HAVING sum(t."pairs") > 0',
            params,
        )
    }
    cells = tuple(
        (str(c), str(k), float(o)) for c, k, o in db.execute(
            f'{cte} SELECT x.c, y.c, sum(t."pairs" * 1.0 / (t."m" - 1)) FROM "coincidence_tally" t'
            ' JOIN labels x ON x.raw = t."c" JOIN labels y ON y.raw = t."k" WHERE t."m" >= 2 AND t."pairs" != 0'
            ' GROUP BY 1, 2',
            params,
        )
    )
    units = db.execute('SELECT coalesce(sum("items"), 0) FROM "unit_tally" WHERE "m" >= 2').fetchone()[0]
    return agreement, Coincidences(cells, int(units))
