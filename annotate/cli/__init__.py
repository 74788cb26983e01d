"""The `annotate` command line: each command parses its options, calls the core, prints.

Domain errors (a bad spec, a bad input file, a refused write) become click errors with the
message the core wrote, which names the file, line or field. Commands live in modules by what
they are for; a command's module is imported (and registers its commands on `main`) when the
command runs, or when help lists them all (`main.list_commands`), never all on every start.
"""

from annotate.cli.group import main

main.lazy_commands = {  # type: ignore[misc]
    "agreement": "annotate.cli.analysis", "report": "annotate.cli.analysis",
    "start": "annotate.cli.app", "demo": "annotate.cli.app",
    "import": "annotate.cli.data", "labels": "annotate.cli.data", "export": "annotate.cli.data",
    "flags": "annotate.cli.flags",
    "serve": "annotate.cli.serve",
    "init": "annotate.cli.sessions", "status": "annotate.cli.sessions", "backup": "annotate.cli.sessions",
    "suggest": "annotate.cli.suggestions", "experiment": "annotate.cli.suggestions",
    "debrief": "annotate.cli.suggestions",
    "plan": "annotate.cli.team", "merge": "annotate.cli.team", "adjudicate": "annotate.cli.team",
    "training": "annotate.cli.training",
}

__all__ = ["main"]
