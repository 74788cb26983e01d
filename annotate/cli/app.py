"""The annotation app: `start` and `demo`."""

from __future__ import annotations

from pathlib import Path

import click

from annotate.cli.common import annotator_name, command, domain_errors, echo, session_argument
from annotate.cli.group import main


@main.command()
@session_argument
@click.option("--annotator", required=True, envvar="ANNOTATE_ANNOTATOR", metavar="NAME",
              help="Who is annotating (also from $ANNOTATE_ANNOTATOR). Each name has its own queue.")
@click.option("--theme", default=None, metavar="NAME",
              help="dark, light or a Textual theme's name (nord, gruvbox, ...); t switches light and dark.")
@domain_errors
def start(session: str, annotator: str, theme: str | None) -> None:
    """Open the annotation screen on ANNOTATOR's queue in SESSION.

    Starting again resumes at the first item without an answer. Press ? in the app for every key.

    \b
    Example:
      annotate start chat-evals --annotator alice
      annotate start chat-evals --annotator alice --theme light
    """
    from annotate.session import load_session
    from annotate.tui import run_app

    name = annotator_name(annotator)
    summary = run_app(load_session(session), name, theme=theme)
    echo(summary.line(command("start", session, "--annotator", name)))


@main.command()
@click.option("--annotator", default=None, metavar="NAME",
              help="Who is annotating. Default: your login name, or 'demo'.")
@click.option("--fresh", is_flag=True, help="Start the demo over, forgetting earlier demo answers.")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              envvar="ANNOTATE_DEMO_DIR",
              help="Where the demo session lives (also $ANNOTATE_DEMO_DIR). Default: ~/.cache/annotate/demo.")
@click.option("--kind", "kind",
              type=click.Choice(["pairwise", "graded", "aspects", "single", "rubric", "ranking", "spans",
                                  "training"]),
              default="pairwise", show_default=True,
              help="Which study design: pairwise (four outcomes), graded (a 5-point preference with both bad),"
                   " aspects (one row per aspect of a pair), single (a 1-10 grade), rubric (five criteria),"
                   " ranking (four responses put in order, ties allowed) or spans (pairwise, marking the errors"
                   " in each response: m) or training (pairwise, four training items with feedback first).")
@click.option("--theme", default=None, metavar="NAME",
              help="dark, light or a Textual theme's name (nord, gruvbox, ...); t switches light and dark.")
@domain_errors
def demo(annotator: str | None, fresh: bool, folder: Path | None, kind: str, theme: str | None) -> None:
    """Try the annotation screen on a demo session (pairwise chat items unless --kind says otherwise).

    The demo lives in a cache folder, not in ./sessions; running it again resumes where you
    stopped. Keys: 1 Left better, 2 Right better, 3 Tie, 4 Both bad, Enter to submit, ? for help
    (the other kinds say their keys on screen and in ?).

    \b
    Example:
      annotate demo
      annotate demo --fresh
      annotate demo --kind graded
      annotate demo --kind aspects
      annotate demo --kind ranking
      annotate demo --kind spans
      annotate demo --kind training
    """
    import getpass

    from annotate.demo import prepare_demo
    from annotate.tui import run_app

    resume = ["demo"] + (["--kind", kind] if kind != "pairwise" else [])
    resume += ["--annotator", annotator] if annotator is not None else []
    resume += ["--dir", str(folder)] if folder is not None else []
    if annotator is None:
        try:
            annotator = getpass.getuser()
        except (KeyError, OSError):
            annotator = "demo"
        if not annotator or not annotator[0].isalnum():
            annotator = "demo"
    spec = prepare_demo(folder, fresh=fresh, kind=kind)
    summary = run_app(spec, annotator_name(annotator), theme=theme)
    echo(summary.line(command(*resume)))
