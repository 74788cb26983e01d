"""Can the LLM judge stand in for annotators? The alternative annotator test, agreement with the
human majority, and drift between judge versions.

Judges are the LLM raters among the votes (cohort ``llm``) and the stored suggestions, one judge per
source model and prompt (planted suggestions left out); humans are every other cohort.  Computed by
`annotate.analysis.alt_test` and `annotate.analysis.judge_trust`; this module lays the results out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.context import Context
from annotate.report.figures import interval, reason_cell, value
from annotate.report.model import Column, NotEnough, Section, Table
from annotate.text import plural

if TYPE_CHECKING:
    import pandas as pd

    from annotate.store import Store

KEY, TITLE = "judge_trust", "LLM judges as annotators"
_TIES = {"both_bad": "tie", "tie_inconsistent": "tie"}
_LISTED = 10
"""Annotators named per judge in the note on who was not tested (the JSON lists all)."""


def _labels(ctx: Context, frame: pd.DataFrame) -> pd.DataFrame:
    """Labels as the tests compare them: pairwise tie / both bad / inconsistent are one class; grades numbers."""
    import pandas as pd

    if ctx.pairwise:
        return frame.assign(label=frame["label"].replace(_TIES))
    return frame.assign(label=pd.to_numeric(frame["label"], errors="coerce")).dropna(subset=["label"])


def _judges(ctx: Context, store: Store) -> tuple[dict[str, pd.DataFrame], pd.DataFrame, tuple[dict[str, Any], ...]]:
    """Each judge's labels (columns unit, label), the suggestion versions' labels and their descriptions."""
    import pandas as pd

    from annotate.analysis.judge_trust import suggestion_versions

    judges: dict[str, pd.DataFrame] = {}
    for rater, part in ctx.judges.groupby("rater", sort=True):
        judges[f"{rater} (votes)"] = _labels(ctx, part.rename(columns={"item": "unit"})[["unit", "label"]])
    stored = [s for s in store.suggestions() if not s.planted]
    frame = pd.DataFrame([{"item": s.item_id, "source_model": s.source_model, "prompt_hash": s.prompt_hash,
                           "label": s.label, "raw": s.raw} for s in stored],
                         columns=["item", "source_model", "prompt_hash", "label", "raw"])
    labels, versions = suggestion_versions(frame)
    labels = _labels(ctx, labels)
    for judge, part in labels.groupby("judge", sort=True):
        judges[f"{judge} (suggestions)"] = part[["unit", "label"]]
    return judges, labels, versions


def _no_resample(n_units: int, ctx: Context) -> NotEnough | None:
    """Why an interval is missing although resamples were asked for (one item), else None."""
    from annotate.report.cells import NO_RESAMPLE

    return NotEnough(n_units, "items", NO_RESAMPLE) if ctx.n_boot and n_units < 2 else None


def _prompt(version: dict[str, Any]) -> str:
    """A version's prompt: the first 12 hex digits of its hash and where the template came from."""
    source = version.get("prompt_source")
    return version["prompt_hash"][:12] + (f" ({source})" if source else "")


def _alt_rows(name: str, scope: str, result: Any) -> tuple[Any, ...]:
    verdict = ("passes" if result.passed else "fails") if result.passed is not None else reason_cell(result.reason)
    tested = f"{result.n_tested} of {len(result.trials)}"
    short = NotEnough(result.n_items, "items", "no annotator tested")
    return (name, scope, result.n_items, tested, result.epsilon, value(result.winning_rate, short),
            value(result.advantage, short), verdict)


def judge_trust_section(ctx: Context, store: Store, epsilon: float | None = None) -> tuple[Section, dict[str, Any]]:
    from annotate.analysis.alt_test import DEFAULT_ALPHA, MIN_ITEMS, alt_test, default_epsilon
    from annotate.analysis.judge_trust import agreement_with_majority, judge_drift
    from annotate.analysis.majority import describe_rule
    from annotate.store.frames import items_frame

    payload: dict[str, Any] = {"epsilon": None, "epsilon_rule": None, "alt_test": [], "with_human_majority": [],
                               "drift": None}
    if ctx.spec.kind == "rubric":
        return Section(KEY, TITLE, notes=("Rubric sessions: judges are not tested per criterion yet.",)), payload
    if ctx.spec.kind == "ranking":
        return Section(KEY, TITLE, notes=("Ranking sessions: judges are not tested on rankings yet (the test here "
                                          "compares verdicts and grades, not orders).",)), payload
    judges, version_labels, versions = _judges(ctx, store)
    if not judges:
        return Section(KEY, TITLE, notes=("No LLM judge in this session (no votes of cohort llm, no suggestions): "
                                          "nothing to test.",)), payload
    humans_votes = ctx.humans
    humans = _labels(ctx, humans_votes.rename(columns={"item": "unit"})[["unit", "rater", "label"]])
    cohorts = sorted(humans_votes["cohort"].unique())
    eps = default_epsilon(cohorts) if epsilon is None else epsilon
    rule = ("given (--alt-epsilon)" if epsilon is not None else
            f"the paper's rule of thumb for the human cohorts here ({', '.join(cohorts) or 'none'}): expert 0.2, "
            "skilled 0.15, crowd 0.1, the smallest applies")
    payload["epsilon"], payload["epsilon_rule"] = eps, rule
    scoring = "accuracy" if ctx.pairwise else "neg_rmse"
    rule_of = ctx.majority if ctx.pairwise else "plurality"
    majority_text = (describe_rule(rule_of) if ctx.pairwise else
                     "plurality: the most frequent grade; items where the top count is shared have none")
    category = items_frame(store).set_index("item")["category"]
    alt_rows, trial_rows, majority_rows = [], [], []
    untested_notes: list[str] = []
    small_notes: list[str] = []
    for name, labels in judges.items():
        overall = alt_test(humans, labels, epsilon=eps, scoring=scoring)
        per_category = []
        alt_rows.append(_alt_rows(name, "all items", overall))
        untested = [t for t in overall.trials if t.rejected is None]
        for trial in overall.trials:
            if trial.rejected is None:
                continue
            flat = NotEnough(trial.n_items, "items", "no spread at epsilon")
            trial_rows.append((name, str(trial.rater), trial.n_items, trial.rho_judge, trial.rho_human,
                               value(trial.p_value, flat), "yes" if trial.rejected else "no"))
        if untested:
            listed = untested[:_LISTED]
            untested_notes.append(
                f"{name}: {plural(len(untested), 'annotator')} not tested, fewer than {MIN_ITEMS} items shared with "
                "the judge and another annotator: " + ", ".join(f"{t.rater} (n = {t.n_items})" for t in listed)
                + (f" and {len(untested) - len(listed)} more (in the JSON report)" if len(untested) > len(listed)
                   else "") + ".")
        small = 0
        for cat in sorted(category.dropna().unique()):
            units = set(category.index[category == cat])
            mine = labels.loc[labels["unit"].isin(units)]
            if mine["unit"].nunique() < MIN_ITEMS:  # no annotator can be tested: not worth a row per category
                small += 1
                continue
            result = alt_test(humans.loc[humans["unit"].isin(units)], mine, epsilon=eps, scoring=scoring)
            alt_rows.append(_alt_rows(name, f"category {cat}", result))
            per_category.append({"category": cat, **result.to_json()})
        if small:
            small_notes.append(f"{name}: {plural(small, 'category', 'categories')} with fewer than {MIN_ITEMS} items "
                               "labelled by the judge not tested on their own (no annotator could be).")
        payload["alt_test"].append({"judge": name, **overall.to_json(), "per_category": per_category,
                                    "n_categories_too_small": small})
        agree = agreement_with_majority(name, labels, humans, n_boot=ctx.n_boot, seed=ctx.seed, rule=rule_of)
        a = agree.agreement
        majority_rows.append((name, a.n_units, value(a.estimate, agree.reason),
                              interval(a.ci_low, a.ci_high, agree.reason or _no_resample(a.n_units, ctx)),
                              agree.n_no_majority, agree.n_no_humans))
        payload["with_human_majority"].append(agree.to_json())
    score_text = ("share of them giving the same label" if scoring == "accuracy" else
                  "minus the root mean squared difference from their grades")
    what = ("labels A, B and tie (tie, both bad and inconsistent merged)" if ctx.pairwise else
            "grades as numbers")
    tables = [
        Table(f"{KEY}_alt_test", "Alternative annotator test: may the judge replace the human annotators?",
              (Column("judge"), Column("scope"), Column("items used", "int"), Column("annotators tested"),
               Column("epsilon", "num"), Column("winning rate", "num"), Column("advantage probability", "num"),
               Column("result")),
              tuple(alt_rows),
              (f"Calderon, Reichart & Dror (ACL 2025): each human annotator is left out in turn and the judge and that "
               f"annotator are scored against the remaining annotators on the items the left-out one answered "
               f"({score_text}; {what}); the judge wins against the annotator when the one-sided "
               f"paired t-test rejects rho_judge - rho_human <= -epsilon, after the Benjamini-Yekutieli correction "
               f"over the annotators at {DEFAULT_ALPHA}. Winning rate = share of tested annotators won; the judge "
               "passes at >= 0.5. Advantage probability = mean chance that the judge is at least as close to the "
               "others as the left-out annotator (to compare judges).",
               f"epsilon = {eps:g}: {rule}. Items used: items with the judge's label and at least two human labels; "
               f"an annotator is tested with at least {MIN_ITEMS} such items (the t-test's normality), the paper asks "
               "for at least three annotators tested. Unit: the item; human votes only, one per annotator and item.",
               *small_notes)),
        Table(f"{KEY}_majority", "Each judge against the human majority",
              (Column("judge"), Column("items compared", "int"), Column("agreement", "pct"), Column("95 % CI", "pctci"),
               Column("items without a majority", "int"), Column("items no human saw", "int")),
              tuple(majority_rows),
              (f"Human majority: one verdict per item from the human votes, rule {majority_text}; items without one "
               "are counted apart. Agreement: share of compared items where the judge gave the majority's label.",
               ctx.ci_note)),
    ]
    if trial_rows:
        tables.insert(1, Table(
            f"{KEY}_alt_annotators", "Alternative annotator test per left-out annotator (all items)",
            (Column("judge"), Column("annotator"), Column("items", "int"), Column("rho judge", "num"),
             Column("rho annotator", "num"), Column("p (one-sided)", "p"), Column("judge wins")),
            tuple(trial_rows[: ctx.max_rows * 5]),
            ("Tested annotators only. rho: share of the annotator's items where that side is at least as close to "
             "the other annotators (ties count for both); p before the correction (no spread at epsilon: every "
             "item scored alike and the mean difference is exactly epsilon, so the t-test is undefined); judge "
             "wins = rejected after it.",
             *untested_notes)))
    if len(versions) > 1:
        drift = judge_drift(version_labels, humans, versions, n_boot=ctx.n_boot, seed=ctx.seed, rule=rule_of)
        payload["drift"] = drift.to_json()
        tables.append(Table(f"{KEY}_versions", "Judge versions among the suggestions",
                            (Column("version"), Column("model asked"), Column("prompt"), Column("model that answered"),
                             Column("settings"), Column("suggestions", "int")),
                            tuple((v["version"], v["source_model"], _prompt(v),
                                   v["reported_models"] or "not reported", v["settings"] or "not stored",
                                   v["n_suggestions"]) for v in versions),
                            ("A version is one model asked with one prompt (its hash: the same hash, the same "
                             "template; where it came from in brackets), split further when the model the server "
                             "reported or the request settings differ within it (stored with each suggestion).",)))
        rows = [(p.first, p.second, p.agreement.n_units, value(p.agreement.estimate, p.reason),
                 interval(p.agreement.ci_low, p.agreement.ci_high, p.reason or _no_resample(p.agreement.n_units, ctx)),
                 p.n_differ) for p in drift.pairs]
        tables.append(Table(f"{KEY}_drift", "Drift between judge versions",
                            (Column("version"), Column("against"), Column("shared items", "int"),
                             Column("same label", "pct"), Column("95 % CI", "pctci"),
                             Column("items that differ", "int")),
                            tuple(rows),
                            ("Two versions on the items both labelled: the share with the same label, interval over "
                             "those items; each version against the human majority is in the table above "
                             "(suggestions) and in the JSON (drift.with_human_majority).",)))
    notes = (f"{plural(len(judges), 'judge')} against {plural(humans['rater'].nunique(), 'human annotator')}. "
             "The judges are never part of the human figures here.", *([] if trial_rows else untested_notes))
    return Section(KEY, TITLE, tuple(tables), notes), payload
