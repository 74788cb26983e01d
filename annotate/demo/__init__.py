"""The demo: a scratch project with a pairwise session and the shipped demo items.

`annotate demo` opens the annotation screen on it. It lives in a cache folder, never in the
user's ./sessions, so trying the tool leaves their project alone; a second run reuses the
session, so an annotator resumes where they stopped.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from annotate.spec import SessionSpec

DEMO_NAME = "demo"
DEMO_SEED = 20240601
"""Fixed, so every demo run shows the same order and sides."""
DEMO_GUIDELINE = "pairwise-chat"
ITEMS_FILE = "items.jsonl"


def default_folder() -> Path:
    """`$XDG_CACHE_HOME/annotate/demo`, or `~/.cache/annotate/demo`."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "annotate" / "demo"


def prepare_demo(folder: Path | None = None, fresh: bool = False) -> SessionSpec:
    """Create (if missing) the demo project at `folder` and return its session spec.

    The project is `folder/sessions/demo.toml` plus its database, a pairwise session under the
    pairwise-chat guideline with a fixed seed, holding the items shipped in
    annotate/demo/items.jsonl. The import is idempotent, so calling this again reuses the
    session and its judgments. fresh=True deletes the demo session (its spec and database files,
    nothing else in `folder`) and starts over.
    """
    from annotate.formats import import_items
    from annotate.session import create_session, open_store
    from annotate.spec import load_spec

    folder = Path(folder) if folder is not None else default_folder()
    sessions = folder / "sessions"
    spec_path = sessions / f"{DEMO_NAME}.toml"
    if fresh:
        _check_is_demo(spec_path)
        for name in (f"{DEMO_NAME}.toml", f"{DEMO_NAME}.db", f"{DEMO_NAME}.db-wal", f"{DEMO_NAME}.db-shm"):
            (sessions / name).unlink(missing_ok=True)
    if spec_path.is_file():
        spec = load_spec(spec_path)
    else:
        spec = create_session(DEMO_NAME, "pairwise", DEMO_GUIDELINE, DEMO_SEED, folder=sessions)
    items = resources.files(__name__) / ITEMS_FILE
    with resources.as_file(items) as items_path, open_store(spec, create=True) as store:  # recreated if deleted
        if store.get_meta(DEMO_META_KEY) is None and _looks_like_demo(spec):
            store.set_meta(DEMO_META_KEY, "1")
        import_items(store, spec.schema, items_path, format="native")
    return spec


DEMO_META_KEY = "demo"
"""Set in the demo's own session file: `--fresh` deletes only a session that has it."""


def _looks_like_demo(spec: SessionSpec) -> bool:
    return (spec.name, spec.kind, spec.seed, spec.guideline) == (DEMO_NAME, "pairwise", DEMO_SEED, DEMO_GUIDELINE)


def _check_is_demo(spec_path: Path) -> None:
    """Refuse to delete a session that `annotate demo` did not make (a `--dir` pointing at a project
    with a session called demo)."""
    from annotate.session import SessionError
    from annotate.spec import load_spec
    from annotate.store import Store

    if not spec_path.is_file():
        return
    spec = load_spec(spec_path)
    marked = False
    if spec.db.is_file():
        with Store.open(spec.db) as store:
            marked = store.get_meta(DEMO_META_KEY) == "1"
    if not marked or not _looks_like_demo(spec):
        raise SessionError(
            f"{spec_path} is not the demo's own session (annotate demo did not make it); --fresh deletes only the"
            " demo's files: choose another --dir"
        )
