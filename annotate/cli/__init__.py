"""The `annotate` command line: each command parses its options, calls the core, prints.

Domain errors (a bad spec, a bad input file, a refused write) become click errors with the
message the core wrote, which names the file, line or field. Commands live in modules by what
they are for; importing this package registers them all on `main`.
"""

from annotate.cli import (  # noqa: F401  (registers the commands)
    analysis,
    app,
    data,
    flags,
    serve,
    sessions,
    suggestions,
    team,
    training,
)
from annotate.cli.group import main

__all__ = ["main"]
