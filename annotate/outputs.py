"""Files a command writes on request (`export -o`, `report -o`): never over a session, never half-written.

Two rules, checked before anything is opened and again when the file is put in place:

- A session's own files are never written over, not even with `--force`: its spec, its SQLite
  database and the database's `-wal`, `-shm`, `-journal` and `-lock` files, and the same files of every
  other session in the spec's folder (a `NAME.toml` beside a `NAME.db`). The comparison sees
  through symbolic links, `..` and `.` segments, relative and absolute spellings, hard links
  (same file on disk) and letter case within that folder (so `sessions/S.DB` is refused on a
  case-insensitive disk too).
- Any other existing file is replaced only when the caller passes `force=True` (the CLI's
  `--force`).

`atomic_output` writes into a temporary file beside the target and renames it into place only once
the write has finished, so a failed write leaves nothing behind and an existing file either stays as
it was or is replaced whole. Without `force` the final step cannot replace a file that appeared in
the meantime (a hard link, which fails when the name is taken, on file systems that have them).
A target that is a symbolic link is written through: the file it points to is replaced, the link
stays. A new file gets the usual permissions (0666 less the umask); a replaced one keeps its own.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from annotate.spec import SessionSpec

__all__ = ["OutputError", "Protected", "atomic_output", "check_output", "session_files"]

_DB_SIDECARS = (("-wal", "write-ahead log"), ("-shm", "shared-memory file"), ("-journal", "rollback journal"),
                ("-lock", "writers' lock file"))


class OutputError(ValueError):
    """An output file that may not be written (one line, naming the path)."""


@dataclass(frozen=True)
class Protected:
    """A file no output may write over, and what it is (for the error message)."""

    path: Path
    role: str
    """e.g. "the spec of session evals", "the database of session evals"."""


def session_files(spec: SessionSpec) -> tuple[Protected, ...]:
    """The files of a session (spec, database and its sidecars) and of the other sessions beside its spec."""
    name = spec.name
    found = [Protected(spec.path, f"the spec of session {name}"), *_db_files(spec.db, name)]
    folder = spec.path.parent
    try:
        neighbours = sorted(folder.glob("*.toml"))
    except OSError:
        neighbours = []
    for other in neighbours:
        other_db = other.with_suffix(".db")
        if other.stem == name or not other_db.exists():
            continue
        found += [Protected(other, f"the spec of session {other.stem}"), *_db_files(other_db, other.stem)]
    return tuple(found)


def _db_files(db: Path, name: str) -> list[Protected]:
    return [Protected(db, f"the database of session {name}")] + [
        Protected(Path(f"{db}{suffix}"), f"the database {what} of session {name}") for suffix, what in _DB_SIDECARS
    ]


def check_output(path: Path, protected: Iterable[Protected], *, force: bool) -> Path:
    """The file to write for `path` (a symbolic link followed), or OutputError saying why not.

    Refused: a protected file under any spelling (even with `force`), a folder, a path whose folder
    does not exist, and an existing file unless `force`.
    """
    target = Path(os.path.realpath(path))
    for guarded in protected:
        if _same_file(target, guarded.path):
            raise OutputError(
                f"{path}: that is {guarded.role}; nothing is ever written over a session's files,"
                " not even with --force (choose another file)"
            )
    if target.is_dir():
        raise OutputError(f"{path}: is a folder; give a file name")
    if not target.parent.is_dir():
        raise OutputError(f"{path}: the folder {target.parent} does not exist")
    if not force and os.path.lexists(path):
        raise OutputError(f"{path}: already exists; pass --force to replace it, or choose another file")
    return target


def _same_file(target: Path, guarded: Path) -> bool:
    """Whether `target` (already resolved) is `guarded`: same resolved path, same inode, or same name
    up to letter case in the same folder."""
    real = Path(os.path.realpath(guarded))
    if target == real:
        return True
    try:
        if os.path.samefile(target, real):
            return True
    except OSError:
        pass
    if target.name.casefold() != real.name.casefold():
        return False
    try:
        return os.path.samefile(target.parent, real.parent)
    except OSError:
        return False


@contextmanager
def atomic_output(path: Path, protected: Iterable[Protected] = (), *, force: bool = False) -> Iterator[Path]:
    """A temporary file to write, put in place at `path` when the block ends without an error.

    `check_output` is applied first; on any error the temporary file is removed and `path` is left
    as it was.
    """
    guards = tuple(protected)
    target = check_output(path, guards, force=force)
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(handle)
    tmp = Path(name)
    try:
        yield tmp
        with tmp.open("rb+") as written:
            os.fsync(written.fileno())
        _copy_mode(tmp, target)
        check_output(path, guards, force=force)
        _put_in_place(tmp, target, path, force=force)
    finally:
        tmp.unlink(missing_ok=True)


def _copy_mode(tmp: Path, target: Path) -> None:
    """The replaced file's permissions, or those a newly created file would get."""
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)


def _put_in_place(tmp: Path, target: Path, path: Path, *, force: bool) -> None:
    if force:
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)  # fails if the name was taken since the check: never replaces a file
    except FileExistsError:
        raise OutputError(f"{path}: already exists; pass --force to replace it, or choose another file") from None
    except OSError:  # no hard links on this file system
        if os.path.lexists(target):
            raise OutputError(
                f"{path}: already exists; pass --force to replace it, or choose another file"
            ) from None
        os.replace(tmp, target)
