"""The `annotate` command line: each command parses its options, calls the core, prints.

Domain errors (a bad spec, a bad input file, a refused write) become click errors with the
message the core wrote, which names the file, line or field.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from annotate import __version__

F = TypeVar("F", bound=Callable[..., Any])


def domain_errors(func: F) -> F:
    """Turn the core's ValueError / StoreError / OSError into a clean one-line error."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from annotate.store import StoreError

        try:
            return func(*args, **kwargs)
        except (ValueError, StoreError, KeyError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            raise click.ClickException(str(message)) from None
        except OSError as exc:
            raise click.ClickException(f"{exc.filename or ''}: {exc.strerror or exc}") from None

    return wrapper  # type: ignore[return-value]


session_argument = click.argument("session", metavar="SESSION")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="annotate")
def main() -> None:
    """Expert annotation of LLM outputs, and how far the judgments can be trusted.

    A session is a spec `sessions/NAME.toml` plus one SQLite file. SESSION arguments take the
    name (looked up in ./sessions/) or a path to the .toml.

    \b
    Quick start:
      annotate demo                       # try the annotation screen on demo data
      annotate init evals --kind pairwise # a new session in ./sessions/
      annotate import evals pairs.jsonl   # load items
      annotate start evals --annotator alice
    """


@main.command()
@click.argument("name")
@click.option("--kind", type=click.Choice(["pairwise", "single", "rubric"]), required=True,
              help="pairwise: A / B / tie / both_bad; single: a 1..N grade; rubric: criteria.")
@click.option("--guideline", default=None, metavar="ID",
              help="Guideline id (a file guidelines/ID.md). Default: the kind's shipped one.")
@click.option("--seed", type=int, default=None,
              help="Seed for every random choice. Default: derived from the name.")
@domain_errors
def init(name: str, kind: str, guideline: str | None, seed: int | None) -> None:
    """Create a session: sessions/NAME.toml and sessions/NAME.db.

    \b
    Example:
      annotate init chat-evals --kind pairwise
      annotate init essays --kind single --guideline single-grade
    """
    import zlib

    from annotate.guidelines import find_guideline
    from annotate.session import create_session
    from annotate.spec import DEFAULT_GUIDELINE

    guideline = guideline or DEFAULT_GUIDELINE[kind]
    find_guideline(guideline, Path.cwd())
    seed = seed if seed is not None else zlib.crc32(name.encode("utf-8"))
    spec = create_session(name, kind, guideline, seed)
    click.echo(f"created {_rel(spec.path)} and {_rel(spec.db)} ({kind}, guideline {guideline})")
    click.echo(f"next: annotate import {name} FILE")


@main.command()
@session_argument
@domain_errors
def status(session: str) -> None:
    """Show a session: its spec, items, annotators and their progress.

    \b
    Example:
      annotate status chat-evals
    """
    from annotate.session import load_session, open_store
    from annotate.status import session_status

    spec = load_session(session)
    with open_store(spec) as store:
        click.echo(session_status(spec, store))


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
