"""`annotate training`: each annotator's training round, and the lead letting someone through."""

from __future__ import annotations

import click

from annotate.cli.common import domain_errors, echo, session_argument
from annotate.cli.group import main


@main.command()
@session_argument
@click.option("--pass", "let_pass", default=None, metavar="NAME",
              help="Open the main queue for NAME whatever their training score (they see it on their next start).")
@click.option("--revoke", default=None, metavar="NAME", help="Take back an earlier --pass for NAME.")
@click.option("--note", default="", help="Why (kept with the decision).")
@click.option("--by", default=None, metavar="NAME", help="Who decides. Default: your login name.")
@domain_errors
def training(session: str, let_pass: str | None, revoke: str | None, note: str, by: str | None) -> None:
    """List each annotator's training round (score, threshold, passed / failed / overridden), or let one through.

    Training items (imported with `annotate import SESSION FILE --training`) are answered before
    the main queue; the spec's [training] pass_threshold decides whether it opens. A lead's
    decision is kept in the session file with who made it and when; the latest one counts.

    \b
    Example:
      annotate training evals
      annotate training evals --pass alice --note "talked the two misses through"
      annotate training evals --revoke alice
    """
    from annotate.cli.flags import _default_lead
    from annotate.safe_text import one_line
    from annotate.session import load_session, open_store
    from annotate.store.training import set_override
    from annotate.training import training_lines

    spec = load_session(session)
    if spec.training is None:
        raise click.ClickException(f"{spec.path}: the spec has no [training] table: the session has no training")
    if let_pass is not None and revoke is not None:
        raise click.UsageError("give --pass NAME or --revoke NAME, not both")
    with open_store(spec) as store:
        name = let_pass or revoke
        if name is not None:
            from annotate.plan import ANNOTATOR_NAME

            if not ANNOTATOR_NAME.match(name):
                raise click.BadParameter(f"{one_line(repr(name))}: letters, digits, '.', '_', '@' or '-'",
                                         param_hint="NAME")
            set_override(store, name, "pass" if let_pass else "revoke", by or _default_lead(), note)
            echo(f"{name}: main queue open whatever the training score" if let_pass
                 else f"{name}: the lead's pass taken back; their training score decides again")
            return
        for line in training_lines(store, spec):
            echo(line)
