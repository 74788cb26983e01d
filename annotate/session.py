"""Finding, creating and opening sessions: a spec in `sessions/` plus its SQLite file.

Every command takes a session as a name (looked up as `sessions/NAME.toml` in the project:
`--project`, `$ANNOTATE_HOME`, or the nearest folder at or above the current one that holds
`sessions/`) or as a path to its `.toml`. A name never leads out of the project: a `sessions/NAME.toml`
that is a symbolic link to a file outside `sessions/` is refused (a path is the lead's explicit
choice and is taken as given; its folder is then the project).
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotate.design import describe_identity
from annotate.project import PROJECT_ENV, SessionError, find_project, project_overridden
from annotate.spec import SESSION_NAME, TASK_KINDS, SessionSpec, SpecError, load_spec, render_spec
from annotate.store import Store

if TYPE_CHECKING:
    from annotate.design.spans import Taxonomy
    from annotate.guidelines import Guideline


def resolve_spec_path(ref: str | Path, cwd: Path | None = None) -> Path:
    """The spec file a session reference names: a path to a .toml as given, or a name looked up in
    the project's `sessions/` (`find_project`)."""
    cwd = cwd or Path.cwd()
    ref_path = Path(ref)
    if ref_path.suffix == ".toml":
        path = ref_path if ref_path.is_absolute() else cwd / ref_path
        if not path.is_file():
            raise SessionError(f"{path}: no such session spec")
        return path
    if not SESSION_NAME.match(str(ref)):
        raise SessionError(f"{ref!r}: expected a session name or a path to its .toml")
    project, looked = find_project(cwd)
    if project is None:
        raise SessionError(
            f"no session {ref!r}: no project found (looked at {'; '.join(looked)}); run the command in the"
            f" project folder, pass --project PATH, or set {PROJECT_ENV} to the folder that holds sessions/"
        )
    sessions = project / "sessions"
    path = sessions / f"{ref}.toml"
    if not path.is_file():
        names = sorted(p.stem for p in sessions.glob("*.toml") if SESSION_NAME.match(p.stem))
        close = difflib.get_close_matches(str(ref), names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        have = f"; sessions there: {', '.join(names[:20])}" + (" …" if len(names) > 20 else "") if names else ""
        raise SessionError(f"no session {ref!r}: {path} does not exist{hint}{have} (found by {looked[-1]})")
    real = path.resolve()
    if not real.is_relative_to(sessions.resolve()):
        raise SessionError(
            f"{path}: a symbolic link to {real}, outside {sessions}; a session named here must live"
            " in the project (give the path to the .toml to open a spec elsewhere)"
        )
    return path


def init_folder(name: str, cwd: Path | None = None) -> Path:
    """Where `annotate init NAME` writes: the `sessions/` of --project or $ANNOTATE_HOME when one is
    given, else of the current folder. Refused when the project found from here already holds a
    session NAME elsewhere (an empty twin of it would shadow nothing and confuse everyone)."""
    cwd = cwd or Path.cwd()
    if project_overridden():
        project, _ = find_project(cwd)
        assert project is not None
        return project / "sessions"
    project, _ = find_project(cwd)
    if project is not None and project != cwd and (project / "sessions" / f"{name}.toml").is_file():
        raise SessionError(
            f"session {name!r} already exists in {project / 'sessions'}; `init` here would make an empty twin of it"
            f" in {cwd / 'sessions'} (run commands on the existing one, or choose another name)"
        )
    return cwd / "sessions"


def load_session(ref: str | Path, cwd: Path | None = None) -> SessionSpec:
    return load_spec(resolve_spec_path(ref, cwd))


IDENTITY_META_KEY = "session"
"""Meta key holding which session the file belongs to: JSON with name, kind and label schema."""


def open_store(spec: SessionSpec, create: bool = False, read_only: bool = False) -> Store:
    """Open the session's SQLite file and check that it is this session's (`check_identity`). Only
    `create=True` (`init`) makes a new file: a spec whose file is missing is an error that says so,
    never a new empty session. Read-only when this user cannot write it, or when asked."""
    store = Store.open(spec.db, create=create, read_only=read_only)
    try:
        check_identity(spec, store)
    except BaseException:
        store.close()
        raise
    return store


def session_identity(spec: SessionSpec) -> dict[str, Any]:
    """What makes a file this session's: the name, the kind and the shape of an answer."""
    return json.loads(_canonical({"name": spec.name, "kind": spec.kind, "schema": spec.schema.identity()}))


def check_identity(spec: SessionSpec, store: Store) -> None:
    """Refuse a file that belongs to another session: a spec copied from another one (or edited)
    that still points at that session's file would otherwise mix two kinds of answer in one file
    (a grade screen grading pairwise items). A file that records no session yet (new, or written by
    an older annotate) is claimed for this one. The label schema may change until the first answer
    or vote is stored; after that a changed one is refused too."""
    mine = session_identity(spec)
    raw = store.get_meta(IDENTITY_META_KEY)
    if raw is None:
        if not store.read_only:  # a read-only file is read as it is, never claimed
            store.set_meta(IDENTITY_META_KEY, _canonical(mine))
        return
    stored = json.loads(raw)
    if (stored.get("name"), stored.get("kind")) != (mine["name"], mine["kind"]):
        raise SessionError(
            f"{spec.path}: this spec is session {mine['name']!r} ({mine['kind']}), but its file {spec.db.name}"
            f" belongs to session {stored.get('name')!r} ({stored.get('kind')}); a spec copied from another"
            f" session still points at that session's file: give this one its own, e.g. db = \"{spec.name}.db\""
        )
    if stored.get("schema") != mine["schema"]:
        if store.has_answers():
            raise SessionError(
                f"{spec.path}: [labels] no longer matches the answers already in {spec.db.name} (they were given"
                f" on {describe_identity(stored.get('schema'))};"
                f" the spec now says {describe_identity(mine['schema'])});"
                " put [labels] back as it was, or start a new session for the new labels"
            )
        if not store.read_only:
            store.set_meta(IDENTITY_META_KEY, _canonical(mine))


def session_taxonomy(spec: SessionSpec, guideline: Guideline | None) -> Taxonomy | None:
    """The error taxonomy of a session whose answers include error spans (None otherwise): the
    spec's `[labels.spans]` categories, else its guideline's `errors:`. A SpecError naming the
    spec's key (or a ValueError naming the guideline's front matter) when there is none to use."""
    from annotate.design.spans import SpanSpecError, resolve_taxonomy

    if spec.schema.spans is None:
        return None
    try:
        return resolve_taxonomy(spec.schema.spans, guideline)
    except SpanSpecError as exc:
        if exc.key.startswith("labels."):
            raise SpecError(spec.path, exc.key, exc.expected) from None
        raise ValueError(str(exc)) from None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def create_session(
    name: str, kind: str, guideline: str | None = None, seed: int = 0,
    folder: Path | None = None, design: str = "outcomes", spans: bool = False,
) -> SessionSpec:
    """Write `sessions/NAME.toml`, create `sessions/NAME.db`, and return the loaded spec (spans: with
    `[labels.spans]`, see `render_spec`)."""
    if not SESSION_NAME.match(name):
        raise SessionError(f"{name!r}: a session name is letters, digits, '.', '_' or '-'")
    if kind not in TASK_KINDS:
        raise SessionError(f"--kind {kind!r}: expected one of {', '.join(TASK_KINDS)}")
    folder = folder or Path.cwd() / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    if path.exists():
        raise SessionError(f"{path} already exists; choose another name or edit it")
    try:
        text = render_spec(name, kind, guideline, seed, design=design, spans=spans)
    except ValueError as exc:
        raise SessionError(str(exc)) from None
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(text, encoding="utf-8")
    try:
        spec = load_spec(tmp)
        spec = SessionSpec(
            path.resolve(), spec.name, spec.kind, spec.guideline, spec.seed,
            spec.db, spec.schema, spec.plan, spec.experiment,
        )
        open_store(spec, create=True).close()
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(path)
    return spec
