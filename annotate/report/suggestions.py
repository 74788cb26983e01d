"""The report's "Suggestions" section: what LLM suggestions did to the annotators' answers.

Built from `annotate.analysis.anchoring` over the session's `anchoring_frame`; this module only lays
the results out (no statistic is computed here). The section appears when the session has an
experiment (assignments under a display mode other than `none`) or judgments linked to a
suggestion; otherwise `suggestions_section` returns None and the report has no such section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from annotate.report.context import not_enough
from annotate.report.model import Chart, Column, Section, Table
from annotate.text import plural

if TYPE_CHECKING:
    from annotate.analysis.anchoring import AnchoringResult
    from annotate.spec import SessionSpec
    from annotate.store import Store

__all__ = ["FAST_ACCEPT_MS", "suggestions_section"]

FAST_ACCEPT_MS = 3000
"""A judgment agreeing with the suggestion in under this much active time is a fast accept."""
SECTION_KEY = "suggestions"
TITLE = "Suggestions"


def _as_preferences(spec: SessionSpec, frame: Any) -> Any:
    """Graded answers as the preference they collapse to, so they compare with a suggestion's A / B /
    tie / both_bad (other designs: unchanged)."""
    primary = spec.schema.primary
    if primary is None or not primary.collapse_rule:
        return frame

    def collapse(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        parsed = primary.parse(value)
        return primary.preference(parsed) if parsed is not None else value

    return frame.assign(**{c: frame[c].map(collapse) for c in ("final_label", "initial_label", "gold")})


def suggestions_section(
    spec: SessionSpec, store: Store, *, n_boot: int, seed: int, max_rows: int = 100, n_perm: int | None = None,
) -> tuple[Section, dict[str, Any]] | None:
    """The section and its JSON payload, or None when the session has no suggestion experiment."""
    from annotate.analysis.anchoring import analyse_anchoring
    from annotate.experiment import EXPERIMENT_META_KEY, stored_redraws
    from annotate.store.suggestion_frames import anchoring_frame, has_experiment

    if not has_experiment(store):
        return None
    frame = _as_preferences(spec, anchoring_frame(store))
    linked = frame["suggestion"].notna()
    if not linked.any() and set(frame["condition"].dropna()) <= {"none"}:
        return None
    n_perm = n_boot if n_perm is None else n_perm
    redrawn, why_not = stored_redraws(store, n_perm)
    result = analyse_anchoring(frame, design=_design(spec), fast_ms=FAST_ACCEPT_MS, n_boot=n_boot,
                               n_perm=n_perm, seed=seed, redrawn=redrawn)
    consistency = _position_consistency(store, spec)
    payload = result.to_json()
    payload["experiment_hash"] = store.get_meta(EXPERIMENT_META_KEY)
    payload["position_consistency"] = consistency
    payload["n_planted_judgments"] = int(frame["planted"].sum())
    tables = [_effect_table(result), _reliance_table(result), _accuracy_table(result), _time_table(result)]
    if result.switches is not None:
        tables.append(_switch_table(result))
    tables += [_annotator_table(result, max_rows), _shift_table(result), _llm_table(result, consistency)]
    notes = [*_headline(result), *result.notes]
    if redrawn is None and result.effects and n_perm > 0:
        notes.append(f"The randomization test permutes the observed conditions instead of re-drawing the design: "
                     f"{why_not}.")
    exp_hash = payload["experiment_hash"]
    n_planted = payload["n_planted_judgments"]
    notes.append(
        f"Design: {result.design} annotators"
        + (f"; experiment hash {exp_hash[:12]}" if exp_hash else "; no stored experiment design")
        + f"; {plural(n_planted, 'judgment')} {'was' if n_planted == 1 else 'were'} made under planted "
        "(deliberately wrong) suggestions and are counted here (they are left out of the other sections and of "
        "exports unless asked for)."
    )
    return Section(SECTION_KEY, TITLE, tuple(tables), tuple(notes)), payload


def _design(spec: SessionSpec) -> str | None:
    """The spec's assignment rule when an experiment is set up; else inferred from the data."""
    return spec.experiment.assign if len(spec.experiment.modes) > 1 else None


INTERVAL_VS_TEST = (
    "The Δ interval is a two-way cluster bootstrap (annotators and items resampled), which is conservative "
    "(in simulation about 1.5 times wider than the estimate's spread): it can include 0 while the randomization "
    "test rejects Δ = 0. The p-value is the test of the effect; the interval is a safe, not a tight, range."
)


def _headline(result: AnchoringResult) -> list[str]:
    """The rubber-stamp rate in one sentence per shown mode, then how to read interval and p together."""
    by = {c.condition: c for c in result.conditions}
    lines = []
    disagree = False
    base = by.get("none")
    for effect in result.effects:
        shown = by[effect.mode].over_reliance
        if not shown.defined:
            continue
        text = (f"Rubber-stamp rate under {effect.mode}: {_pct(shown.estimate)} of wrong suggestions accepted"
                f" {_ci_pct(shown)} (n = {shown.n_pairable})")
        if base is not None and base.over_reliance.defined:
            text += f", against {_pct(base.over_reliance.estimate)} when not shown"
        d = effect.delta
        if not d.defined:  # no baseline to compare with: say so, never `Δ = +nan`
            n_base = base.over_reliance.n_pairable if base is not None else 0
            why = ("Δ needs wrong suggestions in the none arm (stored, not shown)" if base is not None
                   else "Δ needs a none arm (suggestions stored, not shown)")
            lines.append(text + f"; anchoring effect Δ: {not_enough(n_base, 'wrong suggestions in none', why)}.")
            continue
        text += f"; anchoring effect Δ = {d.estimate:+.3f} {_ci(d)}, randomization p = {_p(effect.p_value)}"
        if d.ci_low <= 0 <= d.ci_high and effect.p_value < 0.05:
            disagree = True
            text += " (the interval includes 0 because it is conservative; see below)"
        lines.append(text + ".")
    if lines:
        lines.append(INTERVAL_VS_TEST if disagree else
                     "The Δ interval is a conservative two-way cluster bootstrap; the p-value is a randomization "
                     "test of Δ = 0.")
    return lines


def _pct(value: float) -> str:
    return "–" if value != value else f"{100 * value:.1f} %"


def _ci_pct(e: Any) -> str:
    if e.ci_low != e.ci_low:
        return "(no interval)"
    return f"[{100 * e.ci_low:.1f}, {100 * e.ci_high:.1f}] %"


def _ci(e: Any) -> str:
    if e.ci_low != e.ci_low:
        return "(no interval)"
    return f"[{e.ci_low:+.3f}, {e.ci_high:+.3f}]"


def _p(p: float) -> str:
    if p != p:
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _pair(e: Any) -> tuple[float, float]:
    return (e.ci_low, e.ci_high)


_CI_TEXT = ("95 % two-way cluster bootstrap intervals: annotators and items resampled independently (Owen 2007, "
            "the pigeonhole bootstrap; somewhat conservative).")


def _reliance_table(result: AnchoringResult) -> Table:
    columns = (
        Column("condition"), Column("over-reliance", "num"), Column("95 % CI", "ci"), Column("n wrong", "int"),
        Column("under-reliance", "num"), Column("95 % CI", "ci"), Column("n right", "int"),
    )
    rows = tuple(
        (c.condition, c.over_reliance.estimate, _pair(c.over_reliance), c.n_wrong, c.under_reliance.estimate,
         _pair(c.under_reliance), c.n_right)
        for c in result.conditions
    )
    notes = (
        "over-reliance = P(final = suggestion | suggestion wrong), the rubber-stamp rate; under-reliance = "
        "P(final ≠ suggestion | suggestion right); n = judgments in the denominator. Wrong / right against gold "
        "(planted suggestions are wrong by construction). Under `none` the suggestion was stored but not shown: "
        "the baseline.",
        _CI_TEXT,
    )
    return Table("suggestions_reliance", "Reliance on suggestions per display mode", columns, rows, notes)


def _effect_table(result: AnchoringResult) -> Table:
    columns = (
        Column("mode"), Column("Δ", "num"), Column("95 % CI", "ci"), Column("p", "p"), Column("n wrong", "int"),
        Column("Δ accuracy", "num"), Column("95 % CI", "ci"),
    )
    rows = tuple(
        (e.mode, e.delta.estimate, _pair(e.delta), e.p_value, e.delta.n_pairable, e.delta_accuracy.estimate,
         _pair(e.delta_accuracy))
        for e in result.effects
    )
    notes = (
        "Anchoring effect Δ_D = P(agree | D, wrong) − P(agree | none, wrong): how much more often a wrong "
        "suggestion is accepted when it is shown (n wrong = judgments of wrong suggestions under D and none). "
        "Δ accuracy = P(final = gold | D) − P(final = gold | none).",
        _test_text(result),
        _CI_TEXT,
    )
    if not rows:
        notes = ("No effect can be estimated: it needs judgments under `none` and under a mode that shows "
                 "the suggestion, on items whose suggestion is wrong.",)
    return Table("suggestions_effect", "Anchoring effect against `none`", columns, rows, notes,
                 Chart("interval", label=0, value=1, ci=2, domain=(-1.0, 1.0), title="Δ with 95 % interval"))


def _test_text(result: AnchoringResult) -> str:
    """How the p-values were computed: re-drawn designs, or the permutation fallback."""
    from annotate.analysis.anchoring import REDRAWN

    if result.randomization == REDRAWN:
        return (f"p: two-sided randomization test of Δ = 0 (randomization: redrawn design), Δ recomputed on the "
                f"observed answers under {result.n_perm} re-draws of the conditions by the experiment's own "
                f"design rules ({result.design} annotators; same assignments, other seeds; planted items fixed).")
    return (f"p: two-sided randomization test of Δ = 0 (randomization: permutation), {result.n_perm} permutations "
            "of the observed conditions "
            + ("within each annotator" if result.design == "within" else "across annotators")
            + " (the fallback when the stored design cannot be re-drawn).")


def _accuracy_table(result: AnchoringResult) -> Table:
    columns = (
        Column("condition"), Column("judgments", "int"), Column("agree", "num"), Column("95 % CI", "ci"),
        Column("accuracy", "num"), Column("95 % CI", "ci"), Column("n gold", "int"),
    )
    rows = tuple(
        (c.condition, c.n, c.agree.estimate, _pair(c.agree), c.accuracy.estimate, _pair(c.accuracy),
         c.accuracy.n_pairable)
        for c in result.conditions
    )
    notes = (
        "agree = the final label equals the suggestion (all judgments with one); accuracy = the final label "
        "equals gold (judgments of items with gold).",
    )
    return Table("suggestions_accuracy", "Agreement with the suggestion and accuracy", columns, rows, notes)


def _time_table(result: AnchoringResult) -> Table:
    columns = (
        Column("condition"), Column("judgments", "int"), Column("median time", "ms"), Column("fast accepts", "int"),
        Column("share", "pct"), Column("revealed", "pct"),
    )
    rows = tuple(
        (c.condition, c.n, c.median_time_ms, c.fast_accepts, c.fast_accept_rate, c.reveal_rate)
        for c in result.conditions
    )
    notes = (
        "median active time on the item; fast accepts = judgments that agree with the suggestion in under "
        f"{result.fast_ms / 1000:g} s (share of the condition's judgments); revealed = share of judgments whose "
        "suggestion was on screen (on_request: revealed by the annotator).",
    )
    return Table("suggestions_time", "Time on item and fast accepts", columns, rows, notes)


def _switch_table(result: AnchoringResult) -> Table:
    s = result.switches
    assert s is not None
    columns = (
        Column("judgments", "int"), Column("switched", "int"), Column("switch rate", "pct"),
        Column("first ≠ suggestion", "int"), Column("to suggestion", "int"), Column("rate", "pct"),
        Column("harmful", "int"), Column("beneficial", "int"),
    )
    rows = ((s.n, s.switches, s.switch_rate, s.initial_disagreed, s.to_suggestion, s.to_suggestion_rate,
             s.harmful, s.beneficial),)
    notes = (
        "Under `after` the annotator commits a first answer, then sees the suggestion and confirms or revises. "
        "switch rate = P(final ≠ first); to suggestion = revised to the suggestion among those whose first answer "
        "differed from it; harmful = right (gold) first, wrong at the end; beneficial = the reverse "
        f"({plural(s.n_gold, 'switch', 'switches')} on items with gold).",
    )
    return Table("suggestions_switches", "Revisions after the suggestion appeared (`after`)", columns, rows, notes)


def _annotator_table(result: AnchoringResult, max_rows: int) -> Table:
    columns = (
        Column("annotator"), Column("wrong shown", "int"), Column("accepted", "num"), Column("baseline n", "int"),
        Column("baseline", "num"), Column("from"), Column("susceptibility", "num"),
    )
    ranked = sorted(result.annotators, key=lambda a: (-(a.susceptibility if a.susceptibility == a.susceptibility
                                                         else -9), a.annotator))
    rows = tuple(
        (a.annotator, a.n_wrong_shown, a.agree_wrong_shown, a.n_wrong_none, a.agree_wrong_none, a.baseline,
         a.susceptibility)
        for a in ranked[:max_rows]
    )
    notes = [
        "susceptibility = P(accept | wrong suggestion shown) − P(accept | wrong suggestion, none): the annotator's "
        "own `none` judgments (from = own) or everyone's (pooled, in between-annotator designs). Small n: read "
        "with care; no interval."
    ]
    if len(ranked) > max_rows:
        more = len(ranked) - max_rows
        notes.append(f"{plural(more, 'more annotator')} {'is' if more == 1 else 'are'} in the JSON report.")
    return Table("suggestions_annotators", "Per-annotator susceptibility", columns, rows, tuple(notes))


def _shift_table(result: AnchoringResult) -> Table:
    labels = [label for label, _ in result.label_shift[0].shares] if result.label_shift else []
    grades = any(s.mean_shift is not None for s in result.label_shift)
    columns = (Column("condition"), Column("judgments", "int"), *(Column(label, "pct") for label in labels),
               Column("TVD vs none", "num"), *((Column("mean shift", "num"),) if grades else ()))
    rows = tuple(
        (s.condition, s.n, *(share for _, share in s.shares), s.tvd, *((s.mean_shift,) if grades else ()))
        for s in result.label_shift
    )
    notes = ("Share of each final label per condition, and the total variation distance to the `none` "
             "distribution (½ Σ |p − q|; 0 = the same, 1 = disjoint).",)
    return Table("suggestions_label_shift", "Label distribution per condition", columns, rows, notes)


def _llm_table(result: AnchoringResult, consistency: dict[str, Any]) -> Table:
    columns = (Column("against"), Column("LLM accuracy", "num"), Column("95 % CI", "ci"), Column("n", "int"))
    rows = tuple((a.reference, a.accuracy.estimate, _pair(a.accuracy), a.accuracy.n_pairable)
                 for a in result.llm_accuracy)
    notes = [
        "How often the LLM's own (not planted) suggestion matches gold (once per item) and the labels annotators "
        "gave under each condition. Labels made while seeing the suggestion flatter the LLM: compare with `none`."
    ]
    if consistency.get("n"):
        notes.append(
            f"Position consistency of the LLM: {consistency['consistent']} of {plural(consistency['n'], 'item')} "
            "got the same verdict with the answers in both orders."
        )
    return Table("suggestions_llm", "LLM accuracy against gold and against human labels", columns, rows,
                 tuple(notes))


def _position_consistency(store: Store, spec: SessionSpec) -> dict[str, Any]:
    real = [s for s in store.suggestions() if not s.planted and s.swapped_label is not None]
    source = spec.experiment.suggestion_source
    if source:
        real = [s for s in real if s.source_model == source]
    return {"n": len(real), "consistent": sum(1 for s in real if s.label == s.swapped_label)}
