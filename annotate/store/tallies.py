"""What a session holds, counted: read from the running tallies the tallies migration (v9) keeps (store/schema.py),
so the answer costs a few rows whatever the session's size (`annotate status`, the app's start).

`recount` computes the same figures from the rows themselves (a scan of the session), which is
what the tallies must always equal; the tests hold them to it.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotate.store.store import Store

UNCATEGORISED = "uncategorised"


@dataclass(frozen=True)
class AnnotatorTally:
    """One annotator's queue (every purpose, adjudication included) and their current judgments."""

    annotator_id: int
    name: str
    cohort: str
    assigned: int
    answered: int
    """Assignments with a current judgment, skips included."""
    skipped: int
    active_ms: int
    """Active time of the current judgments (skips included), in milliseconds."""

    @property
    def done(self) -> int:
        return self.answered - self.skipped


@dataclass(frozen=True)
class SessionTally:
    """The counts `annotate status` shows."""

    items: int
    gold: int
    categories: tuple[tuple[str, int], ...]
    """(category, items), most items first, then by name; no category counts as `uncategorised`."""
    labels: tuple[tuple[str, str, int], ...]
    """(source, cohort, imported labels), sorted."""
    suggestions: tuple[tuple[str, int, int, int], ...]
    """(source model, suggestions, planted suggestions, replies without a verdict), sorted by model."""
    annotators: tuple[AnnotatorTally, ...]
    """Annotators with at least one assignment, in the order they were created."""
    overlap: tuple[int, int] | None
    """(items judged by every annotator assigned, items assigned), adjudication left out; None
    without assignments."""


def session_tally(store: Store) -> SessionTally:
    """The session's counts from the tallies (a few rows, whatever the session's size)."""
    db = store.db
    categories: dict[str, int] = {}
    items = gold = 0
    for category, n, n_gold in db.execute('SELECT "category", "items", "gold" FROM "item_tally"'):
        items += n
        gold += n_gold
        if n:
            key = category or UNCATEGORISED
            categories[key] = categories.get(key, 0) + n
    labels = tuple(sorted(
        (source, cohort, n)
        for source, cohort, n in db.execute('SELECT "source", "cohort", "labels" FROM "label_tally" WHERE "labels" > 0')
    ))
    real: dict[str, int] = {}
    planted: dict[str, int] = {}
    for model, is_planted, n in db.execute(
        'SELECT "source_model", "planted", "suggestions" FROM "suggestion_tally" WHERE "suggestions" > 0'
    ):
        (planted if is_planted else real)[model] = n
    failed = dict(db.execute('SELECT "source_model", "failures" FROM "failure_tally" WHERE "failures" > 0').fetchall())
    models = sorted(set(real) | set(planted) | set(failed))
    annotators = tuple(
        AnnotatorTally(*row) for row in db.execute(
            'SELECT n."id", n."name", n."cohort", sum(p."assigned"), sum(p."answered"), sum(p."skipped"),'
            ' sum(p."active_ms") FROM "progress_tally" p JOIN "annotators" n ON n."id" = p."annotator_id"'
            ' GROUP BY n."id" HAVING sum(p."assigned") > 0 ORDER BY n."id"'
        )
    )
    assigned, full = db.execute('SELECT "items", "full" FROM "overlap_tally" WHERE "id" = 1').fetchone() or (0, 0)
    return SessionTally(
        items=items, gold=gold, categories=_ordered(categories), labels=labels,
        suggestions=tuple((m, real.get(m, 0), planted.get(m, 0), failed.get(m, 0)) for m in models),
        annotators=annotators, overlap=(full, assigned) if assigned else None,
    )


def recount(store: Store) -> SessionTally:
    """The same counts computed from the rows (a scan of the session): what the tallies must equal."""
    db = store.db
    categories: dict[str, int] = {}
    for category, n in db.execute('SELECT "category", count(*) FROM "items" GROUP BY 1'):
        key = category or UNCATEGORISED
        categories[key] = categories.get(key, 0) + n
    items, gold = db.execute('SELECT count(*), count("gold") FROM "items"').fetchone()
    labels = tuple(sorted(db.execute(
        'SELECT "source", "cohort", count(*) FROM "external_labels" GROUP BY 1, 2').fetchall()))
    real = dict(db.execute(
        'SELECT "source_model", count(*) FROM "suggestions" WHERE NOT coalesce("planted", 0) GROUP BY 1').fetchall())
    planted = dict(db.execute(
        'SELECT "source_model", count(*) FROM "suggestions" WHERE coalesce("planted", 0) GROUP BY 1').fetchall())
    failed = dict(db.execute('SELECT "source_model", count(*) FROM "suggestion_failures" GROUP BY 1').fetchall())
    models = sorted(set(real) | set(planted) | set(failed))
    annotators = tuple(
        AnnotatorTally(*row) for row in db.execute(
            'SELECT n."id", n."name", n."cohort", count(DISTINCT a."id"), count(j."id"), count(j."skip_reason"),'
            ' coalesce(sum(j."active_ms"), 0) FROM "assignments" a JOIN "annotators" n ON n."id" = a."annotator_id"'
            ' LEFT JOIN "judgments" j ON j."assignment_id" = a."id" AND j."superseded_by" IS NULL'
            ' GROUP BY n."id" ORDER BY n."id"'
        )
    )
    per_item = db.execute(
        'SELECT count(*), coalesce(sum("judged" >= "assigned"), 0) FROM (SELECT a."item_id", count(DISTINCT a."id")'
        ' AS "assigned", coalesce(sum(j."id" IS NOT NULL AND j."skip_reason" IS NULL), 0) AS "judged"'
        ' FROM "assignments" a LEFT JOIN "judgments" j ON j."assignment_id" = a."id" AND j."superseded_by" IS NULL'
        ' WHERE a."purpose" != \'adjudication\' GROUP BY a."item_id")'
    ).fetchone()
    return SessionTally(
        items=items, gold=gold, categories=_ordered(categories), labels=labels,
        suggestions=tuple((m, real.get(m, 0), planted.get(m, 0), failed.get(m, 0)) for m in models),
        annotators=annotators, overlap=(per_item[1], per_item[0]) if per_item[0] else None,
    )


def _ordered(categories: dict[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(categories.items(), key=lambda kv: (-kv[1], kv[0])))
