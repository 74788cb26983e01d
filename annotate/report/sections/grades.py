"""Grades (single-grade and rubric sessions): mean grade per model, category, turn and criterion with
item-bootstrap intervals, the ranking by mean grade, the MT-Bench single-grade table (model x turn),
the distribution of grades, agreement at the ordinal and interval levels, and the correlation
between rubric criteria."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Any

from annotate.frame_codes import filled
from annotate.report.context import Context, label_text, long_votes, unique_votes
from annotate.report.model import Chart, Column, Section, Table
from annotate.report.tables import ci

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store import Store

TITLE = "Grades"
GRADE_COLUMNS = ("item", "rater", "cohort", "model", "category", "turn", "criterion", "score")


def grade_frame(ctx: Context, store: Store) -> pd.DataFrame:
    """One row per grade that counts (the votes of the other sections: one per item and rater, attention
    checks, adjudications and planted suggestions left out), columns GRADE_COLUMNS; `criterion` is the
    question (`grade` for single sessions), `model` the graded response's, `turn` per `item_turns`."""
    import pandas as pd

    from annotate.store.frames import answers_frame, item_turns

    schema = ctx.spec.schema
    turns = item_turns(store)
    if schema.kind == "rubric":
        votes = unique_votes(ctx.votes)
        answers = answers_frame(store, schema)
        votes = votes.drop(columns=["label"]).merge(answers, on="judgment_id", how="inner")
        by_name = {q.name: q for q in schema.questions}
        scores = [by_name[q].number(v) for q, v in zip(votes["question"], votes["value"], strict=True)]
        votes = votes.assign(criterion=votes["question"], score=scores)
    else:
        primary = schema.primary
        assert primary is not None
        votes = ctx.unique.assign(criterion=primary.name, score=ctx.unique["label"])
    frame = votes.assign(model=filled(votes["model_a"], "(no model)").astype(str),
                         category=filled(votes["category"], "(none)").astype(str),
                         turn=votes["item"].map(turns).fillna(1).astype(int))
    frame = frame.loc[pd.to_numeric(frame["score"], errors="coerce").notna()]
    return frame.assign(score=pd.to_numeric(frame["score"]))[list(GRADE_COLUMNS)].reset_index(drop=True)


def _mean_cells(m: Any) -> tuple[Any, ...]:
    e = m.mean
    return (e.estimate, ci(e), m.sd, e.n_pairable, e.n_units)


_MEAN_COLUMNS = (Column("mean", "num"), Column("95 % CI", "ci"), Column("sd", "num"), Column("grades", "int"),
                 Column("items", "int"))


def grades_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]] | None:
    """None for pairwise and ranking sessions."""
    schema = ctx.spec.schema
    if schema.kind in ("pairwise", "ranking"):
        return None
    from annotate.analysis.grades import mean_by, rank_by_mean

    grades = grade_frame(ctx, store)
    questions = schema.questions
    rubric = schema.kind == "rubric"
    lead = (Column("criterion"),) if rubric else ()
    boot = {"n_boot": ctx.n_boot, "seed": ctx.seed}
    ci_note = (f"95 % percentile bootstrap over items ({ctx.n_boot} resamples, seed {ctx.seed}): all grades of an "
               "item are drawn together. mean = sum of grades / grades (items graded more often weigh more).")
    payload: dict[str, Any] = {"per_model": [], "per_category": [], "per_turn": [], "mtbench": [],
                               "distribution": [], "agreement": [], "correlation": []}
    tables: list[Table] = []
    # per model, best first: the ranking by mean grade
    rows = []
    for q in questions:
        part = grades.loc[grades["criterion"] == q.name]
        for rank, m in rank_by_mean(mean_by(part, ["model"], **boot)):
            rows.append(((q.name,) if rubric else ()) + (rank, m.key[0], *_mean_cells(m)))
            payload["per_model"].append({"criterion": q.name, "rank": rank, **m.to_json(["model"])})
    tables.append(Table("grades_per_model", "Mean grade per model (ranking by mean grade)",
                        (*lead, Column("rank", "int"), Column("model"), *_MEAN_COLUMNS), tuple(rows),
                        ("rank = 1 + the number of models whose lower bound is above this model's upper bound"
                         + (" (per criterion)." if rubric else "."), ci_note),
                        None if rubric else Chart("interval", label=1, value=2, ci=3,
                                                  title="mean grade, 95 % interval")))
    for key, title, json_key in (("category", "Mean grade per item category", "per_category"),
                                 ("turn", "Mean grade per turn", "per_turn")):
        rows = []
        for q in questions:
            part = grades.loc[grades["criterion"] == q.name]
            for m in mean_by(part, [key], **boot):
                rows.append(((q.name,) if rubric else ()) + (label_text(m.key[0]), *_mean_cells(m)))
                payload[json_key].append({"criterion": q.name, **m.to_json([key])})
        note = ("turn: the item's metadata `turn`, else the number of user messages up to the graded answer."
                if key == "turn" else "")
        tables.append(Table(f"grades_per_{key}", title, (*lead, Column(key), *_MEAN_COLUMNS), tuple(rows),
                            tuple(n for n in (note, ci_note) if n)))
    if not rubric:
        tables.append(_mtbench_table(grades, payload, boot))
    tables.append(_distribution_table(ctx, grades, payload))
    tables.append(_agreement_table(ctx, grades, payload))
    if rubric:
        tables.append(_correlation_table(ctx, grades, payload))
    notes = (f"Grades: {schema.summary()}. Every grade counts once per item and rater (repeats, attention checks, "
             "adjudications and judgments under planted suggestions left out, as in Agreement).",)
    return Section("grades", TITLE, tuple(tables), notes), payload


def _mtbench_table(grades: pd.DataFrame, payload: dict[str, Any], boot: dict[str, Any]) -> Table:
    """MT-Bench's single-grade table: per model the mean grade in each turn and over all turns."""
    from annotate.analysis.grades import mean_by

    turns = sorted(int(t) for t in grades["turn"].unique())
    by_turn = {(m.key[0], int(m.key[1])): m for m in mean_by(grades, ["model", "turn"], n_boot=0)}
    overall = sorted(mean_by(grades, ["model"], **boot), key=lambda m: -m.mean.estimate)
    rows = []
    for m in overall:
        model = m.key[0]
        cells = [by_turn[model, t].mean.estimate if (model, t) in by_turn else None for t in turns]
        rows.append((model, *cells, m.mean.estimate, ci(m.mean), m.mean.n_pairable))
        payload["mtbench"].append({"model": model, "turns": {str(t): c for t, c in zip(turns, cells, strict=True)},
                                   "mean": m.mean.to_json()})
    columns = (Column("model"), *(Column(f"turn {t}", "num") for t in turns), Column("all turns", "num"),
               Column("95 % CI", "ci"), Column("grades", "int"))
    return Table("grades_mtbench", "Single-grade table (MT-Bench): mean grade per model and turn", columns,
                 tuple(rows), ("As MT-Bench reports single-answer grading (Zheng et al. 2023, FastChat show_result): "
                               "the mean grade of each model in each turn and over all its grades, best first; the "
                               "interval is over items.",))


def _distribution_table(ctx: Context, grades: pd.DataFrame, payload: dict[str, Any]) -> Table:
    """How many grades took each value, per criterion (single: overall and per model)."""
    from annotate.analysis.grades import distribution

    questions = ctx.spec.schema.questions
    values = sorted({v for q in questions for v in q.scale})
    groups: list[tuple[str, Any, pd.DataFrame]] = []
    for q in questions:
        part = grades.loc[grades["criterion"] == q.name]
        groups.append((q.name, q, part))
        if ctx.spec.schema.kind != "rubric":
            groups += [(f"model {model}", q, sub) for model, sub in part.groupby("model", sort=True)]
    rows = []
    for name, q, part in groups:
        counts = distribution(part, values)
        on_scale = set(q.scale)
        cells = [c if v in on_scale else None for v, c in zip(values, counts, strict=True)]
        rows.append((name, *cells, len(part)))
        payload["distribution"].append({"group": name, "criterion": q.name,
                                        "counts": {str(v): c for v, c in zip(values, counts, strict=True)
                                                   if v in on_scale}, "n": len(part)})
    columns = (Column("grades of"), *(Column(str(v), "int") for v in values), Column("n", "int"))
    return Table("grades_distribution", "Distribution of grades", columns, tuple(rows),
                 ("Number of grades of each value (– where the value is off that criterion's scale).",),
                 Chart("histogram", label=0, cells=tuple(range(1, 1 + len(values))), title="grades"))


def _agreement_table(ctx: Context, grades: pd.DataFrame, payload: dict[str, Any]) -> Table:
    """Krippendorff's alpha of each question's grades at the ordinal and at the interval level."""
    from annotate.analysis.agreement import krippendorff_alpha
    from annotate.analysis.agreement.coded import coded_ratings

    rows = []
    for q in ctx.spec.schema.questions:
        part = grades.loc[grades["criterion"] == q.name].assign(label=lambda g: g["score"])
        if part["rater"].nunique() < 2:
            continue
        coded, _units, _raters, categories = coded_ratings(long_votes(part), order=list(q.scale))
        alphas = {level: krippendorff_alpha(coded, level, categories, n_boot=ctx.n_boot, seed=ctx.seed)
                  for level in ("ordinal", "interval")}
        o, i = alphas["ordinal"], alphas["interval"]
        rows.append((q.name, o.estimate if o.defined else None, ci(o), i.estimate if i.defined else None, ci(i),
                     o.n_units, o.n_raters, o.n_pairable))
        payload["agreement"].append({"criterion": q.name, "ordinal": o.to_json(), "interval": i.to_json()})
    columns = (Column("criterion" if ctx.spec.schema.kind == "rubric" else "question"), Column("alpha ordinal", "num"),
               Column("ordinal 95 % CI", "ci"), Column("alpha interval", "num"), Column("interval 95 % CI", "ci"),
               Column("units", "int"), Column("raters", "int"), Column("pairable", "int"))
    return Table("grades_agreement", "Agreement of grades: ordinal and interval level", columns, tuple(rows), (
        "Krippendorff's alpha on the grades as ranks (ordinal) and as numbers whose differences count (interval, "
        "squared differences); see Agreement for the other coefficients.", ctx.ci_note))


def _correlation_table(ctx: Context, grades: pd.DataFrame, payload: dict[str, Any]) -> Table:
    """Pearson's r and Spearman's rho between every pair of rubric criteria, over judgments."""
    from annotate.analysis.grades import criterion_correlation

    wide = grades.pivot_table(index=["item", "rater"], columns="criterion", values="score", aggfunc="first")
    wide = wide.reset_index()
    questions = ctx.spec.schema.questions
    rows = []
    for a, b in combinations(questions, 2):
        if a.name not in wide.columns or b.name not in wide.columns:
            continue
        c = criterion_correlation(wide, a.name, b.name, a.scale, b.scale, n_boot=ctx.n_boot, seed=ctx.seed)
        rows.append((a.name, b.name, c.pearson.estimate, ci(c.pearson), c.spearman.estimate, ci(c.spearman),
                     c.pearson.n_pairable, c.pearson.n_units))
        payload["correlation"].append(c.to_json())
    columns = (Column("criterion a"), Column("criterion b"), Column("Pearson r", "num"), Column("r 95 % CI", "ci"),
               Column("Spearman rho", "num"), Column("rho 95 % CI", "ci"), Column("judgments", "int"),
               Column("items", "int"))
    return Table("grades_correlation", "Correlation between rubric criteria", columns, tuple(rows), (
        "Over judgments that scored both criteria; Spearman's rho with mid-ranks for ties. 95 % percentile bootstrap "
        f"over items ({ctx.n_boot} resamples, seed {ctx.seed}).",))
