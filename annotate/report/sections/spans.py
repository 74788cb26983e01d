"""Error spans: errors marked per model, category and severity, per annotator, and how far annotators
agree on them (sessions whose schema has `[labels.spans]`; `annotate.analysis.spans` says how)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.cells import estimate_cell, interval_cell
from annotate.report.context import Context, unique_votes
from annotate.report.model import Chart, Column, Section, Table

if TYPE_CHECKING:
    from annotate.design.spans import Taxonomy
    from annotate.store import Store

TITLE = "Error spans"
NO_ERRORS = "no response judged"
NO_PAIR = "no response judged by two annotators where either marked this"


def _taxonomy(ctx: Context) -> Taxonomy | None:
    """The session's taxonomy (from the spec or its guideline), or None when the guideline cannot be read."""
    from annotate.guidelines import GuidelineError, load_guideline
    from annotate.session import session_taxonomy

    try:
        guideline = load_guideline(ctx.spec.guideline, ctx.spec.project_dir)
    except (GuidelineError, OSError):
        guideline = None
    try:
        return session_taxonomy(ctx.spec, guideline)
    except ValueError:
        return None


def spans_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]] | None:
    """None unless the session's answers include error spans."""
    spans_spec = ctx.spec.schema.spans
    if spans_spec is None:
        return None
    from annotate.analysis.spans import ANY, error_rates, span_agreement
    from annotate.design.spans import SEVERITIES, words
    from annotate.store.frames import span_frames

    taxonomy = _taxonomy(ctx)
    categories = taxonomy.categories if taxonomy is not None else spans_spec.categories
    severities = taxonomy.severities if taxonomy is not None else (spans_spec.severities or SEVERITIES)
    judged = ctx.votes.loc[ctx.votes["source"] == "judgment"]
    judged = unique_votes(judged.loc[ctx.is_headline(judged)])
    responses, spans = span_frames(store, judged)
    rates = error_rates(responses, spans, categories, severities, n_boot=ctx.n_boot, seed=ctx.seed)
    per_rater = error_rates(responses.assign(model=responses["rater"]), spans, categories, severities,
                            n_boot=ctx.n_boot, seed=ctx.seed).per_model[1:]
    agreement = span_agreement(responses, spans, categories, n_boot=ctx.n_boot, seed=ctx.seed)

    def model_name(model: str | None) -> str:
        return "(every model)" if model is None else model

    model_rows = tuple(
        (model_name(m.model), m.n_responses, m.n_errors, estimate_cell(m.flagged, why=NO_ERRORS),
         interval_cell(m.flagged), estimate_cell(m.per_response, why=NO_ERRORS), interval_cell(m.per_response),
         m.flagged.n_units)
        for m in rates.per_model)
    category_rows = tuple(
        (model_name(c.model), words(c.category), words(c.severity), c.n_errors, estimate_cell(c.rate, why=NO_ERRORS),
         interval_cell(c.rate))
        for c in rates.per_category)
    shown_raters = sorted(per_rater, key=lambda m: (-m.n_responses, str(m.model)))[: ctx.max_rows]
    rater_rows = tuple(
        (str(m.model), m.n_responses, m.n_errors, estimate_cell(m.flagged, why=NO_ERRORS), interval_cell(m.flagged),
         estimate_cell(m.per_response, why=NO_ERRORS))
        for m in shown_raters)
    flag_rows = ((estimate_cell(agreement.flagged_percent, why=NO_PAIR), interval_cell(agreement.flagged_percent),
                  estimate_cell(agreement.flagged_alpha), interval_cell(agreement.flagged_alpha),
                  agreement.n_responses, agreement.flagged_percent.n_pairable, agreement.n_items),)
    overlap_rows = tuple(
        ("any category" if o.category == ANY else words(o.category), estimate_cell(o.f1, why=NO_PAIR),
         interval_cell(o.f1), o.f1.n_pairable, o.chars_both, o.chars, o.f1.n_units)
        for o in agreement.overlap)
    who = ctx.headline_name.lower()
    source = "" if taxonomy is None else (
        " (categories from " + ("the spec" if taxonomy.source == "spec" else f"guideline {taxonomy.source}") + ")")
    notes = (
        f"Taxonomy: {', '.join(words(c) for c in categories) or '(none declared)'}; severities "
        f"{', '.join(words(s) for s in severities)}{source}.",
        f"Counted: the current judgments of {who}, one per item and annotator (as in Agreement); a pairwise judgment "
        "judges both responses. Offsets index the original response text (docs/sessions.md, \"Error spans\").",
        ctx.ci_note,
    )
    tables = (
        Table("spans_models", "Errors per model", (
            Column("model"), Column("responses", "int"), Column("errors", "int"), Column("flagged", "pct"),
            Column("flagged 95 % CI", "pctci"), Column("errors per response", "num"), Column("95 % CI", "ci"),
            Column("items", "int"),
        ), model_rows, ("responses = judged responses (one per judgment and response); flagged = share of them with "
                        "at least one error marked; errors per response = errors marked / responses.",),
            Chart("interval", label=0, value=5, ci=6, title="errors per judged response, 95 % interval", bars=True),
            empty="no judgment counted yet"),
        Table("spans_categories", "Errors per category and severity", (
            Column("model"), Column("category"), Column("severity"), Column("errors", "int"),
            Column("per response", "num"), Column("95 % CI", "ci"),
        ), category_rows, ("per response = errors of this category and severity / the model's judged responses; "
                           "only kinds marked at least once are listed.",), empty="no error marked yet"),
        Table("spans_raters", "Errors per annotator", (
            Column("rater"), Column("responses", "int"), Column("errors", "int"), Column("flagged", "pct"),
            Column("flagged 95 % CI", "pctci"), Column("errors per response", "num"),
        ), rater_rows, ("An annotator who flags far more or far fewer responses than the others reads the taxonomy "
                        "differently: compare with the guideline.",), empty="no judgment counted yet"),
        Table("spans_flagged", "Do two annotators flag the same response?", (
            Column("pairs agreeing", "pct"), Column("95 % CI", "pctci"), Column("alpha", "num"),
            Column("alpha 95 % CI", "ci"), Column("responses", "int"), Column("pairs", "int"), Column("items", "int"),
        ), flag_rows, ("Over responses judged by two or more annotators: pairs agreeing = share of annotator pairs "
                       "that agree on whether the response has an error at all; alpha = Krippendorff's alpha "
                       "(nominal) on that yes / no, responses as units.",)),
        Table("spans_overlap", "Where: character overlap F1 per category", (
            Column("category"), Column("F1", "num"), Column("95 % CI", "ci"), Column("pairs marked", "int"),
            Column("chars both", "int"), Column("chars marked", "int"), Column("items", "int"),
        ), overlap_rows, ("For two annotators of the same response, the characters each marked with the category: "
                          "F1 = 2 x chars both / chars marked (both annotators' counts added), pooled over every pair; "
                          "pairs where neither marked it add nothing (pairs marked = those where either did).",),
            Chart("interval", label=0, value=1, ci=2, domain=(0.0, 1.0), title="overlap F1 with 95 % interval",
                  bars=True)),
    )
    payload = {
        "taxonomy": {"categories": list(categories), "severities": list(severities),
                     "source": None if taxonomy is None else taxonomy.source},
        "raters": "all" if ctx.pool_llm else "human",
        "unit": "items",
        "n_judgments": len(judged),
        "n_responses": len(responses),
        "n_errors": int(rates.per_model[0].n_errors) if rates.per_model else 0,
        **rates.to_json(),
        "per_rater": [{**m.to_json(), "rater": m.model} for m in per_rater],
        "agreement": agreement.to_json(),
    }
    for entry in payload["per_rater"]:
        del entry["model"]
    return Section("spans", TITLE, tables, notes), payload
