"""Finding, creating and opening sessions: a spec in `sessions/` plus its SQLite file.

Every command takes a session as a name (looked up as `sessions/NAME.toml` under the current
folder) or as a path to its `.toml`. A name never leads out of the project: a `sessions/NAME.toml`
that is a symbolic link to a file outside `sessions/` is refused (a path is the lead's explicit
choice and is taken as given; its folder is then the project).
"""

from __future__ import annotations

from pathlib import Path

from annotate.spec import SESSION_NAME, TASK_KINDS, SessionSpec, load_spec, render_spec
from annotate.store import Store


class SessionError(ValueError):
    """A session that cannot be found or created."""


def resolve_spec_path(ref: str | Path, cwd: Path | None = None) -> Path:
    """The spec file a session reference names."""
    cwd = cwd or Path.cwd()
    ref_path = Path(ref)
    if ref_path.suffix == ".toml":
        path = ref_path if ref_path.is_absolute() else cwd / ref_path
        if not path.is_file():
            raise SessionError(f"{path}: no such session spec")
        return path
    if not SESSION_NAME.match(str(ref)):
        raise SessionError(f"{ref!r}: expected a session name or a path to its .toml")
    path = cwd / "sessions" / f"{ref}.toml"
    if not path.is_file():
        raise SessionError(
            f"no session {ref!r}: {path} does not exist (create it with `annotate init {ref}`)"
        )
    real = path.resolve()
    if not real.is_relative_to((cwd / "sessions").resolve()):
        raise SessionError(
            f"{path}: a symbolic link to {real}, outside {cwd / 'sessions'}; a session named here must live"
            " in the project (give the path to the .toml to open a spec elsewhere)"
        )
    return path


def load_session(ref: str | Path, cwd: Path | None = None) -> SessionSpec:
    return load_spec(resolve_spec_path(ref, cwd))


def open_store(spec: SessionSpec) -> Store:
    """Open the session's SQLite file, creating it when the spec is new."""
    return Store.open(spec.db, create=True)


def create_session(
    name: str, kind: str, guideline: str | None = None, seed: int = 0,
    folder: Path | None = None,
) -> SessionSpec:
    """Write `sessions/NAME.toml`, create `sessions/NAME.db`, and return the loaded spec."""
    if not SESSION_NAME.match(name):
        raise SessionError(f"{name!r}: a session name is letters, digits, '.', '_' or '-'")
    if kind not in TASK_KINDS:
        raise SessionError(f"--kind {kind!r}: expected one of {', '.join(TASK_KINDS)}")
    folder = folder or Path.cwd() / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    if path.exists():
        raise SessionError(f"{path} already exists; choose another name or edit it")
    text = render_spec(name, kind, guideline, seed)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(text, encoding="utf-8")
    try:
        spec = load_spec(tmp)
        spec = SessionSpec(
            path.resolve(), spec.name, spec.kind, spec.guideline, spec.seed,
            spec.db, spec.schema, spec.plan, spec.experiment,
        )
        Store.open(spec.db, create=True).close()
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(path)
    return spec
