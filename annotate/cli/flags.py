"""`annotate flags`: the lead lists the items annotators flagged and clears flags."""

from __future__ import annotations

import click

from annotate.cli.common import domain_errors, echo, session_argument
from annotate.cli.group import main


def _default_lead() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "lead"


@main.command()
@session_argument
@click.option("--all", "show_all", is_flag=True, help="Also flags already cleared.")
@click.option("--clear", "clear_id", type=int, default=None, metavar="ID", help="Clear the flag with this id.")
@click.option("--clear-item", default=None, metavar="REF|ITEM",
              help="Clear every open flag of one item, named by its reference (as the annotator quotes it) or id.")
@click.option("--note", default="", help="Why it was cleared (kept with the flag).")
@click.option("--by", default=None, metavar="NAME", help="Who clears. Default: your login name.")
@domain_errors
def flags(session: str, show_all: bool, clear_id: int | None, clear_item: str | None, note: str,
          by: str | None) -> None:
    """List the items annotators flagged (broken, identity leak, offensive, guideline unclear, other), or clear flags.

    A flag is kept when cleared, with who cleared it, when and why (--all lists those too). Items
    are named by id and by the reference the annotator sees on screen. The flags are also in
    `annotate status`, the report and `annotate export --what flags`.

    \b
    Example:
      annotate flags evals
      annotate flags evals --clear-item K7QM2X --note "prompt fixed in v2 of the file"
      annotate flags evals --clear 12
    """
    from annotate.flag_list import flag_summary, flag_table, resolve_item
    from annotate.safe_text import one_line
    from annotate.session import load_session, open_store
    from annotate.store.flags import clear_flags
    from annotate.store.flags import flags as stored_flags
    from annotate.text import plural

    spec = load_session(session)
    with open_store(spec) as store:
        if clear_id is not None or clear_item is not None:
            if clear_id is not None and clear_item is not None:
                raise click.UsageError("give --clear ID or --clear-item REF, not both")
            item_id = resolve_item(store, clear_item) if clear_item is not None else None
            cleared = clear_flags(store, by=by or _default_lead(), note=note, flag_id=clear_id, item_id=item_id)
            what = ", ".join(f"{f.id} ({f.text})" for f in cleared)
            echo(f"cleared {plural(len(cleared), 'flag')} on item {one_line(cleared[0].item_id)}: {one_line(what)}")
            return
        found = stored_flags(store, include_cleared=show_all)
        summary = flag_summary(store)
        if summary is None:
            echo("no flags")
            return
        echo(summary.removeprefix("flags").strip().removesuffix(" (annotate flags)"))
        if found:
            echo(flag_table(store, found))
