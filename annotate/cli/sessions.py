"""Creating a session, showing where it stands, and keeping a copy: `init`, `status`, `backup`."""

from __future__ import annotations

from pathlib import Path

import click

from annotate.cli.common import domain_errors, echo, rel, session_argument
from annotate.cli.group import main
from annotate.safe_text import one_line


@main.command()
@click.argument("name")
@click.option("--kind", type=click.Choice(["pairwise", "single", "rubric", "ranking"]), required=True,
              help="pairwise: A / B / tie / both_bad; single: a 1..N grade; rubric: criteria; ranking: k responses"
                   " (3 to 6, set k in [labels]) put in order, ties allowed.")
@click.option("--guideline", default=None, metavar="ID",
              help="Guideline id (a file guidelines/ID.md). Default: the kind's shipped one.")
@click.option("--seed", type=int, default=None,
              help="Seed for every random choice. Default: derived from the name.")
@click.option("--design", type=click.Choice(["outcomes", "graded-5", "graded-7", "aspects"]), default="outcomes",
              show_default=True,
              help="Pairwise: the shape of a judgment. outcomes: A / B / tie / both_bad; graded-5, graded-7: a graded"
                   " preference (+2 A much better .. -2 B much better) with both bad apart; aspects: one row per aspect"
                   " (correctness, helpfulness, safety, overall), to edit in the spec's [labels].")
@click.option("--spans", is_flag=True,
              help="Annotators may also mark error spans in the responses, with a category and a severity"
                   " ([labels.spans] with a taxonomy to edit), in any kind and design.")
@domain_errors
def init(name: str, kind: str, guideline: str | None, seed: int | None, design: str, spans: bool) -> None:
    """Create a session: sessions/NAME.toml and sessions/NAME.db.

    \b
    Example:
      annotate init chat-evals --kind pairwise
      annotate init strength --kind pairwise --design graded-5
      annotate init essays --kind single --guideline single-grade
      annotate init leaderboard --kind ranking
      annotate init errors --kind pairwise --spans
    """
    import zlib

    from annotate.design.templates import design_guideline
    from annotate.guidelines import load_guideline
    from annotate.session import create_session, init_folder
    from annotate.spec import DEFAULT_GUIDELINE

    if design != "outcomes" and kind != "pairwise":
        raise click.UsageError(f"--design {design}: designs are for --kind pairwise")
    folder = init_folder(name)
    guideline = guideline or (design_guideline(design) if kind == "pairwise" else DEFAULT_GUIDELINE[kind])
    load_guideline(guideline, folder.parent)  # found and readable (front matter), or an error naming the file
    seed = seed if seed is not None else zlib.crc32(name.encode("utf-8"))
    spec = create_session(name, kind, guideline, seed, folder=folder, design=design, spans=spans)
    shape = "" if design == "outcomes" and kind != "ranking" and not spans else f", {spec.schema.summary()}"
    echo(f"created {rel(spec.path)} and {rel(spec.db)} ({kind}{shape}, guideline {guideline})")
    echo(f"next: annotate import {name} FILE")


@main.command()
@session_argument
@click.option("--watch", is_flag=True,
              help="A live dashboard instead: each annotator's progress, pace, time per item, gold accuracy,"
                   " attention checks, fast answers and agreement so far, refreshed while they work (read-only).")
@click.option("--interval", type=float, default=2.0, show_default=True, metavar="SECONDS",
              help="With --watch: seconds between refreshes.")
@click.option("--window", type=float, default=15.0, show_default=True, metavar="MINUTES",
              help="With --watch: the recent pace counts items done in the last MINUTES.")
@domain_errors
def status(session: str, watch: bool, interval: float, window: float) -> None:
    """Show a session: its spec, items, annotators and their progress.

    With --watch, a screen that refreshes every --interval seconds from the session file, which
    it only reads (annotators are never slowed by it); q quits, r refreshes, s/S sort.

    \b
    Example:
      annotate status chat-evals
      annotate status chat-evals --watch --interval 5
    """
    from click.core import ParameterSource

    from annotate.session import load_session, open_store
    from annotate.status import session_status

    given = [f"--{name}" for name in ("interval", "window")
             if click.get_current_context().get_parameter_source(name) == ParameterSource.COMMANDLINE]
    if given and not watch:
        raise click.UsageError(f"{' and '.join(given)} go{'es' if len(given) == 1 else ''} with --watch")
    if not interval > 0:
        raise click.BadParameter(f"{interval:g}: expected a positive number of seconds", param_hint="--interval")
    if not window > 0:
        raise click.BadParameter(f"{window:g}: expected a positive number of minutes", param_hint="--window")
    spec = load_session(session)
    if watch:
        from annotate.tui.dashboard import run_dashboard

        run_dashboard(spec, interval=interval, window_min=window)
        return
    with open_store(spec) as store:
        echo(session_status(spec, store))


@main.command()
@session_argument
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, metavar="PATH",
              help="Where to write the copy. Default: backups/NAME-YYYYmmdd-HHMMSS.db (UTC) beside the session file.")
@click.option("--force", is_flag=True, help="Replace PATH if it exists (never the session's own files).")
@domain_errors
def backup(session: str, output: Path | None, force: bool) -> None:
    """Copy a session file safely, even while annotators are working in it.

    Uses SQLite's online backup: the copy holds every judgment saved when it started, is one
    self-contained file, and is verified (PRAGMA integrity_check) before it is put in place. It
    never replaces an existing file without --force, nor the session's own files at all. To
    restore: docs/troubleshooting.md, 'Backups and broken files'.

    \b
    Example:
      annotate backup evals
      annotate backup evals -o /media/usb/evals-monday.db
    """
    from annotate.outputs import check_output, session_files
    from annotate.session import load_session, open_store
    from annotate.store.backup import backup_session, default_backup_path

    spec = load_session(session)
    target = output if output is not None else default_backup_path(spec.db)
    if output is None:
        target.parent.mkdir(parents=True, exist_ok=True)
    check_output(target, session_files(spec), force=force)
    with open_store(spec) as store:
        made = backup_session(store, target)
    echo(
        f"wrote {one_line(rel(made.path))}: a copy of {one_line(rel(spec.db))} ({made.bytes:,} bytes;"
        f" {made.items:,} items,"
        f" {made.annotators:,} annotators, {made.judgments:,} judgments), integrity check ok"
    )
