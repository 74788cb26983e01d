"""Helpers for the importer and exporter tests: test data, a CLI runner, a file fingerprint."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from annotate.cli import main
from annotate.session import create_session
from annotate.spec import SessionSpec

DATA = Path(__file__).parent / "data"


def cli(*args: str) -> Result:
    """Run `annotate ARGS` in-process; stderr is kept apart from stdout."""
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def session(project: Path, name: str = "s", kind: str = "pairwise") -> SessionSpec:
    return create_session(name, kind, seed=1, folder=project / "sessions")


def fingerprint(spec: SessionSpec) -> dict[str, str]:
    """SHA-256 of the session's database file and its -wal file (when present)."""
    found = {}
    for suffix in ("", "-wal"):
        path = Path(str(spec.db) + suffix)
        if path.exists():
            found[suffix or "db"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def pair(item_id: Any = "p1", **overrides: Any) -> dict[str, Any]:
    """A valid native pairwise record; keyword arguments replace top-level keys."""
    record: dict[str, Any] = {
        "id": item_id, "prompt": f"Question {item_id}?",
        "responses": {"A": {"text": "Answer one.", "model": "m1"}, "B": {"text": "Answer two.", "model": "m2"}},
    }
    record.update(overrides)
    return record
