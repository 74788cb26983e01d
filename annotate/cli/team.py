"""Planning and team workflow: `plan`, `merge`, `adjudicate`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from annotate.cli.common import annotator_name, command, domain_errors, echo, rel, session_argument
from annotate.cli.group import main
from annotate.text import plural

_rate_type = click.FloatRange(0.0, 1.0, max_open=True)
"""A share of a queue: from 0 to below 1 (plan --gold-rate, --attention-rate, --repeat-rate)."""


@main.command()
@session_argument
@click.option("--annotators", default=None, metavar="NAME,NAME,...",
              help="Who annotates. Default: the spec's [plan] annotators.")
@click.option("--overlap", type=click.IntRange(1), default=None, metavar="K",
              help="Annotators per item (2 or more for agreement). Default: the spec's.")
@click.option("--gold-rate", type=_rate_type, default=None, metavar="R",
              help="Share of each queue given to gold items (items with a known answer). Default: the spec's.")
@click.option("--attention-rate", type=_rate_type, default=None, metavar="R",
              help="Share given to attention checks (metadata {\"attention\": true}). Default: the spec's.")
@click.option("--repeat-rate", type=_rate_type, default=None, metavar="R",
              help="Share given to repeats (an item seen before, sides swapped). Default: the spec's.")
@click.option("--seed", type=int, default=None, help="Seed of the plan. Default: the last plan's, else the session's.")
@click.option("--dry-run", is_flag=True, help="Show the plan; write nothing.")
@click.option("--no-spec", is_flag=True, help="Leave the spec file as it is (the plan is stored in the session file).")
@click.option("--verify", is_flag=True,
              help="Check the stored plan hash against the stored inputs and assignments; change nothing.")
@domain_errors
def plan(session: str, annotators: str | None, overlap: int | None, gold_rate: float | None,
         attention_rate: float | None, repeat_rate: float | None, seed: int | None, dry_run: bool,
         no_spec: bool, verify: bool) -> None:
    """Decide who sees which item, in which order, on which side; store it with its hash.

    Every item goes to K annotators with balanced loads; sides are counterbalanced per item and
    per annotator; gold items, attention checks and repeats are mixed in at the given rates. The
    same inputs always give the same plan. Running it again after adding items or annotators
    extends the plan: nothing already assigned moves. The [plan] table of the spec is updated to
    the options used (unless --no-spec). Rules: docs/planning.md, 'Planning: annotate plan'.

    \b
    Example:
      annotate plan evals --annotators alice,bob,carol --overlap 2 --gold-rate 0.1
      annotate plan evals                   # again after importing more items: extends the plan
      annotate plan evals --verify
    """
    from annotate.plan import (
        apply_plan,
        plan_summary,
        plan_table_values,
        resolve_plan_options,
        verify_plan,
        write_plan_to_spec,
    )
    from annotate.session import load_session, open_store

    spec = load_session(session)
    with open_store(spec) as store:
        if verify:
            verified = verify_plan(store)
            if verified is None:
                raise click.ClickException("the session has no plan yet")
            if not verified:
                raise click.ClickException(
                    f"plan {store.get_meta('plan_hash')} does NOT match the assignments in {rel(spec.db)}"
                )
            echo(f"plan {store.get_meta('plan_hash')} verified: it matches its inputs and assignments")
            return
        names = None if annotators is None else [
            annotator_name(n.strip(), "--annotators") for n in annotators.split(",") if n.strip()
        ]
        names, k, rates, chosen_seed = resolve_plan_options(
            store, spec, names, overlap, gold_rate, attention_rate, repeat_rate, seed
        )
        applied = apply_plan(store, spec, names, k, rates, chosen_seed, dry_run=dry_run)
        designed = None
        if not dry_run and spec.experiment.modes != ("none",):  # the spec's [experiment], over the new plan
            from annotate.experiment import apply_experiment

            designed = apply_experiment(store, spec)
    for line in plan_summary(applied):
        echo(line, err=line.startswith("note:"))
    if designed is not None:
        from annotate.experiment import experiment_summary

        for line in experiment_summary(designed, spec):
            echo(line, err=line.startswith("note:"))
    if not dry_run and not no_spec and write_plan_to_spec(spec.path, plan_table_values(names, k, rates)):
        echo(f"spec: [plan] in {rel(spec.path)} now says what was planned")


@main.command()
@session_argument
@click.argument("others", nargs=-1, required=True, metavar="OTHER.db...",
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--strict", is_flag=True, help="Merge nothing from a file that has any conflict left.")
@click.option("--prefer", type=click.Choice(["copy", "here"]), default=None,
              help="Settle assignments judged differently in both files: copy: the copy's answer becomes current;"
                   " here: this file's stays current. Both answers are kept either way.")
@click.pass_context
@domain_errors
def merge(ctx: click.Context, session: str, others: tuple[Path, ...], strict: bool, prefer: str | None) -> None:
    """Bring back judgments and events from copies of the session file (offline annotators).

    Assignments are matched by annotator, item and queue position; judgments and events by their
    unique ids, so merging the same file twice changes nothing. A conflict (one assignment judged
    differently in both files) is listed and that assignment is left alone; the rest is merged
    (with --strict, nothing from that file). Settle conflicts by merging again with --prefer copy
    or --prefer here: the copy's judgment comes in either way, and the one not preferred is kept
    as history, never deleted. The copy is only read. Exit status 1 on conflicts left.

    \b
    Example:
      cp sessions/evals.db /media/usb/evals-dave.db     # hand this to dave
      annotate merge evals /media/usb/evals-dave.db     # when dave is back
      annotate merge evals /media/usb/evals-dave.db --prefer copy   # take dave's answers
    """
    from annotate.safe_text import sanitize
    from annotate.session import load_session, open_store
    from annotate.store.merge import MergeConflictError, merge_session

    spec = load_session(session)
    left: list[Any] = []
    with open_store(spec) as store:
        for other in others:
            try:
                report = merge_session(store, other, strict=strict, prefer=prefer)
            except MergeConflictError as exc:
                report = exc.report
            verb = "merged" if report.written else "NOT merged (strict)"
            added = ", ".join(plural(n, noun) for n, noun in (
                (report.judgments, "judgment"), (report.events, "event"), (report.assignments, "assignment"),
                (report.items, "item"), (report.annotators, "annotator"),
            ))
            echo(
                f"{verb} {rel(other)} (sha256 {report.sha256[:12]}): {added} added;"
                f" {plural(report.already, 'judgment')} already here"
                + (f"; {report.duplicates} judged the same in both (kept as history)" if report.duplicates else "")
                + (f"; {plural(len(report.settled), 'conflict')} settled (--prefer {prefer})" if report.settled else "")
            )
            for c in report.conflicts:
                echo(
                    f"  conflict: {sanitize(c.annotator)}, item {sanitize(c.item_id)}, position {c.position}:"
                    f" here {sanitize(c.ours)}, in the copy {sanitize(c.theirs)} ({c.reason})", err=True,
                )
            for t in report.settled:
                current, history = ("the copy's", "here") if t.kept == "copy" else ("here", "the copy's")
                answers = {"the copy's": sanitize(t.theirs), "here": sanitize(t.ours)}
                echo(
                    f"  settled: {sanitize(t.annotator)}, item {sanitize(t.item_id)}, position {t.position}:"
                    f" {current} {answers[current]} is current; {history} {answers[history]} is kept as history"
                )
            left += report.conflicts
    if left:
        echo(_conflicts_advice(left), err=True)
        ctx.exit(1)


def _conflicts_advice(conflicts: list[Any]) -> str:
    """The closing line of `annotate merge` when conflicts are left: what happened, how to settle."""
    n = len(conflicts)
    answers = sum(1 for c in conflicts if c.settleable)
    places = n - answers
    left = "that assignment was left as it is" if n == 1 else "those assignments were left as they are"
    text = f"{plural(n, 'conflict')}: {left} here."
    if answers:
        which = "it" if n == 1 else "the ones judged differently"
        text += (
            f" To settle {which}, merge the file again with --prefer copy (the copy's answer becomes current)"
            " or --prefer here (this file's stays current); both answers are kept either way."
        )
    if places:
        text += (
            f" {plural(places, 'conflict')} of place (the files differ on the queue, the sides, the cohort, an item's"
            " content or a judgment edited in place) cannot be settled by --prefer."
        )
    return text


@main.command()
@session_argument
@click.option("--annotator", required=True, envvar="ANNOTATE_ANNOTATOR", metavar="NAME",
              help="The adjudicator (also from $ANNOTATE_ANNOTATOR).")
@click.option("--list", "list_only", is_flag=True,
              help="Print the items in disagreement and every answer on them; open no screen.")
@domain_errors
def adjudicate(session: str, annotator: str, list_only: bool) -> None:
    """Settle the items where annotators disagree; the adjudicated label becomes their gold.

    Opens the annotation screen on every item whose annotators gave different labels (and that
    NAME did not judge), with their answers and rationales shown to NAME as Left/Right in NAME's
    own side mapping. NAME's answer is stored as an `adjudication` judgment; reports and exports
    use it as the item's gold. Run it again later for items that came into disagreement since.

    \b
    Example:
      annotate adjudicate evals --annotator carol
      annotate adjudicate evals --annotator carol --list
    """
    from annotate.session import load_session

    spec = load_session(session)
    name = annotator_name(annotator)
    if list_only:
        from annotate.adjudication import adjudicated_labels, disagreements
        from annotate.safe_text import sanitize
        from annotate.session import open_store

        with open_store(spec) as store:
            found = disagreements(store)
            settled = adjudicated_labels(store)
        for d in found:
            votes = ", ".join(f"{sanitize(v.annotator)} {sanitize(v.label)}" for v in d.votes)
            done = f"  -> adjudicated {sanitize(settled[d.item_id])}" if d.item_id in settled else ""
            echo(f"{sanitize(d.item_id)}: {votes}{done}")
        adjudicated = sum(d.item_id in settled for d in found)
        echo(f"{plural(len(found), 'item')} in disagreement, {adjudicated} adjudicated")
        return
    from annotate.tui.screens.adjudicate import run_adjudication

    summary = run_adjudication(spec, name)
    echo(summary.line(command("adjudicate", session, "--annotator", name)))
