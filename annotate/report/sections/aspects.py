"""Aspects: agreement, biases and ranking per aspect of a pair, and how often each aspect disagrees
with the overall verdict (sessions whose schema asks several questions per pair)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.design import OVERALL
from annotate.report.context import Context, long_votes
from annotate.report.model import Chart, Column, Section, Table
from annotate.report.tables import ci, reading

if TYPE_CHECKING:
    import pandas as pd

    from annotate.design import Question
    from annotate.store import Store

TITLE = "Aspects"


def aspect_votes(ctx: Context, store: Store) -> dict[str, pd.DataFrame]:
    """Aspect name -> the votes that count for it, one per (item, rater) as elsewhere, with `value`
    (stored, slot space), `label` (the preference it collapses to) and `label_side`.

    The primary aspect's are the report's own votes (imported ones included); the others come from
    the session's judgments only (imported votes carry one label, the primary aspect's)."""
    from annotate.model import slot_to_side
    from annotate.store.frames import answers_frame

    schema = ctx.spec.schema
    answers = answers_frame(store, schema)
    judged = ctx.unique.loc[ctx.unique["source"] == "judgment"].drop(columns=["value", "label", "label_side"])
    out: dict[str, pd.DataFrame] = {}
    for question in schema.questions:
        if question.name == schema.primary_name:
            out[question.name] = ctx.unique
            continue
        mine = answers.loc[answers["question"] == question.name, ["judgment_id", "value"]]
        votes = judged.merge(mine, on="judgment_id", how="inner")
        votes = votes.assign(label=votes["value"].map(question.preference))
        votes = votes.loc[votes["label"].notna()]
        votes["label_side"] = [slot_to_side(label, bool(swapped))
                               for label, swapped in zip(votes["label"], votes["swapped"], strict=True)]
        out[question.name] = votes
    return out


def _scored(question: Question, votes: pd.DataFrame) -> pd.DataFrame:
    """The votes as agreement measures them: on the question's own scale."""
    if question.level == "nominal":
        return votes
    numbers = votes["value"].map(question.number)
    return votes.assign(label=numbers).loc[numbers.notna()]


def aspects_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]] | None:
    """None unless the schema has aspects."""
    schema = ctx.spec.schema
    if not schema.aspects:
        return None
    from annotate.analysis.aspects import disagreement_with
    from annotate.analysis.bias import length_bias, position_bias
    from annotate.analysis.cohorts import battles_from_votes
    from annotate.analysis.ranking import rank_models
    from annotate.report.sections.agreement import _table_for

    by_aspect = aspect_votes(ctx, store)
    reference = OVERALL if OVERALL in by_aspect else None
    payload: dict[str, Any] = {"primary": schema.primary_name, "reference": reference, "per_aspect": []}
    agreement_rows, bias_rows, rank_rows, differ_rows = [], [], [], []
    for question in schema.questions:
        votes = by_aspect[question.name]
        entry: dict[str, Any] = {"aspect": question.name, "question": question.summary(), "level": question.level,
                                 "collapse_rule": question.collapse_rule or None}
        table = _table_for(long_votes(_scored(question, votes)), ctx, question.level, question.scale)
        entry["agreement"] = None if table is None else table.to_json()
        if table is not None:
            a = table.krippendorff_alpha
            agreement_rows.append((question.name, question.level, a.estimate if a.defined else None, ci(a), reading(a),
                                   table.percent_agreement.estimate, a.n_units, a.n_raters, a.n_pairable))
        judged = votes.loc[votes["source"] == "judgment"]
        position, length = position_bias(judged), length_bias(votes)
        entry["position"], entry["length"] = position.to_json(), length.to_json()
        p, ln = position.overall, length.overall
        bias_rows.append((question.name, p.share, (p.ci_low, p.ci_high), p.p_value, p.n,
                          ln.share, (ln.ci_low, ln.ci_high), ln.p_value, ln.n))
        battles = battles_from_votes(votes)
        ranking = rank_models(battles, n_boot=ctx.n_boot, seed=ctx.seed) if not battles.empty else ()
        entry["ranking"] = {"n_battles": len(battles), "models": [r.to_json() for r in ranking]}
        rank_rows += [(question.name, r.rank, r.model, r.rating, (r.ci_low, r.ci_high), r.win_rate, r.n_battles)
                      for r in ranking]
        entry["disagreement"] = None
        if reference is not None and question.name != reference:
            pairs = [by_aspect[question.name].assign(aspect=question.name),
                     by_aspect[reference].loc[lambda v: v["source"] == "judgment"].assign(aspect=reference)]
            import pandas as pd

            long = pd.concat([v[["judgment_id", "item", "rater", "aspect", "label"]] for v in pairs])
            result = disagreement_with(long.rename(columns={"label": "preference"}), question.name, reference,
                                       n_boot=ctx.n_boot, seed=ctx.seed)
            entry["disagreement"] = result.to_json()
            d, o = result.differs, result.opposite
            differ_rows.append((question.name, d.estimate, ci(d), o.estimate, ci(o), result.n_judgments,
                                result.n_items))
        payload["per_aspect"].append(entry)
    tables = [
        Table("aspects_agreement", "Agreement per aspect", (
            Column("aspect"), Column("level"), Column("alpha", "num"), Column("alpha 95 % CI", "ci"), Column("reading"),
            Column("percent", "num"), Column("units", "int"), Column("raters", "int"), Column("pairable", "int"),
        ), tuple(agreement_rows), (
            "Krippendorff's alpha at each aspect's level (graded aspects: ordinal on the signed strength, both bad "
            "left out); percent = percent agreement. The primary aspect counts imported votes too; the others only "
            "the session's judgments.", ctx.ci_note)),
        Table("aspects_bias", "Position and length bias per aspect", (
            Column("aspect"), Column("left", "pct"), Column("left 95 % CI", "pctci"), Column("p left", "p"),
            Column("n left", "int"), Column("longer", "pct"), Column("longer 95 % CI", "pctci"),
            Column("p longer", "p"), Column("n longer", "int"),
        ), tuple(bias_rows), (
            "left = share of Left among non-tie judgments of the aspect; longer = share of non-tie votes for the "
            "longer response; Wilson intervals, exact binomial tests against one half (as in Biases).",)),
        Table("aspects_ranking", "Ranking per aspect (Bradley-Terry)", (
            Column("aspect"), Column("rank", "int"), Column("model"), Column("rating", "num1"), Column("95 % CI", "ci"),
            Column("win rate", "pct"), Column("battles", "int"),
        ), tuple(rank_rows), (
            "Each aspect's preferences as battles (graded aspects collapsed to A / B / tie), ranked as in Ranking: "
            f"ties as half a win, 95 % bootstrap interval over battles ({ctx.n_boot} resamples, seed {ctx.seed}).",),
            Chart("interval", label=2, value=3, ci=4, title="rating per aspect with 95 % interval")),
    ]
    if reference is not None:
        tables.append(Table("aspects_vs_overall", f"How often each aspect disagrees with {reference}", (
            Column("aspect"), Column("differs", "pct"), Column("differs 95 % CI", "pctci"), Column("opposite", "pct"),
            Column("opposite 95 % CI", "pctci"), Column("judgments", "int"), Column("items", "int"),
        ), tuple(differ_rows), (
            f"Over the judgments that answered both: differs = the aspect's preference is not {reference}'s (graded "
            "answers collapsed to A / B / tie); opposite = one preferred A and the other B. 95 % percentile "
            f"bootstrap over items ({ctx.n_boot} resamples, seed {ctx.seed}).",),
            Chart("interval", label=0, value=1, ci=2, domain=(0.0, 1.0), title=f"share disagreeing with {reference}",
                  bars=True)))
    notes = (f"Aspects: {schema.summary()}.",) + (() if reference else (
        "No aspect is named overall, so none is compared with an overall verdict.",))
    return Section("aspects", TITLE, tuple(tables), notes), payload
