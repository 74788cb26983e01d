"""Build a `Report` (data) from a ratings file or from a session.

`file_agreement_report` backs `annotate agreement`; `build_report` backs `annotate report`.

What enters the session report (each rule is also stated in the report's notes):

* votes: the session's current judgments and its imported external labels (`votes_frame`), skips
  left out;
* judgments made under a *planted* (deliberately wrong) suggestion are left out of every figure
  unless ``include_planted`` (README, "LLM suggestions and anchoring experiments"); suggestion labels
  themselves are never shown;
* agreement, pairwise agreement and ranking use one vote per (item, rater): the first main one, so
  a repeat of an item does not count twice, and attention checks are left out; quality uses them;
* pairwise labels are slot-space A / B / tie / both_bad; MT-Bench agreement and the rankings merge
  tie, both bad and inconsistent verdicts into one tie class.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotate.analysis.ratings_io import FileAgreement
from annotate.report.model import Chart, Column, Report, Section, Table
from annotate.report.tables import (
    ALPHA_NOTE,
    CI_NOTE,
    agreement_json,
    agreement_tables,
    ci,
    pair_table,
    reading,
)
from annotate.text import plural

if TYPE_CHECKING:
    import pandas as pd

    from annotate.spec import SessionSpec
    from annotate.store import Store

__all__ = ["REPORT_VERSION", "build_report", "file_agreement_report"]

REPORT_VERSION = 1
"""Bumped when a key of the JSON report changes meaning or disappears."""

COHORT_ORDER = ("expert", "crowd", "llm")
ALL = "(all raters)"
NO_VOTES = "No votes yet: import labels or annotate first."


def _label(value: object) -> str:
    """A category as text: whole floats without the ``.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def file_agreement_report(path: Path | str, result: FileAgreement, n_boot: int, seed: int | None) -> Report:
    """The agreement table of one ratings file as a report (``data`` is the documented JSON object)."""
    table = result.table
    meta = (
        ("file", str(path)),
        ("ratings", f"{result.n_ratings} from {plural(len(result.raters), 'rater')} on "
                    f"{plural(len(result.units), 'unit')}"),
        ("level", table.level),
        ("categories", ", ".join(_label(c) for c in result.categories[:20])
         + (f" … ({len(result.categories)} in all)" if len(result.categories) > 20 else "")),
    )
    tables = agreement_tables(table, "agreement", "Coefficients", n_boot, seed,
                              pairs_title="Cohen's kappa per rater pair")
    section = Section("agreement", "Agreement", tables, tuple(result.warnings))
    return Report("Inter-rater agreement", meta, (section,), agreement_json(table))


# --------------------------------------------------------------------------------------------
# Session report
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    """Everything the sections share."""

    spec: SessionSpec
    votes: pd.DataFrame
    """All labelled votes that count (planted excluded unless asked), with a cohort."""
    unique: pd.DataFrame
    """One vote per (item, rater), attention checks out: for agreement, pairwise and ranking."""
    level: str
    categories: tuple[Any, ...]
    n_boot: int
    seed: int
    max_rows: int

    @property
    def pairwise(self) -> bool:
        return self.spec.kind == "pairwise"

    @property
    def ci_note(self) -> str:
        return CI_NOTE.format(n_boot=self.n_boot, seed=self.seed)


def _planted_judgments(store: Store) -> set[int]:
    """Ids of current judgments whose assignment carried a planted suggestion."""
    planted = {s.id for s in store.suggestions() if s.planted}
    if not planted:
        return set()
    assignments = {a.id for a in store.assignments() if a.suggestion_id in planted}
    return {j.id for j in store.judgments() if j.assignment_id in assignments and j.id is not None}


def _prepare_votes(spec: SessionSpec, store: Store, include_planted: bool) -> tuple[pd.DataFrame, dict[str, int]]:
    import pandas as pd

    from annotate.adjudication import ADJUDICATION, adjudicated_labels
    from annotate.store.frames import votes_frame

    votes = votes_frame(store)
    excluded = {"planted": 0, "unknown_labels": 0, "adjudication": 0}
    # An adjudicator has seen the others' answers: their label is a reference, never a vote.
    adjudicating = votes["purpose"] == ADJUDICATION
    excluded["adjudication"] = int(adjudicating.sum())
    votes = votes.loc[~adjudicating]
    adjudicated = adjudicated_labels(store)
    if adjudicated:
        votes = votes.assign(gold=votes["gold"].fillna(votes["item"].map(adjudicated)))
    if not include_planted:
        planted = _planted_judgments(store)
        if planted:
            mask = votes["judgment_id"].isin(list(planted))
            excluded["planted"] = int(mask.sum())
            votes = votes.loc[~mask]
    if spec.kind == "rubric":  # rubric judgments carry scores (scores_frame), not a label
        votes = votes.assign(label=votes["label"].fillna("(scores)"))
    votes = votes.loc[votes["label"].notna()].copy()
    votes["purpose"] = votes["purpose"].fillna("main")
    votes["cohort"] = votes["cohort"].fillna("expert").astype(str)
    votes["rater"] = votes["rater"].astype(str)
    votes["item"] = votes["item"].astype(str)
    if spec.kind == "pairwise":
        votes["label"] = votes["label"].replace({"tie_inconsistent": "tie"})
        known = votes["label"].isin(["A", "B", "tie", "both_bad"])
    elif spec.kind == "single":
        low, high = spec.schema.scale
        grades = pd.to_numeric(votes["label"], errors="coerce")
        known = grades.between(low, high) & (grades == grades.round())
        votes["label"] = grades
    else:
        known = pd.Series(False, index=votes.index)
    if spec.kind != "rubric":
        excluded["unknown_labels"] = int((~known).sum())
        votes = votes.loc[known]
    return votes.reset_index(drop=True), excluded


def _unique_votes(votes: pd.DataFrame) -> pd.DataFrame:
    v = votes.loc[votes["purpose"] != "attention"]
    order = (v["purpose"] != "main").astype(int)
    v = v.assign(_order=order).sort_values(["_order"], kind="stable")
    return v.drop_duplicates(["item", "rater"], keep="first").drop(columns="_order").sort_index()


def build_report(
    spec: SessionSpec,
    store: Store,
    n_boot: int = 1000,
    seed: int | None = None,
    include_planted: bool = False,
    max_rows: int = 100,
) -> Report:
    """The lead's report on a session: agreement, pairwise (MT-Bench) agreement, biases, quality, ranking.

    n_boot: bootstrap resamples for every interval (0: none); seed: their seed (default: the
    session's); include_planted: count judgments made under planted suggestions; max_rows: rows of
    per-rater tables shown in text / Markdown / HTML (the raters with most votes; JSON has all).
    """
    from annotate.store.frames import items_frame

    seed = spec.seed if seed is None else seed
    votes, excluded = _prepare_votes(spec, store, include_planted)
    unique = _unique_votes(votes) if spec.kind != "rubric" else votes.iloc[:0]
    excluded["repeats_and_attention"] = len(votes) - len(unique) if spec.kind != "rubric" else 0
    if spec.kind == "pairwise":
        categories: tuple[Any, ...] = ("A", "B", "tie", "both_bad")
    elif spec.kind == "single":
        categories = tuple(range(spec.schema.scale[0], spec.schema.scale[1] + 1))
    else:
        categories = ()
    ctx = _Context(spec, votes, unique, spec.schema.level, categories, n_boot, seed, max_rows)
    n_items = len(items_frame(store))
    cohorts = votes.groupby("cohort")["rater"].nunique().to_dict()
    n_judged = int((votes["source"] == "judgment").sum())
    meta = (
        ("session", f"{spec.name} ({spec.kind}, guideline {spec.guideline})"),
        ("data", f"{plural(n_items, 'item')}; {plural(len(votes), 'vote')} ({plural(n_judged, 'judgment')}, "
                 f"{len(votes) - n_judged} imported) from {plural(int(votes['rater'].nunique()), 'rater')}"
                 + (" (" + ", ".join(f"{c} {n}" for c, n in sorted(cohorts.items())) + ")" if cohorts else "")),
        ("excluded", f"{plural(excluded['planted'], 'judgment')} under planted suggestions"
                     + (" (included: --include-planted)" if include_planted else "")
                     + f"; {plural(excluded['unknown_labels'], 'vote')} with labels outside the schema; "
                       f"{plural(excluded['repeats_and_attention'], 'repeat or attention check')} (agreement "
                       f"and ranking); {plural(excluded['adjudication'], 'adjudication')} (used as gold where an item "
                       "has none)"),
        ("intervals", f"95 %, {n_boot} bootstrap resamples, seed {seed}"),
    )
    builders = (_agreement_section, _pairwise_section, _bias_section, _quality_section, _ranking_section)
    sections, data = [], {}
    for builder in builders:
        section, payload = builder(ctx, store)
        sections.append(section)
        data[section.key] = payload
    from annotate.report.suggestions import suggestions_section

    suggested = suggestions_section(spec, store, n_boot=n_boot, seed=seed, max_rows=max_rows)
    if suggested is not None:  # only for sessions with a suggestion experiment
        sections.append(suggested[0])
        data[suggested[0].key] = suggested[1]
    notes: tuple[str, ...] = ()
    if votes.empty:  # the JSON keeps every (empty) section; the readable formats say why there is nothing
        sections = [s for s in sections if s.key == "suggestions"]
        notes = (NO_VOTES,)
    document = {
        "report_version": REPORT_VERSION,
        "session": {
            "name": spec.name, "kind": spec.kind, "level": ctx.level, "n_items": n_items, "n_votes": len(votes),
            "n_judgments": int((votes["source"] == "judgment").sum()),
            "n_imported": int((votes["source"] != "judgment").sum()),
            "n_raters": int(votes["rater"].nunique()),
            "raters_per_cohort": {str(k): int(v) for k, v in cohorts.items()},
            "excluded": excluded, "include_planted": include_planted, "n_boot": n_boot, "seed": seed,
        },
        **data,
    }
    return Report(f"annotate report: {spec.name}", meta, tuple(sections), document, notes)


# --------------------------------------------------------------------------------------------
# Agreement
# --------------------------------------------------------------------------------------------

_SUMMARY_COLUMNS = (
    Column("alpha", "num"), Column("alpha 95 % CI", "ci"), Column("reading"), Column("Fleiss", "num"),
    Column("AC1", "num"), Column("percent", "num"), Column("units", "int"), Column("raters", "int"),
    Column("pairable", "int"),
)


_COLUMN_NOTE = ("Columns: Fleiss = Fleiss' kappa, AC1 = Gwet's AC1, percent = percent agreement, pairable = "
                "pairable values (ratings in units with two or more).")


def _summary_row(name: str, table: Any) -> tuple[Any, ...]:
    a, p = table.krippendorff_alpha, table.percent_agreement
    return (name, a.estimate if a.defined else None, ci(a), reading(a), table.fleiss_kappa.estimate,
            table.gwet_ac1.estimate, p.estimate, a.n_units, a.n_raters, a.n_pairable)


MAX_PAIRS = 45
"""Cohen's kappa is computed for at most this many rater pairs overall and within the expert and llm
cohorts (those with most units in common): every pair of ten raters.  Text, Markdown and HTML list
them all; so does the JSON."""
MAX_PAIRS_SUBSET = 10
"""... and for at most this many pairs within the crowd cohort (hundreds of raters) and per category
or criterion (JSON only)."""
PAIRS_PER_COHORT = {"expert": MAX_PAIRS, "llm": MAX_PAIRS}
"""Cohorts whose pairs are all worth reading; any other cohort gets MAX_PAIRS_SUBSET."""


def _table_for(
    ratings: pd.DataFrame, ctx: _Context, level: str, categories: Sequence[Any], max_pairs: int = MAX_PAIRS_SUBSET
) -> Any | None:
    """The pooled agreement table of long ratings (unit, rater, label), or None with < 2 raters."""
    from annotate.analysis.agreement import ratings_matrix
    from annotate.analysis.cohorts import pooled_agreement_table

    if ratings.empty or ratings["rater"].nunique() < 2:
        return None
    matrix, _units, raters, cats = ratings_matrix(ratings, order=list(categories))
    return pooled_agreement_table(matrix, level, cats, list(raters), n_boot=ctx.n_boot, seed=ctx.seed,
                                  max_pairs=max_pairs)


def _long(votes: pd.DataFrame) -> pd.DataFrame:
    return votes.rename(columns={"item": "unit"})[["unit", "rater", "label"]]


def _pairs_sharing(ratings: pd.DataFrame) -> int:
    """How many pairs of raters rated at least one unit in common (long ratings: unit, rater)."""
    import numpy as np

    if ratings.empty:
        return 0
    units = ratings["unit"].astype(str).factorize()[0]
    raters = ratings["rater"].astype(str).factorize()[0]
    present = np.zeros((units.max() + 1, raters.max() + 1))
    present[units, raters] = 1.0
    overlap = present.T @ present
    return int(((overlap > 0).sum() - len(overlap)) // 2)


def _agreement_section(ctx: _Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.cohorts import rest_agreement

    tables: list[Table] = []
    payload: dict[str, Any] = {"level": ctx.level, "thresholds": {"reliable": 0.800, "tentative": 0.667}}
    notes = [
        f"Level of measurement: {ctx.level}; units are items, raters are annotators and imported raters; "
        "categories: " + ", ".join(_label(c) for c in ctx.categories) + "." if ctx.categories else
        "Rubric sessions: agreement per criterion at the ordinal level.",
        ALPHA_NOTE,
    ]
    if ctx.spec.kind == "rubric":
        payload.update(overall=None, per_cohort=[], per_annotator=[], per_category=[])
    else:
        votes = ctx.unique
        overall = _table_for(_long(votes), ctx, ctx.level, ctx.categories, MAX_PAIRS)
        payload["overall"] = None if overall is None else overall.to_json()
        if overall is not None:
            tables.extend(agreement_tables(overall, "agreement_overall", "All raters", ctx.n_boot, ctx.seed,
                                           alpha_note=False, n_pairs_sharing=_pairs_sharing(_long(votes))))
        else:
            notes.append("Agreement needs at least two raters on the same items.")
        # per cohort, and the rater pairs within each cohort (the expert pairs are the ones a lead reads)
        rows, per_cohort, cohort_pairs = [], [], []
        for cohort in _cohorts(votes):
            ratings = _long(votes.loc[votes["cohort"] == cohort])
            table = _table_for(ratings, ctx, ctx.level, ctx.categories,
                               PAIRS_PER_COHORT.get(cohort, MAX_PAIRS_SUBSET))
            if table is not None:
                rows.append(_summary_row(cohort, table))
                per_cohort.append({"cohort": cohort, **table.to_json()})
                cohort_pairs.append(pair_table(table, f"agreement_{cohort}_cohen",
                                               f"Cohen's kappa per rater pair: {cohort} cohort",
                                               n_pairs_sharing=_pairs_sharing(ratings)))
        payload["per_cohort"] = per_cohort
        tables.append(Table("agreement_per_cohort", "Agreement within each cohort",
                            (Column("cohort"), *_SUMMARY_COLUMNS), tuple(rows), (ctx.ci_note, _COLUMN_NOTE)))
        tables.extend(cohort_pairs)
        # per annotator against the rest
        tables.append(_rest_table(ctx, votes, payload, rest_agreement))
        # per category
        rows, per_category = [], []
        for category, group in votes.groupby(votes["category"].fillna("(none)").astype(str), sort=True):
            table = _table_for(_long(group), ctx, ctx.level, ctx.categories)
            if table is not None:
                rows.append(_summary_row(category, table))
                per_category.append({"category": category, **table.to_json()})
        payload["per_category"] = per_category
        tables.append(Table("agreement_per_category", "Agreement per item category",
                            (Column("category"), *_SUMMARY_COLUMNS), tuple(rows), (ctx.ci_note, _COLUMN_NOTE)))
    tables.extend(_criterion_tables(ctx, store, payload))
    return Section("agreement", "Agreement", tuple(tables), tuple(notes)), payload


def _cohorts(votes: pd.DataFrame) -> list[str]:
    present = [str(c) for c in votes["cohort"].unique()]
    return sorted(present, key=lambda c: (COHORT_ORDER.index(c) if c in COHORT_ORDER else 99, c))


def _rest_table(ctx: _Context, votes: pd.DataFrame, payload: dict[str, Any], rest_agreement: Any) -> Table:
    results = rest_agreement(_long(votes), ctx.level, list(ctx.categories), n_boot=ctx.n_boot, seed=ctx.seed) \
        if votes["rater"].nunique() >= 2 else ()
    cohort_of = votes.drop_duplicates("rater").set_index("rater")["cohort"].to_dict()
    payload["per_annotator"] = [{**r.to_json(), "cohort": cohort_of.get(r.rater)} for r in results]
    ordered = sorted(results, key=lambda r: (-r.n, str(r.rater)))
    shown = ordered[: ctx.max_rows]
    rows = tuple(
        (str(r.rater), cohort_of.get(r.rater), r.kappa.estimate, ci(r.kappa), r.share, (r.ci_low, r.ci_high),
         r.n, r.alpha_without)
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
        notes.append(_more_raters(len(ordered) - len(shown), " with fewer items"))
    columns = (Column("rater"), Column("cohort"), Column("kappa vs rest", "num"), Column("kappa 95 % CI", "ci"),
               Column("agreement", "num"), Column("agreement 95 % CI", "ci"), Column("items", "int"),
               Column("alpha without", "num"))
    chart = Chart("interval", label=0, value=2, ci=3, domain=(-1.0, 1.0), title="kappa of each rater vs the rest",
                  bars=True)
    return Table("agreement_per_annotator", "Each annotator against the rest", columns, rows, tuple(notes), chart)


def _criterion_tables(ctx: _Context, store: Store, payload: dict[str, Any]) -> list[Table]:
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
        table = _table_for(_long(part), ctx, "ordinal", grades)
        if table is not None:
            rows.append(_summary_row(criterion.name, table))
            payload["per_criterion"].append({"criterion": criterion.name, **table.to_json()})
    return [Table("agreement_per_criterion", "Agreement per rubric criterion (ordinal)",
                  (Column("criterion"), *_SUMMARY_COLUMNS), tuple(rows), (ctx.ci_note, _COLUMN_NOTE))]


# --------------------------------------------------------------------------------------------
# Pairwise agreement (MT-Bench)
# --------------------------------------------------------------------------------------------

_TYPE_PAIRS = (
    ("human", "human", True), ("human", "llm", True), ("crowd", "expert", True), ("llm", "llm", True),
    ("expert", "expert", False), ("crowd", "crowd", False), ("expert", "llm", False), ("crowd", "llm", False),
)
"""(type x, type y, always shown): "human" is the expert and crowd cohorts together."""

_PAIR_COLUMNS = (
    Column("raters x"), Column("raters y"), Column("with ties", "num"), Column("with ties 95 % CI", "ci"),
    Column("pairs", "int"), Column("without ties", "num"), Column("without ties 95 % CI", "ci"),
    Column("pairs w/o ties", "int"), Column("items", "int"),
)


def _pair_row(result: Any) -> tuple[Any, ...]:
    w, wo = result.with_ties, result.without_ties
    return (result.type_x, result.type_y, w.estimate, ci(w), result.n_pairs_with_ties, wo.estimate, ci(wo),
            result.n_pairs_without_ties, result.n_items)


def _pairwise_section(ctx: _Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.cohorts import cohort_confusion
    from annotate.analysis.pairwise import majority_agreement, type_agreement

    payload: dict[str, Any] = {"type_agreement": [], "majority": [], "confusion": []}
    if not ctx.pairwise:
        return Section("pairwise", "Pairwise agreement (MT-Bench)",
                       notes=("Applies to pairwise sessions only.",)), payload
    votes = ctx.unique.assign(rater_type=ctx.unique["cohort"])
    human = votes.assign(rater_type=votes["cohort"].map(lambda c: "llm" if c == "llm" else "human"))
    rows = []
    for x, y, always in _TYPE_PAIRS:
        source = human if "human" in (x, y) else votes
        result = type_agreement(source, x, y, n_boot=ctx.n_boot, seed=ctx.seed)
        if always or result.n_pairs_with_ties:
            rows.append(_pair_row(result))
            payload["type_agreement"].append(result.to_json())
    notes = (
        "Probability that two different raters of the two types agree on a random item, pooled over all vote "
        "pairs (Zheng et al. 2023, MT-Bench, section 4.2): with ties, tie / both bad / inconsistent are one "
        "answer; without ties, only pairs where both picked A or B. human = expert + crowd.",
        ctx.ci_note.replace("units", "items"),
    )
    tables = [Table("pairwise_types", "Agreement between rater types", _PAIR_COLUMNS, tuple(rows), notes)]
    cohorts = [c for c in COHORT_ORDER if c in set(votes["cohort"])]
    rows = []
    majority_pairs = [*combinations(cohorts, 2)]
    if "llm" in cohorts and len(cohorts) == 3:
        majority_pairs.append(("human", "llm"))
    for x, y in majority_pairs:
        source = human if x == "human" else votes
        result = majority_agreement(source, x, y, n_boot=ctx.n_boot, seed=ctx.seed)
        rows.append(_pair_row(result))
        payload["majority"].append(result.to_json())
    tables.append(Table(
        "pairwise_majority", "Cohort majority against cohort majority", _PAIR_COLUMNS, tuple(rows),
        ("Per item, each cohort's most frequent answer (A, B or tie); items where a cohort's top count is shared "
         "or a cohort did not vote are left out; pairs = items.",),
    ))
    classes = ("A", "B", "tie")
    merged = votes.assign(label=votes["label"].replace({"both_bad": "tie"}))
    for x, y in combinations(cohorts, 2):
        matrix = cohort_confusion(merged, x, y, classes)
        total = int(matrix.to_numpy().sum())
        payload["confusion"].append({
            "x": x, "y": y, "labels": list(classes), "counts": matrix.to_numpy().tolist(), "n_items": total,
        })
        rows = tuple((f"{x}: {label}", *(int(v) for v in matrix.loc[label]), int(matrix.loc[label].sum()))
                     for label in classes)
        columns = (Column(f"{x} majority \\ {y} majority"), *(Column(f"{y}: {c}", "int") for c in classes),
                   Column("items", "int"))
        tables.append(Table(
            f"confusion_{x}_{y}", f"Confusion matrix: {x} majority (rows) by {y} majority (columns)", columns, rows,
            (f"{plural(total, 'item')} with a majority in both cohorts; diagonal = the cohorts agree.",),
            Chart("heat", label=0, cells=tuple(range(1, 1 + len(classes))), title=f"{x} vs {y}"),
        ))
    return Section("pairwise", "Pairwise agreement (MT-Bench)", tuple(tables)), payload


# --------------------------------------------------------------------------------------------
# Biases
# --------------------------------------------------------------------------------------------


def _more_raters(n: int, why: str = "") -> str:
    return f"{plural(n, 'more rater')}{why} {'is' if n == 1 else 'are'} in the JSON report."

_BIAS_COLUMNS = (
    Column("rater"), Column("share", "pct"), Column("95 % CI", "pctci"), Column("p (binomial vs 0.5)", "p"),
    Column("k", "int"), Column("n (non-tie)", "int"), Column("excluded", "int"),
)


def _bias_rows(report: Any, max_rows: int) -> tuple[list[tuple[Any, ...]], int]:
    def row(p: Any, name: str) -> tuple[Any, ...]:
        return (name, p.share, (p.ci_low, p.ci_high), p.p_value, p.k, p.n, p.n_excluded)

    per = sorted(report.per_rater, key=lambda p: (-p.n, str(p.rater)))
    rows = [row(report.overall, ALL)] + [row(p, str(p.rater)) for p in per[:max_rows]]
    return rows, max(0, len(per) - max_rows)


def _bias_section(ctx: _Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.bias import length_bias, position_bias

    payload: dict[str, Any] = {"position": None, "length": None}
    if not ctx.pairwise:
        return Section("biases", "Biases", notes=("Position and length bias apply to pairwise sessions only.",)), \
            payload
    judged = ctx.votes.loc[ctx.votes["source"] == "judgment"]
    position = position_bias(judged)
    length = length_bias(ctx.votes)
    payload["position"], payload["length"] = position.to_json(), length.to_json()
    tables = (
        _bias_table("bias_position", "Position bias: share of Left among non-tie judgments", position, ctx.max_rows,
                    "share = picks of the response on the left among non-tie judgments (k of n); 50 % without "
                    "position bias when sides are randomised; exact two-sided binomial test against one half, "
                    "Wilson interval (Zheng et al. 2023, section 3.3). The session's own judgments only: imported "
                    "votes have no sides."),
        _bias_table("bias_length", "Length bias: share of non-tie votes for the longer response", length,
                    ctx.max_rows,
                    "share = votes for the longer response (characters) among non-tie votes on responses of "
                    "unequal length (k of n); excluded = ties and equal lengths; Wilson interval, exact binomial "
                    "test against one half. All votes, imported ones included."),
    )
    return Section("biases", "Biases", tables), payload


def _bias_table(key: str, title: str, report: Any, max_rows: int, note: str) -> Table:
    rows, more = _bias_rows(report, max_rows)
    notes = (note, _more_raters(more)) if more else (note,)
    return Table(key, title, _BIAS_COLUMNS, tuple(rows), notes)


# --------------------------------------------------------------------------------------------
# Quality
# --------------------------------------------------------------------------------------------


def _share_table(key: str, title: str, shares: Sequence[Any], what: str, note: str, max_rows: int) -> Table:
    overall, per = (shares[0], shares[1:]) if shares else (None, ())
    per = sorted(per, key=lambda s: (-s.n, str(s.rater)))
    rows = [] if overall is None else [(ALL, overall.share, (overall.ci_low, overall.ci_high), overall.k, overall.n)]
    rows += [(str(s.rater), s.share, (s.ci_low, s.ci_high), s.k, s.n) for s in per[:max_rows]]
    notes = [note] + ([_more_raters(len(per) - max_rows)] if len(per) > max_rows else [])
    columns = (Column("rater"), Column(what, "pct"), Column("95 % CI", "pctci"), Column("k", "int"),
               Column("n", "int"))
    return Table(key, title, columns, tuple(rows), tuple(notes))


def _quality_section(ctx: _Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.quality import FAST_MS, attention_pass_rate, gold_accuracy, repeat_consistency, timing

    votes = ctx.votes
    if ctx.spec.kind == "rubric":
        votes = votes.iloc[:0]
    gold, attention = gold_accuracy(votes), attention_pass_rate(votes)
    repeats = repeat_consistency(votes.loc[votes["source"] == "judgment"])
    times = timing(ctx.votes.loc[ctx.votes["source"] == "judgment"])
    payload = {
        "gold": [s.to_json() for s in gold], "attention": [s.to_json() for s in attention],
        "repeats": [s.to_json() for s in repeats], "timing": [t.to_json() for t in times],
        "fast_threshold_ms": FAST_MS,
    }
    tables = [
        _share_table("quality_gold", "Gold accuracy", gold, "accuracy",
                     "Votes on items with a gold label that match it (k of n), attention checks excluded; "
                     "Wilson interval.", ctx.max_rows),
    ]
    if attention:
        tables.append(_share_table("quality_attention", "Attention checks passed", attention, "passed",
                                   "Attention-check judgments answered with the expected label.", ctx.max_rows))
    tables.append(_share_table(
        "quality_repeats", "Consistency on repeated items", repeats, "same label",
        "Pairs of one rater's judgments of the same item (a repeat is shown with the sides swapped; labels are "
        "compared in slot space): k of n pairs gave the same label.", ctx.max_rows))
    overall, per = (times[0], times[1:]) if times else (None, ())
    per = sorted(per, key=lambda t: (-t.n, str(t.rater)))
    rows = [] if overall is None else [(ALL, overall.n, overall.median_ms, overall.share,
                                        (overall.ci_low, overall.ci_high), overall.fast)]
    rows += [(str(t.rater), t.n, t.median_ms, t.share, (t.ci_low, t.ci_high), t.fast) for t in per[: ctx.max_rows]]
    columns = (Column("rater"), Column("judgments", "int"), Column("median time", "ms"),
               Column(f"under {FAST_MS / 1000:g} s", "pct"), Column("95 % CI", "pctci"), Column("k", "int"))
    tables.append(Table("quality_timing", "Time per judgment", columns, tuple(rows), (
        "Active time from item shown to submit, idle gaps removed (submit time where missing); the session's own "
        "judgments only.",)))
    return Section("quality", "Quality", tuple(tables)), payload


# --------------------------------------------------------------------------------------------
# Ranking
# --------------------------------------------------------------------------------------------

_RANK_COLUMNS = (
    Column("rank", "int"), Column("model"), Column("rating", "num1"), Column("95 % CI", "ci"),
    Column("win rate", "pct"), Column("battles", "int"), Column("wins", "int"), Column("losses", "int"),
    Column("ties", "int"),
)


def _n_components(ranking: Sequence[Any]) -> int:
    return max((r.component for r in ranking), default=0)


def _components_note(ranking: Sequence[Any]) -> str:
    """What a lead must know when the battle graph falls apart into groups never compared."""
    groups = _n_components(ranking)
    sizes = [sum(1 for r in ranking if r.component == g) for g in range(1, groups + 1)]
    return (
        f"NOT ONE SCALE: the models fall into {groups} groups that were never compared, directly or through "
        f"other models (groups of {', '.join(map(str, sizes))} models). Ratings and ranks compare models of the "
        "same group only; a rating in one group says nothing about a model in another. Add battles between the "
        "groups to rank them together."
    )


def _ranking_table(
    key: str, title: str, ranking: Sequence[Any], n_battles: int, ctx: _Context, note_split: bool = True,
) -> Table:
    """One leaderboard; with a ``group`` column (and, if note_split, the warning) when it has several components."""
    split = _n_components(ranking) > 1
    columns = (Column("group", "int"), *_RANK_COLUMNS) if split else _RANK_COLUMNS
    rows = tuple(((r.component,) if split else ()) + (r.rank, r.model, r.rating, (r.ci_low, r.ci_high), r.win_rate,
                                                        r.n_battles, r.wins, r.losses, r.ties) for r in ranking)
    notes = (
        *((_components_note(ranking),) if split and note_split else ()),
        f"{plural(n_battles, 'battle')}. Bradley-Terry maximum likelihood, ties as half a win each; rating on an "
        "Elo-like scale (mean 1000, +400 = 10:1 odds); 95 % bootstrap interval over battles "
        f"({ctx.n_boot} resamples, seed {ctx.seed}); rank = 1 + the number of models "
        + ("of the same group " if split else "")
        + "whose lower bound is above this model's upper bound; win rate = (wins + ties / 2) / battles.",
    )
    offset = 1 if split else 0
    return Table(key, title, columns, rows, notes,
                 Chart("interval", label=1 + offset, value=2 + offset, ci=3 + offset,
                       title="rating with 95 % interval"))


def _ranking_json(ranking: Sequence[Any], n_battles: int) -> dict[str, Any]:
    groups = _n_components(ranking)
    return {"n_battles": n_battles, "n_components": groups,
            "note": _components_note(ranking) if groups > 1 else None,
            "models": [r.to_json() for r in ranking]}


def _ranking_section(ctx: _Context, store: Store) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.cohorts import battles_from_votes
    from annotate.analysis.ranking import rank_models

    payload: dict[str, Any] = {"overall": _ranking_json((), 0), "per_cohort": []}
    if not ctx.pairwise:
        return Section("ranking", "Ranking", notes=("Ranking applies to pairwise sessions only.",)), payload
    battles = battles_from_votes(ctx.unique)
    tables = []
    if battles.empty:
        return Section("ranking", "Ranking", notes=("No battles: no pairwise votes on items with two named "
                                                    "models.",)), payload
    overall = rank_models(battles, n_boot=ctx.n_boot, seed=ctx.seed)
    payload["overall"] = _ranking_json(overall, len(battles))
    tables.append(_ranking_table("ranking_overall", "Ranking: all raters", overall, len(battles), ctx,
                                 note_split=False))  # the section's note says it
    for cohort in _cohorts(battles):
        part = battles.loc[battles["cohort"] == cohort]
        ranking = rank_models(part, n_boot=ctx.n_boot, seed=ctx.seed)
        payload["per_cohort"].append({"cohort": cohort, **_ranking_json(ranking, len(part))})
        tables.append(_ranking_table(f"ranking_{cohort}", f"Ranking: {cohort} votes", ranking, len(part), ctx))
    notes = (_components_note(overall),) if _n_components(overall) > 1 else ()
    return Section("ranking", "Ranking", tuple(tables), notes), payload
