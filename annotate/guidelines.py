"""Guideline documents: Markdown with a front matter block holding at least `id` and `version`.

The version is stamped on every judgment, so a lead can tell which wording a label was made under.
A session names its guideline by id; it is looked up in the project's `guidelines/` folder, then in
the guidelines shipped with annotate. Ids are plain names, never paths, and a guideline file that is
a symbolic link leading out of its folder is refused, so a spec cannot point outside the project.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}\Z")
REQUIRED = ("id", "version")


class GuidelineError(ValueError):
    """A guideline that cannot be used; the message names the file, the line or key."""


@dataclass(frozen=True)
class Guideline:
    id: str
    version: str
    title: str
    kind: str
    """`pairwise`, `single` or `rubric` (empty when the document does not say)."""
    body: str
    """The Markdown after the front matter."""
    path: Path
    fields: Mapping[str, str] = field(default_factory=dict)
    """Every front matter field as text (e.g. `errors`, the error taxonomy: annotate.design.spans)."""


def builtin_dir() -> Path:
    """The guidelines shipped with annotate (the repository's folder, or the wheel's copy)."""
    package = Path(__file__).resolve().parent
    for candidate in (package.parent / "guidelines", package / "_guidelines"):
        if candidate.is_dir():
            return candidate
    return package.parent / "guidelines"


def search_dirs(project_dir: Path | None) -> list[Path]:
    dirs = [project_dir / "guidelines"] if project_dir is not None else []
    builtin = builtin_dir()
    return dirs + ([builtin] if builtin not in dirs else [])


def find_guideline(guideline_id: str, project_dir: Path | None = None) -> Path:
    """The file of guideline `guideline_id`; GuidelineError when none is found."""
    if not ID_PATTERN.match(guideline_id):
        raise GuidelineError(f"guideline id {guideline_id!r}: expected a plain name, not a path")
    dirs = search_dirs(project_dir)
    for folder in dirs:
        path = folder / f"{guideline_id}.md"
        if path.is_file():
            real = path.resolve()
            if not real.is_relative_to(folder.resolve()):
                raise GuidelineError(
                    f"{path}: a symbolic link to {real}, outside {folder}; a guideline must be a file in that folder"
                )
            return path
    where = ", ".join(str(d) for d in dirs)
    known = available_guidelines(project_dir)
    close = difflib.get_close_matches(guideline_id, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    have = f"; the guidelines there: {', '.join(known)}" if known else ""
    raise GuidelineError(f"guideline {guideline_id!r}: no file {guideline_id}.md in {where}{hint}{have}")


def available_guidelines(project_dir: Path | None = None) -> list[str]:
    """The ids of every guideline file in the project's and the shipped folders, sorted."""
    found: set[str] = set()
    for folder in search_dirs(project_dir):
        try:
            found.update(p.stem for p in folder.glob("*.md") if ID_PATTERN.match(p.stem))
        except OSError:
            continue
    return sorted(found)


def load_guideline(guideline_id: str, project_dir: Path | None = None) -> Guideline:
    path = find_guideline(guideline_id, project_dir)
    guideline = parse_guideline(path)
    if guideline.id != guideline_id:
        raise GuidelineError(f"{path}: front matter id is {guideline.id!r}, expected {guideline_id!r}")
    return guideline


def parse_guideline(path: Path) -> Guideline:
    """Read a guideline file; errors name the file and the line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        found = exc.object[exc.start : exc.start + 1].hex()
        raise GuidelineError(f"{path}: line {line}: not UTF-8 text (byte 0x{found} at offset {exc.start})") from None
    lines = text.replace("\r\n", "\n").split("\n")  # only real line ends: line numbers match an editor
    if not lines or lines[0].strip() != "---":
        raise GuidelineError(f"{path}: line 1: expected '---' opening the front matter (id, version)")
    fields: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            body = "\n".join(lines[number:]).strip("\n") + "\n"
            break
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise GuidelineError(f"{path}: line {number}: expected 'key: value' in the front matter")
        fields[key.strip()] = value.strip().strip("\"'")
    else:
        raise GuidelineError(f"{path}: front matter opened on line 1 is never closed with '---'")
    for key in REQUIRED:
        if not fields.get(key):
            raise GuidelineError(f"{path}: front matter: missing '{key}'")
    if not ID_PATTERN.match(fields["id"]):
        raise GuidelineError(f"{path}: front matter: id {fields['id']!r} is not a plain name")
    return Guideline(
        id=fields["id"], version=fields["version"], title=fields.get("title", fields["id"]),
        kind=fields.get("kind", ""), body=body, path=path, fields=MappingProxyType(dict(fields)),
    )


def list_guidelines(project_dir: Path | None = None) -> list[Guideline]:
    """Every readable guideline, project ones first; unreadable files and links out of their folder
    are left out."""
    found: dict[str, Guideline] = {}
    for folder in search_dirs(project_dir):
        for path in sorted(folder.glob("*.md")):
            if not path.resolve().is_relative_to(folder.resolve()):
                continue  # a symbolic link out of the folder (find_guideline says why)
            try:
                guideline = parse_guideline(path)
            except GuidelineError:
                continue
            found.setdefault(guideline.id, guideline)
    return list(found.values())
