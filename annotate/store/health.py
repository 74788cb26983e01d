"""Whether a session file can be opened, how, and what to tell a person when SQLite cannot use it.

Every way a session file is opened (`Store.open`, merge's read of a copy, the annotation app) comes
through here, and so does every SQLite error about the file itself: damaged, not a database, disk
full, read-only, missing, an I/O error, a lost `-wal` file. Each becomes a `SessionFileError` whose
one-line message names the file, says what is wrong and what to do. Errors that are not about the
file (a constraint, a mistake in a query) are left alone, so they still show where they come from.

Read-only sessions (the file, its folder or its `-wal`/`-shm` not writable for this user, or a
read-only file system) are opened read-only rather than refused, so `status`, `report`, `export`
and `backup` still work: with SQLite's `mode=ro` where it can keep its shared-memory index beside
the file; as an `immutable` file when it cannot (the folder is not writable) and no `-wal` file
exists. No `-wal` means no writer has the file open at that moment, since a writer always has one;
a writer that starts during a long read could leave that one read's figures stale, never the file.
A copy given to `annotate merge` is read the same way (`copy_mode`).
"""

from __future__ import annotations

import functools
import os
import sqlite3
import struct
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from annotate.store.errors import StoreError
from annotate.store.schema import SCHEMA_VERSION

F = TypeVar("F", bound=Callable[..., Any])

BACKUP_FOLDER = "backups"
"""`annotate backup` writes beside the session file, in this folder, unless told otherwise."""

_SQLITE_HEADER = b"SQLite format 3\x00"
_CORRUPT, _NOTADB, _FULL, _IOERR, _READONLY, _CANTOPEN = 11, 26, 13, 10, 8, 14
_BUSY, _LOCKED, _PERM, _NOLFS = 5, 6, 3, 22


class SessionFileError(StoreError):
    """A session file SQLite cannot read or write; the message says what is wrong and what to do."""


@dataclass(frozen=True)
class Access:
    """How a session file can be opened by this user."""

    mode: str
    """`rw`; `ro` (read-only, SQLite's shared-memory index beside the file); `immutable` (read as a
    file nobody writes: no index, no lock)."""
    reason: str = ""
    """Why it is not writable ("" when it is), e.g. `sessions/ is not writable for you`."""


def shown(path: Path) -> str:
    """A path as a person would type it here: relative to the current folder when inside it."""
    try:
        absolute = Path(os.path.abspath(path))
        return str(absolute.relative_to(Path.cwd())) if absolute != Path.cwd() else "."
    except (ValueError, OSError):
        return str(path)


# -- opening ------------------------------------------------------------------------------------


def access(path: Path) -> Access:
    """Whether this user can write `path` (and everything SQLite writes beside it), and if not,
    how to read it and why (the reason goes into every refused write's message)."""
    folder = path.parent
    wal, shm = _side(path, "-wal"), _side(path, "-shm")
    read_only_fs = _read_only_fs(folder)
    folder_writable = not read_only_fs and os.access(folder, os.W_OK | os.X_OK, effective_ids=True)
    reason = ""
    if read_only_fs:
        reason = f"the file system holding {shown(folder)} is read-only"
    elif path.exists() and not os.access(path, os.W_OK, effective_ids=True):
        reason = f"{shown(path)} is not writable for you"
    elif not folder_writable:
        reason = f"its folder {shown(folder)} is not writable for you"
    else:
        for side in (wal, shm):
            if side.exists() and not os.access(side, os.W_OK, effective_ids=True):
                reason = f"{shown(side)} is not writable for you"
                break
    if not reason:
        return Access("rw")
    if not folder_writable and not wal.exists() and not shm.exists():
        return Access("immutable", reason)
    return Access("ro", reason)


def copy_mode(path: Path) -> str:
    """How to read a copy of a session that is only read (`annotate merge`): as an immutable file when
    nothing is beside it (no writer has it open, and SQLite leaves no `-wal`/`-shm` behind), else
    read-only with its `-wal` (which may hold answers not yet in the file)."""
    return "ro" if _side(path, "-wal").exists() or _side(path, "-shm").exists() else "immutable"


def read_only_uri(path: Path, mode: str = "ro") -> str:
    """The SQLite URI that opens `path` read-only (`mode` from `access`: `ro` or `immutable`)."""
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    return uri + "&immutable=1" if mode == "immutable" else uri


def check_before_open(path: Path, create: bool) -> None:
    """Refuse, before SQLite touches it, a session file that is missing (or in a missing folder),
    empty, or whose `-wal` file is gone while its index says it held data not yet in the file."""
    if not path.parent.is_dir():
        raise SessionFileError(
            f"{shown(path)}: its folder {shown(path.parent)} does not exist (moved or deleted?); put the session"
            f" back there, or {restore_hint(path)}"
        )
    if not path.exists():
        if create:
            return
        raise SessionFileError(f"{shown(path)}: no such session file; {restore_hint(path)}")
    if path.is_dir():
        raise SessionFileError(f"{shown(path)}: a folder, not a session file")
    if path.stat().st_size == 0 and not create:
        raise SessionFileError(f"{shown(path)}: the file is empty (0 bytes), not a session; {restore_hint(path)}")
    lost = _lost_wal_pages(path)
    if lost:
        raise SessionFileError(_lost_wal_message(path, lost))


def check_opened(db: Any, path: Path, read_only: str = "") -> None:
    """Refuse, before any migration, an SQLite file that is not a session (tables of something else),
    one written by a newer annotate, or (read-only) one too old to read without upgrading it."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise SessionFileError(
            f"{shown(path)}: written by a newer annotate (schema {version}, this one knows {SCHEMA_VERSION});"
            " upgrade annotate (pip install -U annotate)"
        )
    if version == 0 and db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
        raise SessionFileError(
            f"{shown(path)}: an SQLite database of something else, not a session file; check [session] db in the spec"
        )
    if read_only and version < SCHEMA_VERSION:
        raise SessionFileError(
            f"{shown(path)}: written by an older annotate (schema {version} of {SCHEMA_VERSION}) and read-only"
            f" ({read_only}): someone who can write it must open it once (e.g. `annotate status`) to upgrade it"
        )


_opening: ContextVar[list[sqlite3.Connection] | None] = ContextVar("opening", default=None)


def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    """sqlite3.connect, remembered while a `session_file_errors` function runs: an open that fails
    closes what it connected (so SQLite tidies up its `-wal` and `-shm` files)."""
    conn = sqlite3.connect(*args, **kwargs)
    opened = _opening.get()
    if opened is not None:
        opened.append(conn)
    return conn


def session_file_errors(open_func: F) -> F:
    """Wrap a function taking (cls, path, ...) that opens a session file: when it fails, the
    connections it made are closed, and SQLite errors about the file become SessionFileErrors
    naming it."""

    @functools.wraps(open_func)
    def wrapper(cls: Any, path: Path | str, *args: Any, **kwargs: Any) -> Any:
        opened: list[sqlite3.Connection] = []
        token = _opening.set(opened)
        try:
            return open_func(cls, path, *args, **kwargs)
        except BaseException as exc:
            for conn in opened:
                conn.close()
            found = translate(exc, Path(path)) if isinstance(exc, sqlite3.Error) else None
            if found is None:
                raise
            raise found from exc
        finally:
            _opening.reset(token)

    return wrapper  # type: ignore[return-value]


# -- errors -------------------------------------------------------------------------------------


def translate(exc: BaseException, path: Path, read_only: str = "") -> SessionFileError | None:
    """The SessionFileError for an SQLite error about the file `path`, or None when `exc` is not one."""
    if isinstance(exc, SessionFileError):
        return exc
    message = describe(exc, path, read_only)
    return None if message is None else SessionFileError(message)


def error_text(exc: BaseException, path: Path) -> str:
    """One line for any error of a write to `path` (the app's NOT SAVED notice)."""
    return describe(exc, path) or str(exc) or type(exc).__name__


def describe(exc: BaseException, path: Path, read_only: str = "") -> str | None:
    """One line naming the file, what is wrong and what to do, for an SQLite error about the file
    itself; None for any other error."""
    if isinstance(exc, SessionFileError):
        return str(exc)
    if not isinstance(exc, sqlite3.Error):
        return None
    code = getattr(exc, "sqlite_errorcode", None)
    name = getattr(exc, "sqlite_errorname", None) or ""
    text = str(exc)
    primary = code & 0xFF if isinstance(code, int) else _code_from_text(text)
    p = shown(path)
    if primary == _CORRUPT:
        return f"{p}: {_damage(path)}; {restore_hint(path)}"
    if primary == _NOTADB:
        return f"{p}: not a session file: {_not_a_database(path)}; {restore_hint(path)}"
    if primary == _FULL:
        return (f"{p}: the disk is full (or the file reached its size limit): nothing of this change was written;"
                " free some space and try again")
    if primary == _IOERR:
        lost = _lost_wal_pages(path)
        if lost or (not _side(path, "-wal").exists() and _side(path, "-shm").exists()):
            return _lost_wal_message(path, lost)
        return (f"{p}: the disk could not read or write it ({name or text}): nothing of this change was written;"
                " check the disk has space (and `ulimit -f` allows the file's size) and try again; if it keeps"
                f" happening, {restore_hint(path)}")
    if primary == _READONLY:
        return read_only_message(path, read_only or access(path).reason or "the file or its folder is read-only")
    if primary == _CANTOPEN:
        if not path.parent.is_dir():
            return f"{p}: cannot open it: its folder {shown(path.parent)} does not exist"
        if path.exists() and not os.access(path, os.R_OK, effective_ids=True):
            return f"{p}: cannot open it: it is not readable for you; ask its owner (or chmod u+r {p})"
        return (f"{p}: cannot open it (nor create what SQLite keeps beside it, {p}-wal and {p}-shm); check that"
                f" {shown(path.parent)} is readable and writable for you")
    if primary in (_BUSY, _LOCKED):
        return (f"{p}: another program has held the session file's lock for over 30 seconds; try again (`fuser {p}`"
                " shows who has it open)")
    if primary == _PERM:
        return f"{p}: the operating system refused access to it; check its permissions"
    if primary == _NOLFS:
        return f"{p}: the file is too large for this system"
    return None


def read_only_message(path: Path, reason: str, what: str = "this command writes to it") -> str:
    """Why a write to a read-only session is refused, what still works, and how to get write access."""
    p = shown(path)
    if reason.startswith("the file system"):
        fix = "copy the session folder to a writable disk"
    elif reason.startswith("its folder"):
        fix = f"make {shown(path.parent)} writable for you (SQLite writes {p}-wal and {p}-shm there)"
    else:
        fix = "ask its owner for write access (or chmod u+w it)"
    return (f"{p}: read-only ({reason}), and {what}: status, report, export and backup still work; to change"
            f" the session, {fix}")


def read_only_error(path: Path, reason: str, what: str = "this command writes to it") -> SessionFileError:
    return SessionFileError(read_only_message(path, reason, what))


def restore_hint(path: Path) -> str:
    """What to do about a session file that is lost or damaged: name the newest backup when there is one."""
    backups = latest_backup(path)
    if backups is not None:
        return f"restore the last backup, {shown(backups)} (docs/troubleshooting.md, 'Backups and broken files')"
    return ("restore it from a backup if you have one (`annotate backup SESSION` makes them;"
            " docs/troubleshooting.md, 'Backups and broken files')")


def latest_backup(path: Path) -> Path | None:
    """The newest `annotate backup` of the session file `path` in its default folder, if any."""
    folder = Path(path).parent / BACKUP_FOLDER
    try:
        found = sorted(folder.glob(f"{Path(path).stem}-*.db"))
    except OSError:
        return None
    return found[-1] if found else None


def _code_from_text(text: str) -> int | None:
    for needle, code in (("malformed", _CORRUPT), ("not a database", _NOTADB), ("disk is full", _FULL),
                         ("disk I/O error", _IOERR), ("readonly", _READONLY), ("unable to open", _CANTOPEN),
                         ("locked", _BUSY)):
        if needle in text:
            return code
    return None


def _damage(path: Path) -> str:
    """What the damage looks like: truncated (shorter than its header says) or damaged inside."""
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            header = handle.read(100)
    except OSError:
        return "the file is damaged (database disk image is malformed)"
    if len(header) == 100 and header.startswith(_SQLITE_HEADER):
        page_size = struct.unpack(">H", header[16:18])[0]
        page_size = 65536 if page_size == 1 else page_size
        pages = struct.unpack(">I", header[28:32])[0]
        if header[92:96] == header[24:28] and page_size and size < pages * page_size:
            return f"the file is truncated ({size:,} bytes of the {pages * page_size:,} its header records)"
        if page_size and size % page_size:
            return f"the file is truncated ({size:,} bytes, not a whole number of {page_size:,}-byte pages)"
    return "the file is damaged inside (database disk image is malformed)"


def _not_a_database(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            head = handle.read(100)
    except OSError:
        return "it cannot be read as SQLite"
    if head and not head.strip(b"\x00"):
        return "its header is zeroed (overwritten with zero bytes)"
    if head.startswith(_SQLITE_HEADER):
        return "its SQLite header is damaged"
    return "it does not start with an SQLite header (another kind of file, or overwritten)"


# -- the write-ahead log ------------------------------------------------------------------------


def _side(path: Path, suffix: str) -> Path:
    return Path(f"{path}{suffix}")


def _read_only_fs(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


_WAL_INDEX_VERSION = 3007000


def _lost_wal_pages(path: Path) -> int:
    """Pages the `-shm` index says are in the `-wal` file and not yet copied into the file itself,
    when that `-wal` file is missing or too short to hold them (deleted, or truncated); else 0.

    The index starts with two copies of a 48-byte header (native byte order: version u32, unused
    u32, change counter u32, initialised u8, checksum order u8, page size u16 (1 = 65536), last
    valid frame u32, ...) followed at byte 96 by the checkpoint's progress (frames copied, u32).
    A frame is 24 bytes plus a page, after the 32-byte header of the `-wal` file (SQLite's wal.c).
    """
    shm, wal = _side(path, "-shm"), _side(path, "-wal")
    try:
        with shm.open("rb") as handle:
            index = handle.read(136)
    except OSError:
        return 0
    if len(index) < 100 or index[:48] != index[48:96]:
        return 0
    version, _, _, initialised, _, page_size, last_frame = struct.unpack("=IIIBBHI", index[:20])
    copied = struct.unpack("=I", index[96:100])[0]
    if version != _WAL_INDEX_VERSION or not initialised or last_frame <= copied:
        return 0
    page_size = 65536 if page_size == 1 else page_size
    try:
        wal_size = wal.stat().st_size
    except OSError:
        wal_size = 0
    if wal_size >= 32 + last_frame * (24 + page_size):
        return 0
    return last_frame - copied


def _lost_wal_message(path: Path, pages: int) -> str:
    p = shown(path)
    held = f"held {pages:,} pages of changes" if pages else "held changes"
    state = "is cut short" if _side(path, "-wal").exists() else "is missing"
    return (f"{p}-wal {state}, but {p}-shm says it {held} not yet in {p} (recent answers). If an annotation"
            f" screen is still open on this session, quit it normally (q): its answers are written to {p} then."
            f" Otherwise put {p}-wal back if you can, or {restore_hint(path)}; to go on without those changes,"
            f" delete {p}-shm")


class WalWatch:
    """Notices that the session's `-wal` file was deleted or replaced while this connection has the
    session open. SQLite goes on writing to the deleted file, which no other program sees and which
    is lost if this one is killed; a write that would land there is refused, and a write that did
    is not reported as saved. Once noticed, every later write is refused too."""

    def __init__(self, path: Path, db: Any) -> None:
        self.path = path
        self.db = db
        self.wal = _side(path, "-wal")
        self.identity = self._identity()
        """The `-wal` file this connection opened (SQLite creates it on opening), by device and inode."""
        self.active = True
        self.broken = ""
        """Why writes are refused, once the `-wal` file was found gone."""

    def _identity(self) -> tuple[int, int] | None:
        try:
            stat = os.stat(self.wal)
        except OSError:
            return None
        return stat.st_dev, stat.st_ino

    def check(self, committed: bool = False) -> None:
        """Raise SessionFileError when the `-wal` file this connection writes to is no longer the one
        on disk: called once the write lock is held (nothing written yet) and after each commit."""
        if self.broken:
            raise SessionFileError(self.broken)
        if not self.active:
            return
        identity = self._identity()
        if self.identity is None:
            if identity is not None:
                self.identity = identity
                return
            if str(self.db.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                self.active = False  # no write-ahead log (a file system without shared memory): nothing to watch
                return
        if identity is not None and identity == self.identity:
            return
        p = shown(self.path)
        deleted = f"{p}-wal was deleted (or replaced) while this program had the session open"
        advice = (f"what it saved before reaches {p} when it closes normally (and is lost if it is killed): quit"
                  " normally now, then check `annotate status`")
        self.broken = f"{deleted}: it writes nothing more; {advice}"
        if committed:
            raise SessionFileError(f"{deleted}: this change went only to the deleted file; {advice}")
        raise SessionFileError(self.broken)
