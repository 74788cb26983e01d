"""The `annotate` click group; the command modules add their commands to it."""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import click

from annotate import __version__


class _SafeGroup(click.Group):
    """A group whose errors never act on the terminal: click's own messages quote what was typed
    (`No such option: ...`, `Invalid value for ...`), so every error message is sanitised."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _sanitised_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _sanitised_errors():
            return super().invoke(ctx)

    lazy_commands: ClassVar[dict[str, str]] = {}
    """Command name -> the module that defines it (annotate/cli/__init__.py fills it): a command's
    module is imported only when that command runs (or help lists them all), so `annotate start`
    does not pay for the analysis, import and team commands' imports before its first item."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy_commands:
            importlib.import_module(self.lazy_commands[cmd_name])  # registers it on this group
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for module in sorted(set(self.lazy_commands.values())):
            importlib.import_module(module)
        return super().list_commands(ctx)


@contextlib.contextmanager
def _sanitised_errors() -> Iterator[None]:
    try:
        yield
    except click.ClickException as exc:
        from annotate.safe_text import sanitize

        exc.message = sanitize(exc.message)
        raise


@click.group(cls=_SafeGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="annotate")
@click.option("--project", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="PATH",
              help="The project folder (the one holding sessions/). Default: $ANNOTATE_HOME, else the nearest"
                   " folder at or above the current one that holds sessions/.")
def main(project: Path | None) -> None:
    """Expert annotation of LLM outputs, and how far the judgments can be trusted.

    A session is a spec `sessions/NAME.toml` plus one SQLite file. SESSION arguments take the
    name (looked up in the project's sessions/: --project, $ANNOTATE_HOME, or the nearest folder
    at or above this one that holds sessions/) or a path to the .toml.

    \b
    Quick start:
      annotate demo                       # try the annotation screen on demo data
      annotate init evals --kind pairwise # a new session in ./sessions/
      annotate import evals pairs.jsonl   # load items
      annotate start evals --annotator alice
    """
    from annotate.project import set_project

    set_project(project)

