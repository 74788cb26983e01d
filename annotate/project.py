"""Which project folder session names are looked up in: `--project`, `$ANNOTATE_HOME`, or the
nearest folder at or above the current one that holds `sessions/`.

Apart from `annotate.session` so that the command line's group callback (`--project`) can set it
without importing the store, SQLite and the session specs for every command (`annotate agreement`
on a CSV file needs none of them).
"""

from __future__ import annotations

import os
from pathlib import Path


class SessionError(ValueError):
    """A session that cannot be found or created."""


PROJECT_ENV = "ANNOTATE_HOME"
"""Environment variable naming the project folder (the one that holds `sessions/`)."""

_project_override: Path | None = None


def set_project(folder: Path | None) -> None:
    """Use `folder` as the project for session names from now on (`annotate --project PATH`)."""
    global _project_override
    _project_override = None if folder is None else Path(folder).expanduser()


def find_project(cwd: Path | None = None) -> tuple[Path | None, list[str]]:
    """The project folder that session names are looked up in, and where it looked.

    In order: `--project` (set_project), `$ANNOTATE_HOME`, then the current folder and each folder
    above it, the first that holds a `sessions/` folder. An annotator who logs in over ssh lands in
    their home folder, far from the project: ANNOTATE_HOME in their profile, or --project, finds it.
    """
    cwd = cwd or Path.cwd()
    looked: list[str] = []
    if _project_override is not None:
        folder = _project_override if _project_override.is_absolute() else cwd / _project_override
        if not (folder / "sessions").is_dir():
            raise SessionError(f"--project {folder}: no sessions/ folder there")
        return folder, [f"--project {folder}"]
    home = os.environ.get(PROJECT_ENV)
    if home:
        folder = Path(home).expanduser()
        if not (folder / "sessions").is_dir():
            raise SessionError(f"${PROJECT_ENV} is {home}, which has no sessions/ folder")
        return folder, [f"${PROJECT_ENV} ({folder})"]
    looked.append(f"${PROJECT_ENV} (not set)")
    for folder in (cwd, *cwd.parents):
        if (folder / "sessions").is_dir():
            return folder, [*looked, f"{folder}/sessions"]
    looked.append(f"a sessions/ folder in {cwd} or any folder above it")
    return None, looked


def project_overridden() -> bool:
    """True when --project or $ANNOTATE_HOME names the project (no search from the current folder)."""
    return _project_override is not None or bool(os.environ.get(PROJECT_ENV))
