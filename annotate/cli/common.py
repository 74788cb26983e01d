"""What every command shares: turning domain errors into one-line messages, the SESSION
argument, and how paths, commands and annotator names are printed and checked.

Everything a command prints for a person goes through `echo` (or `domain_errors` for errors), which
passes it through `annotate.safe_text.sanitize`: ids, names, file names and messages come from
files nobody on the team wrote, and must never act on the terminal. Data a command writes for a
program (`export` to standard output, `suggest --print-prompt`) goes through `data_output`: the
exact bytes when standard output is a file or a pipe, sanitised when it is a terminal.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO, TypeVar

import click

from annotate.safe_text import SanitizingWriter, one_line, sanitize

F = TypeVar("F", bound=Callable[..., Any])


def domain_errors(func: F) -> F:
    """Turn the core's ValueError / StoreError / OSError into a clean one-line error."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (ValueError, KeyError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            raise click.ClickException(one_line(message)) from None
        except OSError as exc:
            raise click.ClickException(one_line(f"{exc.filename or ''}: {exc.strerror or exc}")) from None
        except Exception as exc:
            if not _is_store_error(exc):
                raise
            raise click.ClickException(one_line(str(exc))) from None

    return wrapper  # type: ignore[return-value]


def _is_store_error(exc: Exception) -> bool:
    """A StoreError, found without importing the store (a command on a file alone never loads it,
    and then cannot have raised one)."""
    errors = sys.modules.get("annotate.store.errors")
    return errors is not None and isinstance(exc, errors.StoreError)


session_argument = click.argument("session", metavar="SESSION")

force_option = click.option("--force", is_flag=True,
                            help="Replace FILE if it exists (never a session's spec or database files).")


def echo(message: object = "", *, err: bool = False, nl: bool = True) -> None:
    """`click.echo` of `message` made safe for a terminal (`sanitize`: newlines and tabs are kept)."""
    click.echo(sanitize(str(message)), err=err, nl=nl)


class _Utf8Bytes:
    """Text written as UTF-8 straight to a binary stream: the same bytes as a file written with
    `encoding="utf-8", newline=""`, whatever the locale says."""

    def __init__(self, binary: BinaryIO) -> None:
        self.binary = binary

    def write(self, text: str) -> int:
        self.binary.write(text.encode("utf-8"))
        return len(text)

    def flush(self) -> None:
        self.binary.flush()


@contextlib.contextmanager
def data_output() -> Iterator[TextIO]:
    """Standard output for data: byte-exact UTF-8 when redirected, `sanitize`d when it is a terminal."""
    stdout = sys.stdout
    if stdout.isatty():
        yield SanitizingWriter(stdout)  # type: ignore[misc]
        stdout.flush()
        return
    binary = getattr(stdout, "buffer", None)
    if binary is None:  # a text-only stream (an embedding host): text as it is
        yield stdout
        return
    stdout.flush()
    writer = _Utf8Bytes(binary)
    yield writer  # type: ignore[misc]
    writer.flush()


def rel(path: Path) -> str:
    """`path` relative to the current folder when it is under it, sanitised to print on one line."""
    try:
        return one_line(path.relative_to(Path.cwd()))
    except ValueError:
        return one_line(path)



def command(*args: str) -> str:
    """`annotate ARGS...` as one would type it again (quoted for a POSIX shell)."""
    import shlex

    return shlex.join(["annotate", *args])


def given_options(*, leave_out: tuple[str, ...] = ()) -> list[str]:
    """The current command's options as typed again (`--cohort crowd`, `--map item=x`), those left at
    their default and the parameters named in `leave_out` left out (for a command to suggest)."""
    ctx = click.get_current_context()
    words: list[str] = []
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name in leave_out or param.name is None:
            continue
        value = ctx.params.get(param.name)
        if value is None or value == param.default or value == () or value is False:
            continue
        option = max(param.opts, key=len)
        if param.is_flag:
            words.append(option)
        else:
            for one in value if param.multiple else (value,):
                words += [option, str(one)]
    return words


def file_format_hint(file: Path, *, reading: str, fmt: str | None, mapped: bool, command: list[str],
                     items_command: list[str]) -> None:
    """A one-line error when FILE looks like another format than the command would read it as
    (annotate.formats.hints), saying what it looks like and the command that would work."""
    from annotate.formats.hints import format_hint

    hint = format_hint(file, reading=reading, format=fmt, mapped=mapped)  # type: ignore[arg-type]
    if hint is not None:
        options = given_options(leave_out=("fmt",))
        raise click.ClickException(one_line(hint.message(
            ["annotate", *command], options, ["annotate", *items_command])))


def annotator_name(name: str, option: str = "--annotator") -> str:
    """`name` if it is a valid annotator name (what `start` accepts), else a usage error naming `option`."""
    from annotate.plan import ANNOTATOR_NAME

    if not ANNOTATOR_NAME.match(name):
        raise click.BadParameter(
            f"{one_line(repr(name))}: letters, digits, '.', '_', '@' or '-' (at most 64), starting with a letter"
            " or digit", param_hint=option,
        )
    return name

