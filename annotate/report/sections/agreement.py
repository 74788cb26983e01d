"""Agreement: overall, per cohort, each annotator against the rest, per category and criterion."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from annotate.frame_codes import filled, nunique
from annotate.report.cells import estimate_cell, interval_cell
from annotate.report.context import (
    Context,
    cohort_of_raters,
    cohorts_of,
    label_text,
    long_votes,
    more_raters,
    not_enough,
)
from annotate.report.model import Chart, Column, NotEnough, Section, Table
from annotate.report.tables import (
    ALPHA_NOTE,
    ITEM_CI_NOTE,
    agreement_tables,
    pair_table,
    reading,
)
from annotate.text import plural

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store import Store


_SUMMARY_COLUMNS = (
    Column("alpha", "num"), Column("alpha 95 % CI", "ci"), Column("reading"), Column("Fleiss", "num"),
    Column("AC1", "num"), Column("percent", "num"), Column("units", "int"), Column("raters", "int"),
    Column("pairable", "int"),
)


_COLUMN_NOTE = ("Columns: Fleiss = Fleiss' kappa, AC1 = Gwet's AC1, percent = percent agreement, pairable = "
                "pairable values (ratings in units with two or more).")


def _summary_row(name: str, table: Any) -> tuple[Any, ...]:
    a, p = table.krippendorff_alpha, table.percent_agreement
    return (name, estimate_cell(a), interval_cell(a), reading(a) if a.defined else None,
            estimate_cell(table.fleiss_kappa), estimate_cell(table.gwet_ac1), estimate_cell(p), a.n_units, a.n_raters,
            a.n_pairable)


NO_COHORT = "no cohort has two raters on the same items"


MAX_PAIRS = 45
"""Cohen's kappa is computed for at most this many rater pairs overall and within the expert, author and llm
cohorts (those with most units in common): every pair of ten raters.  Text, Markdown and HTML list
them all; so does the JSON."""
MAX_PAIRS_SUBSET = 10
"""... and for at most this many pairs within the crowd cohort (hundreds of raters) and per category
or criterion (JSON only)."""
PAIRS_PER_COHORT = {"expert": MAX_PAIRS, "author": MAX_PAIRS, "llm": MAX_PAIRS}
"""Cohorts whose pairs are all worth reading; any other cohort gets MAX_PAIRS_SUBSET."""


Known = tuple["pd.DataFrame", Any, Any]
"""Ratings coded before on the section's categories: the ratings, their `coded_ratings`, their `RowCodes`."""


def _known(ratings: pd.DataFrame, categories: Sequence[Any]) -> Known:
    """``ratings`` coded once, for the tables of them and of their subsets (`_coded`)."""
    from annotate.analysis.agreement.coded import coded_rows

    coded, rows = coded_rows(ratings, order=list(categories))
    return ratings, coded, rows


def _coded(ratings: pd.DataFrame, categories: Sequence[Any], known: Known | None = None) -> Any:
    """`coded_ratings` of long ratings on ``categories``; ``known``: ratings coded before on them, whose codes
    are reused when ``ratings`` are the same rows (one cohort or one category holding every vote) or some of
    them (`coded_subset`: the same codes as coding them anew)."""
    from annotate.analysis.agreement.coded import coded_ratings, coded_subset

    if known is not None and known[0].index.equals(ratings.index):
        return known[1]
    if known is not None and _same_categories(categories, known[2].categories):
        subset = coded_subset(known[2], ratings.index[ratings["label"].notna().to_numpy()])
        if subset is not None:
            return subset
    return coded_ratings(ratings, order=list(categories))


def _same_categories(categories: Sequence[Any], coded_on: tuple[Any, ...]) -> bool:
    """Whether ``categories`` are those ``coded_on`` (as `coded_ratings` takes them: each value and its type)."""
    from annotate.analysis.agreement.matrix import _plain

    plain = [_plain(c) for c in categories]
    return len(plain) == len(coded_on) and all(type(a) is type(b) and a == b for a, b in zip(plain, coded_on,
                                                                                             strict=True))


def _table_for(
    ratings: pd.DataFrame, ctx: Context, level: str, categories: Sequence[Any], max_pairs: int = MAX_PAIRS_SUBSET,
    known: Known | None = None,
) -> Any | None:
    """The pooled agreement table of long ratings (unit, rater, label), or None with < 2 raters."""
    from annotate.analysis.cohorts import pooled_agreement_table

    if ratings.empty or nunique(ratings, "rater") < 2:
        return None
    coded, _units, raters, cats = _coded(ratings, categories, known)
    return pooled_agreement_table(coded, level, cats, list(raters), n_boot=ctx.n_boot, seed=ctx.seed,
                                  max_pairs=max_pairs)


def _pairs_sharing(ratings: pd.DataFrame, known: Known | None = None) -> int:
    """How many pairs of raters rated at least one unit in common (long ratings: unit, rater), counted on
    the units with two ratings or more (no units x raters or raters x raters table); from the pairs of
    ``known``'s codes when ``ratings`` are its rows, every one labelled (the codes then hold every (unit,
    rater) of them, once: `coded_ratings` refuses repeats)."""
    if ratings.empty:
        return 0
    if known is not None and known[0].index.equals(ratings.index) and ratings["label"].notna().all():
        return int(known[1][0].overlaps()[0].size)
    import numpy as np
    import pandas as pd

    from annotate.analysis.agreement.coded import CodedRatings

    pairs = ratings[["unit", "rater"]].astype(str).drop_duplicates()
    units, unit_ids = pd.factorize(pairs["unit"])  # the order of units and raters does not change the count
    raters, rater_ids = pd.factorize(pairs["rater"])
    order = np.lexsort((raters, units))
    coded = CodedRatings(units[order].astype(np.int64), raters[order].astype(np.int64),
                         np.zeros(len(pairs), dtype=np.int64), np.zeros(1), len(unit_ids), len(rater_ids))
    return int(coded.overlaps()[0].size)


def agreement_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]]:
    tables: list[Table] = []
    payload: dict[str, Any] = {"level": ctx.level, "thresholds": {"reliable": 0.800, "tentative": 0.667}}
    notes = [
        f"Level of measurement: {ctx.level}; units are items, raters are annotators and imported raters; "
        "categories: " + ", ".join(label_text(c) for c in ctx.categories) + "." if ctx.categories else
        "Rubric sessions: agreement per criterion at the ordinal level.",
        ALPHA_NOTE,
    ]
    payload["collapsed"] = None
    if ctx.ranking:  # rankings are not one label per item: agreement on them is in section Rankings
        notes = ["Ranking sessions: agreement on the rankings (Kendall's W, and Krippendorff's alpha at the ordinal "
                 "level on the ranks) is in section Rankings."]
        payload.update(overall=None, overall_raters="all" if ctx.pool_llm else "human", per_cohort=[],
                       per_annotator=[], per_category=[])
    elif ctx.spec.kind == "rubric":
        payload.update(overall=None, per_cohort=[], per_annotator=[], per_category=[])
    else:
        votes = ctx.agreement_votes
        headline = long_votes(votes)
        known = _known(headline, ctx.categories) if not headline.empty else None
        overall = _table_for(headline, ctx, ctx.level, ctx.categories, MAX_PAIRS, known)
        payload["overall"] = None if overall is None else overall.to_json()
        payload["overall_raters"] = "all" if ctx.pool_llm else "human"
        if overall is not None:
            tables.extend(agreement_tables(overall, "agreement_overall", ctx.headline_name, ctx.n_boot, ctx.seed,
                                           alpha_note=False, n_pairs_sharing=_pairs_sharing(headline, known),
                                           ci_note=ITEM_CI_NOTE))
        else:
            notes.append(f"{ctx.headline_name}: " + not_enough(nunique(votes, "rater"), "raters",
                                                                 "agreement needs two raters on the same items"))
        judges = ctx.judges
        if not judges.empty:
            notes.append(
                f"LLM judges ({plural(nunique(judges, 'rater'), 'rater')}, {plural(len(judges), 'vote')}) "
                + ("are pooled with the human raters in the headline figures (--pool-llm); "
                   if ctx.pool_llm else "are left out of the headline figures; ")
                + "section \"LLM judges against humans\" compares each judge with each human cohort.")
        if ctx.collapse_rule:
            tables.extend(_collapsed_tables(ctx, payload, notes))
        # per cohort, and the rater pairs within each cohort (the expert pairs are the ones a lead reads)
        rows, per_cohort, cohort_pairs = [], [], []
        for cohort in cohorts_of(ctx.agreement_all):
            ratings = long_votes(ctx.agreement_all.loc[ctx.agreement_all["cohort"] == cohort])
            table = _table_for(ratings, ctx, ctx.level, ctx.categories,
                               PAIRS_PER_COHORT.get(cohort, MAX_PAIRS_SUBSET), known)
            if table is not None:
                rows.append(_summary_row(cohort, table))
                per_cohort.append({"cohort": cohort, **table.to_json()})
                cohort_pairs.append(pair_table(table, f"agreement_{cohort}_cohen",
                                               f"Cohen's kappa per rater pair: {cohort} cohort",
                                               n_pairs_sharing=_pairs_sharing(ratings, known)))
        payload["per_cohort"] = per_cohort
        tables.append(Table("agreement_per_cohort", "Agreement within each cohort",
                            (Column("cohort"), *_SUMMARY_COLUMNS), tuple(rows), (ctx.ci_note, _COLUMN_NOTE),
                            empty=not_enough(len(cohorts_of(ctx.unique)), "cohorts", NO_COHORT)))
        tables.extend(cohort_pairs)
        # per annotator against the rest
        tables.append(_rest_table(ctx, votes, payload, known))
        # per category
        rows, per_category = [], []
        for category, group in votes.groupby(filled(votes["category"], "(none)").astype(str), sort=True):
            table = _table_for(long_votes(group), ctx, ctx.level, ctx.categories, known=known)
            if table is not None:
                rows.append(_summary_row(category, table))
                per_category.append({"category": category, **table.to_json()})
        payload["per_category"] = per_category
        tables.append(Table("agreement_per_category", "Agreement per item category",
                            (Column("category"), *_SUMMARY_COLUMNS), tuple(rows), (ctx.ci_note, _COLUMN_NOTE),
                            empty=not_enough(nunique(votes, "rater"), "raters",
                                             "no category has two raters on the same items")))
    tables.extend(_criterion_tables(ctx, store, payload))
    return Section("agreement", "Agreement", tuple(tables), tuple(notes)), payload


def _collapsed_tables(ctx: Context, payload: dict[str, Any], notes: list[str]) -> list[Table]:
    """Agreement on the preference a graded answer collapses to (nominal), beside the ordinal one."""
    primary = ctx.spec.schema.primary
    assert primary is not None
    left_out = len(ctx.headline) - len(ctx.agreement_votes)
    notes.append(
        f"Graded answers: agreement is measured on the signed strength ({primary.summary()}) at the ordinal "
        f"level, leaving out {left_out} both-bad vote{'s' if left_out != 1 else ''} (not on the scale). The table "
        f"'{ctx.headline_name}, on the collapsed preference (nominal)' measures the preference it collapses to "
        f"({primary.collapse_rule}), which the MT-Bench agreement, the biases, the quality figures and the ranking use."
    )
    categories = tuple(dict.fromkeys(p for v in primary.values if (p := primary.preference(v)) is not None))
    table = _table_for(long_votes(ctx.headline), ctx, "nominal", categories, MAX_PAIRS_SUBSET)
    if table is None:
        return []
    payload["collapsed"] = {"rule": primary.collapse_rule, **table.to_json()}
    coefficients = agreement_tables(table, "agreement_collapsed", f"{ctx.headline_name}, on the collapsed preference"
                                    " (nominal)", ctx.n_boot, ctx.seed, alpha_note=False, ci_note=ITEM_CI_NOTE)[0]
    return [coefficients]


def _rest_table(ctx: Context, votes: pd.DataFrame, payload: dict[str, Any],
                known: Known | None) -> Table:
    from annotate.analysis.cohorts import rest_agreement_coded

    results: tuple[Any, ...] = ()
    if nunique(votes, "rater") >= 2:
        coded, _units, raters, categories = _coded(long_votes(votes), ctx.categories, known)
        results = rest_agreement_coded(coded, raters, categories, ctx.level, n_boot=ctx.n_boot, seed=ctx.seed)
    cohort_of = cohort_of_raters(votes)
    payload["per_annotator"] = [{**r.to_json(), "cohort": cohort_of.get(r.rater)} for r in results]
    ordered = sorted(results, key=lambda r: (-r.n, str(r.rater)))
    shown = ordered[: ctx.max_rows]
    n_raters = nunique(votes, "rater")
    alone = NotEnough(1, "raters", "alpha needs two raters") if n_raters == 2 else None
    rows = tuple(
        (str(r.rater), cohort_of.get(r.rater), estimate_cell(r.kappa), interval_cell(r.kappa), r.share,
         (r.ci_low, r.ci_high), r.n, r.alpha_without if r.alpha_without is not None else alone)
        for r in shown
    )
    kind = "Cohen's kappa" if ctx.level == "nominal" else "linearly weighted Cohen's kappa"
    consensus = "the most frequent label of the others (items where it is tied are skipped)" \
        if ctx.level == "nominal" else "the lower median of the others' grades"
    notes = [
        f"Each rater against the leave-one-out consensus of all other raters: {consensus} (Snow et al. 2008). "
        f"kappa: {kind} with the consensus; agreement: share of items equal to it (Wilson interval); "
        "alpha without: Krippendorff's alpha of everyone else, to compare with alpha of all raters.",
        ctx.ci_note,
    ]
    if len(ordered) > len(shown):
        notes.append(more_raters(len(ordered) - len(shown), " with fewer items"))
    columns = (Column("rater"), Column("cohort"), Column("kappa vs rest", "num"), Column("kappa 95 % CI", "ci"),
               Column("agreement", "num"), Column("agreement 95 % CI", "ci"), Column("items", "int"),
               Column("alpha without", "num"))
    chart = Chart("interval", label=0, value=2, ci=3, domain=(-1.0, 1.0), title="kappa of each rater vs the rest",
                  bars=True)
    empty = not_enough(n_raters, "raters", "each rater needs other raters on the same items, with a consensus")
    return Table("agreement_per_annotator", "Each annotator against the rest", columns, rows, tuple(notes), chart,
                 empty=empty)


def _criterion_tables(ctx: Context, store: Store, payload: dict[str, Any]) -> list[Table]:
    payload["per_criterion"] = []
    if ctx.spec.kind != "rubric":
        return []
    import pandas as pd

    from annotate.store.frames import scores_frame

    scores = scores_frame(store)
    rows = []
    for criterion in ctx.spec.schema.criteria:
        part = scores.loc[scores["criterion"] == criterion.name]
        values = pd.to_numeric(part["score"], errors="coerce")
        part = part.assign(label=values).loc[values.between(criterion.low, criterion.high)]
        part = part.drop_duplicates(["item", "rater"])
        grades = list(range(criterion.low, criterion.high + 1))
        table = _table_for(long_votes(part), ctx, "ordinal", grades)
        if table is not None:
            rows.append(_summary_row(criterion.name, table))
            payload["per_criterion"].append({"criterion": criterion.name, **table.to_json()})
    return [Table("agreement_per_criterion", "Agreement per rubric criterion (ordinal)",
                  (Column("criterion"), *_SUMMARY_COLUMNS), tuple(rows), (ctx.ci_note, _COLUMN_NOTE),
                  empty=not_enough(nunique(scores, "rater"), "raters",
                                   "no criterion has an item scored by two raters"))]


