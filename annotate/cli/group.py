"""The `annotate` click group; the command modules add their commands to it."""

from __future__ import annotations

import click

from annotate import __version__


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

