"""`annotate status`: a plain-text summary of a session for a lead.

Names, categories, sources and paths come from imported files and the file system: each is shown
through `one_line` (terminal controls as visible symbols, no line breaks), so the summary is safe
to print and its table stays aligned.
"""

from __future__ import annotations

from annotate.safe_text import one_line
from annotate.spec import SessionSpec
from annotate.store import Store


def session_status(spec: SessionSpec, store: Store) -> str:
    """What is in the session and how far each annotator is, as lines of text.

    Every figure comes from the session's running tallies (`annotate.store.tallies`), so this reads
    a few rows whatever the session's size."""
    from annotate.store.tallies import session_tally

    tally = session_tally(store)
    lines = [
        f"session   {spec.name} ({spec.kind}), guideline {spec.guideline}, seed {spec.seed}",
        _guideline_line(spec),
        f"spec      {one_line(spec.path)}",
        f"file      {one_line(spec.db)}"
        + (f" (READ-ONLY: {one_line(store.read_only_reason)})" if store.read_only else ""),
        f"plan      {store.get_meta('plan_hash') or 'none yet (queues are seeded per annotator)'}",
        *_plan_inputs(store),
        f"items     {tally.items}"
        + (f" ({', '.join(f'{one_line(c)} {n}' for c, n in tally.categories)})" if tally.items else ""),
        f"gold      {tally.gold}",
    ]
    if tally.labels:
        lines.append("imported  " + ", ".join(
            f"{n} {one_line(cohort)} labels from {one_line(source)}" for source, cohort, n in tally.labels
        ))
    lines += _suggestion_lines(spec, store, tally.suggestions)
    lines += _flag_lines(store)
    lines += _training_lines(spec, store)
    if not tally.annotators:
        lines.append("annotators none has started yet")
        return "\n".join(lines)
    lines.append("")
    lines.append(f"{'annotator':<20} {'cohort':<7} {'done':>6} {'skipped':>8} {'total':>6} {'time':>9}")
    for annotator in tally.annotators:
        lines.append(
            f"{one_line(annotator.name):<20} {one_line(annotator.cohort):<7} {annotator.done:>6}"
            f" {annotator.skipped:>8} {annotator.assigned:>6} {_duration(annotator.active_ms):>9}"
        )
    if tally.overlap is not None:
        lines.append("")
        lines.append(f"items judged by every annotator assigned: {tally.overlap[0]} of {tally.overlap[1]}")
    return "\n".join(lines)


def _training_lines(spec: SessionSpec, store: Store) -> list[str]:
    """The training round: its items and threshold, and where each annotator stands (one aggregate
    query over the training tables, never the judgments)."""
    if spec.training is None:
        return []
    from annotate.store.training import count_training_items, training_states
    from annotate.training import needed

    total = count_training_items(store)
    if total == 0:
        return [f"training  no training items yet (annotate import {spec.name} FILE --training)"]
    threshold = spec.training.pass_threshold
    head = f"training  {total} items, pass {threshold:.0%} ({needed(total, threshold)} of {total})"
    states = training_states(store, spec)
    if not states:
        return [head + "; nobody has started"]
    shown = []
    for state in states:
        counts = f"{state.correct} of {total}" if state.finished else f"{state.answered} of {total} answered"
        shown.append(f"{one_line(state.annotator)} {state.verdict}" + (f" ({counts})" if state.attempt else ""))
    return [head + ": " + ", ".join(shown) + " (annotate training)"]


def _suggestion_lines(spec: SessionSpec, store: Store, counts: tuple[tuple[str, int, int, int], ...]) -> list[str]:
    """LLM suggestions per source model (and replies without a verdict), and the experiment's design."""
    from annotate.experiment import EXPERIMENT_META_KEY

    lines = []
    if counts:
        lines.append("suggested " + "; ".join(
            f"{one_line(m)}: {real}" + (f" (+{planted} planted)" if planted else "")
            + (f", {failed} without a verdict" if failed else "")
            for m, real, planted, failed in counts
        ))
    experiment = spec.experiment
    design = store.get_meta(EXPERIMENT_META_KEY)
    if experiment.modes != ("none",) or design:
        source = f", source {one_line(experiment.suggestion_source)}" if experiment.suggestion_source else ""
        lines.append(
            f"experiment modes {', '.join(experiment.modes)} ({experiment.assign}), planted rate "
            f"{experiment.planted_rate:.0%}{source}; design {design or 'not set up yet (annotate experiment)'}"
        )
    return lines


def _flag_lines(store: Store) -> list[str]:
    """Flags open by kind and cleared (annotate.flag_list), when annotators flagged anything."""
    from annotate.flag_list import flag_summary

    summary = flag_summary(store)
    return [summary] if summary else []


def _plan_inputs(store: Store) -> list[str]:
    """The last plan's inputs in one line, when there is a plan."""
    import json

    raw = store.get_meta("plan_inputs")
    if raw is None:
        return []
    inputs = json.loads(raw)
    rates = inputs.get("rates", {})
    return [
        f"          {', '.join(one_line(a) for a in inputs.get('annotators', []))}; overlap {inputs.get('overlap')};"
        f" gold {rates.get('gold', 0):.0%}, attention {rates.get('attention', 0):.0%},"
        f" repeats {rates.get('repeat', 0):.0%}; plan seed {inputs.get('seed')}"
    ]


def _duration(ms: int) -> str:
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{seconds:02d}s"


def _guideline_line(spec: SessionSpec) -> str:
    """The guideline's version and file, or why `annotate start` would refuse it."""
    from annotate.guidelines import GuidelineError, load_guideline

    try:
        guideline = load_guideline(spec.guideline, spec.project_dir)
    except (GuidelineError, OSError) as exc:
        return f"guideline NOT USABLE: {one_line(exc)} (annotate start refuses to open until it is fixed)"
    return f"guideline {one_line(guideline.id)} v{one_line(guideline.version)} ({one_line(guideline.path)})"
