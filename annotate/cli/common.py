"""What every command shares: turning domain errors into one-line messages, the SESSION
argument, and how paths, commands and annotator names are printed and checked."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

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


def rel(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)



def command(*args: str) -> str:
    """`annotate ARGS...` as one would type it again (quoted for a POSIX shell)."""
    import shlex

    return shlex.join(["annotate", *args])


def annotator_name(name: str) -> str:
    import re

    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$", name):
        raise click.BadParameter(
            f"{name!r}: letters, digits, '.', '_', '@' or '-' (at most 64), starting with a letter or digit",
            param_hint="--annotator",
        )
    return name

