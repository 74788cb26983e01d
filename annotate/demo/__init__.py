"""The demos: a scratch project with one session per study design and the shipped demo items.

`annotate demo` opens the annotation screen on the pairwise demo; `annotate demo --kind graded`
(or aspects, single, rubric, ranking, and spans: pairwise items with planted errors to mark) on
the others. They live in a cache folder, never in the user's ./sessions, so trying the tool leaves
their project alone; a second run reuses the session, so an annotator resumes where they stopped.
The items were written for annotate (no public data).
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
SINGLE_ITEMS_FILE = "single_items.jsonl"
RANKING_ITEMS_FILE = "ranking_items.jsonl"
ERROR_ITEMS_FILE = "error_items.jsonl"
"""Pairwise items with planted errors (wrong facts, arithmetic slips, broken instructions, unsafe advice)."""
SPANS_GUIDELINE = "pairwise-errors"

DEMOS: dict[str, tuple[str, str, str, str | None, str]] = {
    "pairwise": (DEMO_NAME, "pairwise", "outcomes", DEMO_GUIDELINE, ITEMS_FILE),
    "graded": ("demo-graded", "pairwise", "graded-5", None, ITEMS_FILE),
    "aspects": ("demo-aspects", "pairwise", "aspects", None, ITEMS_FILE),
    "single": ("demo-single", "single", "outcomes", None, SINGLE_ITEMS_FILE),
    "rubric": ("demo-rubric", "rubric", "outcomes", None, SINGLE_ITEMS_FILE),
    "ranking": ("demo-ranking", "ranking", "outcomes", None, RANKING_ITEMS_FILE),
    "spans": ("demo-spans", "pairwise", "outcomes", SPANS_GUIDELINE, ERROR_ITEMS_FILE),
    "training": ("demo-training", "pairwise", "outcomes", DEMO_GUIDELINE, ITEMS_FILE),
}
"""Demo kind -> (session name, task kind, design, guideline (None: the design's), items file)."""
WITH_SPANS = frozenset({"spans"})
"""Demo kinds whose answers include error spans ([labels.spans])."""
TRAINING_ITEMS_FILE = "training_items.jsonl"
"""Training items (gold and an explanation) of the `training` demo, answered before its main queue."""
TRAINING_TABLE = ("[training]                    # answered first: gold items with an explanation",
                  "pass_threshold = 0.75         # share right to open the main queue (3 of 4)",
                  "retries = 1                   # one more round after a fail", "")


def default_folder() -> Path:
    """`$XDG_CACHE_HOME/annotate/demo`, or `~/.cache/annotate/demo`."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "annotate" / "demo"


def prepare_demo(folder: Path | None = None, fresh: bool = False, kind: str = "pairwise") -> SessionSpec:
    """Create (if missing) the demo project at `folder` and return the spec of its `kind` demo.

    The project holds `folder/sessions/<name>.toml` plus its database for each demo opened so far
    (DEMOS: pairwise, graded, aspects, single, rubric, ranking, spans), each with a fixed seed and the
    items shipped in annotate/demo/. The import is idempotent, so calling this again reuses the session and its
    judgments. fresh=True deletes that demo session (its spec and database files, nothing else in
    `folder`) and starts over.
    """
    from annotate.formats import import_items
    from annotate.session import create_session, open_store
    from annotate.spec import load_spec

    if kind not in DEMOS:
        raise ValueError(f"--kind {kind!r}: expected one of {', '.join(DEMOS)}")
    name, task, design, guideline, items_file = DEMOS[kind]
    folder = Path(folder) if folder is not None else default_folder()
    sessions = folder / "sessions"
    spec_path = sessions / f"{name}.toml"
    if fresh:
        _check_is_demo(spec_path, kind)
        for suffix in (".toml", ".db", ".db-wal", ".db-shm"):
            (sessions / f"{name}{suffix}").unlink(missing_ok=True)
    if spec_path.is_file():
        spec = load_spec(spec_path)
    else:
        spec = create_session(name, task, guideline, DEMO_SEED, folder=sessions, design=design,
                              spans=kind in WITH_SPANS)
        if kind == "training":
            spec_path.write_text(spec_path.read_text(encoding="utf-8") + "\n".join(TRAINING_TABLE), encoding="utf-8")
            spec = load_spec(spec_path)
    items = resources.files(__name__) / items_file
    with resources.as_file(items) as items_path, open_store(spec, create=True) as store:  # recreated if deleted
        if store.get_meta(DEMO_META_KEY) is None and _looks_like_demo(spec, kind):
            store.set_meta(DEMO_META_KEY, "1")
        import_items(store, spec.schema, items_path, format="native")
        if kind == "training":
            from annotate.training import import_training

            with resources.as_file(resources.files(__name__) / TRAINING_ITEMS_FILE) as training_path:
                import_training(store, spec, training_path)
    return spec


DEMO_META_KEY = "demo"
"""Set in the demo's own session file: `--fresh` deletes only a session that has it."""


def _looks_like_demo(spec: SessionSpec, kind: str) -> bool:
    from annotate.design.templates import design_guideline
    from annotate.spec import DEFAULT_GUIDELINE

    name, task, design, guideline, _items = DEMOS[kind]
    expected = guideline or (design_guideline(design) if task == "pairwise" else DEFAULT_GUIDELINE[task])
    return (spec.name, spec.kind, spec.seed, spec.guideline) == (name, task, DEMO_SEED, expected)


def _check_is_demo(spec_path: Path, kind: str) -> None:
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
    if not marked or not _looks_like_demo(spec, kind):
        raise SessionError(
            f"{spec_path} is not the demo's own session (annotate demo did not make it); --fresh deletes only the"
            " demo's files: choose another --dir"
        )
