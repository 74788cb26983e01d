"""Build the session report, a `Report` (data), from a session.

`build_report` backs `annotate report` (`annotate agreement`'s reports of a ratings file are in
file_reports.py, which imports none of the session's modules).

What enters the session report (each rule is also stated in the report's notes):

* votes: the session's current judgments and its imported external labels (`votes_frame`), skips
  left out;
* judgments made under a *planted* (deliberately wrong) suggestion are left out of every figure
  unless ``include_planted`` (docs/suggestions.md, "LLM suggestions and anchoring experiments"); suggestion labels
  themselves are never shown;
* agreement, pairwise agreement and ranking use one vote per (item, rater): the first main one, so
  a repeat of an item does not count twice, and attention checks are left out; quality uses them;
* pairwise labels are slot-space A / B / tie / both_bad; MT-Bench agreement and the rankings merge
  tie, both bad and inconsistent verdicts into one tie class;
* ranking sessions' labels are whole rankings in slot space (`C>A=B>D`): section Rankings measures
  agreement on their mid-ranks and the position bias by display position, and section Ranking
  ranks the models from the pairs each ranking implies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.context import NO_VOTES, Context, prepare_votes, raters_per_cohort, unique_votes
from annotate.report.model import Report, Section
from annotate.text import plural

if TYPE_CHECKING:
    from annotate.spec import SessionSpec
    from annotate.store import Store


REPORT_VERSION = 3
"""Bumped when a key of the JSON report changes meaning or disappears (2: the headline figures are the
human cohorts', LLM judges apart; intervals resample items; 3: past 1,000 raters the per-rater lists of the
biases and Dawid-Skene hold a subset and sum up the rest; docs/report-json.md, "Report JSON keys")."""

def build_report(
    spec: SessionSpec,
    store: Store,
    n_boot: int = 1000,
    seed: int | None = None,
    include_planted: bool = False,
    max_rows: int = 100,
    *,
    majority: str = "plurality",
    pool_llm: bool = False,
    mtbench_human: tuple[str, ...] = ("expert",),
    alt_epsilon: float | None = None,
    style_intervals: str = "auto",
) -> Report:
    """The lead's report on a session: summary, agreement, LLM judges against humans, pairwise (MT-Bench)
    agreement, biases, quality, ranking, style-controlled ranking, LLM judges as annotators, annotator
    competence; grades, aspects and rankings where the design has them.

    n_boot: bootstrap resamples (of items) for every interval (0: none); seed: their seed (default: the
    session's); include_planted: count judgments made under planted suggestions; max_rows: rows of
    per-rater tables shown in text / Markdown / HTML (the raters with most votes; JSON has all);
    majority: the rule that gives one verdict per item (`annotate.analysis.majority`); pool_llm: pool
    LLM judges with the human raters in the headline figures; mtbench_human: the cohorts that are
    "human" in the MT-Bench per-turn table; alt_epsilon: epsilon of the alternative annotator test
    (None: the paper's rule of thumb for the human cohorts present); style_intervals: the style-controlled
    ranking's intervals, auto (the item bootstrap up to `annotate.analysis.style_control.SANDWICH_ABOVE` items,
    the item-clustered sandwich above), bootstrap or sandwich.
    """
    from annotate.analysis.majority import MAJORITY_RULES

    if majority not in MAJORITY_RULES:
        raise ValueError(f"majority rule must be one of {', '.join(MAJORITY_RULES)}, not {majority!r}")
    from annotate.analysis.style_control import INTERVAL_METHODS

    if style_intervals not in INTERVAL_METHODS:
        raise ValueError(f"style intervals must be one of {', '.join(INTERVAL_METHODS)}, not {style_intervals!r}")
    seed = spec.seed if seed is None else seed
    votes, excluded = prepare_votes(spec, store, include_planted)
    unique = unique_votes(votes) if spec.kind != "rubric" else votes.iloc[:0]
    excluded["repeats_and_attention"] = len(votes) - len(unique) if spec.kind != "rubric" else 0
    primary = spec.schema.primary
    categories: tuple[Any, ...] = () if primary is None else primary.scale
    scored, rule = None, ""
    if primary is not None and primary.shape == "ranking":
        categories = ()
    elif primary is not None and primary.collapse_rule:  # graded: agreement on the strengths, the rest on preferences
        numbers = unique["value"].map(primary.number) if len(unique) else unique["label"]
        scored = unique.assign(label=numbers).loc[numbers.notna()]
        rule = primary.collapse_rule
    ctx = Context(spec, votes, unique, spec.schema.level, categories, n_boot, seed, max_rows, majority, pool_llm,
                  tuple(mtbench_human), scored, rule, style_intervals)
    n_items = store.count_items()
    cohorts, n_raters = raters_per_cohort(votes)
    n_judged = int((votes["source"] == "judgment").sum())
    meta = (
        ("session", f"{spec.name} ({spec.kind}, guideline {spec.guideline})"),
        ("data", f"{plural(n_items, 'item')}; {plural(len(votes), 'vote')} ({plural(n_judged, 'judgment')}, "
                 f"{len(votes) - n_judged} imported) from {plural(n_raters, 'rater')}"
                 + (" (" + ", ".join(f"{c} {n}" for c, n in sorted(cohorts.items())) + ")" if cohorts else "")),
        ("excluded", f"{plural(excluded['planted'], 'judgment')} under planted suggestions"
                     + (" (included: --include-planted)" if include_planted else "")
                     + f"; {plural(excluded['unknown_labels'], 'vote')} with labels outside the schema; "
                       f"{plural(excluded['repeats_and_attention'], 'repeat or attention check')} (agreement "
                       f"and ranking); {plural(excluded['adjudication'], 'adjudication')} (used as gold where an item "
                       "has none)"
                     + (f"; {plural(excluded['invalid'], 'imported label')} mapped to invalid (no usable answer)"
                        if excluded["invalid"] else "")),
        ("intervals", f"95 %, {n_boot} bootstrap resamples of items (each with all its votes), seed {seed}"),
        ("headline", "human cohorts only; LLM judges compared apart" if not pool_llm else
         "all raters: LLM judges pooled with humans (--pool-llm)"),
        ("majority rule", majority),
    )
    from annotate.report.sections.agreement import agreement_section
    from annotate.report.sections.bias import bias_section
    from annotate.report.sections.competence import competence_section
    from annotate.report.sections.judge_trust import judge_trust_section
    from annotate.report.sections.judges import judges_section
    from annotate.report.sections.pairwise import pairwise_section
    from annotate.report.sections.quality import quality_section
    from annotate.report.sections.ranking import ranking_section
    from annotate.report.sections.style_control import style_control_section

    def judge_trust(context: Context, source: Store) -> tuple[Section, dict[str, Any]]:
        return judge_trust_section(context, source, epsilon=alt_epsilon)

    builders = (agreement_section, judges_section, pairwise_section, bias_section, quality_section, ranking_section,
                style_control_section, judge_trust, competence_section)
    sections, data = [], {}
    for builder in builders:
        section, payload = builder(ctx, store)
        sections.append(section)
        data[section.key] = payload
    from annotate.report.sections.grades import grades_section

    graded = grades_section(ctx, store) if not votes.empty else None
    data["grades"] = None if graded is None else graded[1]
    if graded is not None:
        sections.insert(1, graded[0])  # after agreement: what a lead of a grading study reads first
    from annotate.report.sections.rankings import rankings_section

    ranked = rankings_section(ctx, store) if not votes.empty else None
    data["rankings"] = None if ranked is None else ranked[1]
    if ranked is not None:
        sections.insert(1, ranked[0])  # after agreement, which points here
    from annotate.report.sections.aspects import aspects_section

    asked = aspects_section(ctx, store) if not votes.empty else None
    data["aspects"] = None if asked is None else asked[1]
    if asked is not None:
        sections.append(asked[0])
    from annotate.report.sections.spans import spans_section

    marked = spans_section(ctx, store) if not votes.empty else None
    data["spans"] = None if marked is None else marked[1]
    if marked is not None:
        sections.append(marked[0])
    from annotate.report.sections.flags import flags_section

    flagged = flags_section(ctx, store)
    data["flags"] = None if flagged is None else flagged[1]
    if flagged is not None:
        sections.append(flagged[0])
    from annotate.report.sections.training import training_section

    trained = training_section(ctx, store)  # training answers are never votes: this is their only place
    data["training"] = None if trained is None else trained[1]
    if trained is not None:
        sections.append(trained[0])
    from annotate.report.suggestions import suggestions_section

    suggested = suggestions_section(spec, store, n_boot=n_boot, seed=seed, max_rows=max_rows)
    if suggested is not None:  # only for sessions with a suggestion experiment
        sections.append(suggested[0])
        data[suggested[0].key] = suggested[1]
    from annotate.report.sections.summary import summary_section

    if any((part or {}).get("interval_method") == "sandwich" for part in (data.get("style_control") or {}).values()):
        meta = tuple((key, text + "; the style-controlled ranking's: normal approximation, item-clustered sandwich "
                      "(its section says why)") if key == "intervals" else (key, text) for key, text in meta)
    data["session"] = {"excluded": excluded}
    summary, data["summary"] = summary_section(ctx, data)
    del data["session"]
    sections.insert(0, summary)
    notes: tuple[str, ...] = ()
    if votes.empty:  # the JSON keeps every (empty) section; the readable formats say why there is nothing
        sections = [s for s in sections if s.key in ("suggestions", "flags", "training")]
        notes = (NO_VOTES,)
    document = {
        "report_version": REPORT_VERSION,
        "session": {
            "name": spec.name, "kind": spec.kind, "level": ctx.level, "n_items": n_items, "n_votes": len(votes),
            "n_judgments": int((votes["source"] == "judgment").sum()),
            "n_imported": int((votes["source"] != "judgment").sum()),
            "n_raters": n_raters,
            "raters_per_cohort": {str(k): int(v) for k, v in cohorts.items()},
            "excluded": excluded, "include_planted": include_planted, "n_boot": n_boot, "seed": seed,
            "unit": "items", "majority_rule": majority, "pool_llm": pool_llm, "mtbench_human": list(mtbench_human),
        },
        "summary": data.pop("summary"),
        **data,
    }
    from annotate.report.reasons import add_reasons

    return Report(f"annotate report: {spec.name}", meta, tuple(sections), add_reasons(document), notes)

