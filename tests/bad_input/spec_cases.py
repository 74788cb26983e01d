"""Broken specs and guidelines of the corpus, and the commands each is tried with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .file_cases import DEEP, nested

SPEC_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("status", "s"),
    ("import", "s", "ok.jsonl"),
    ("labels", "import", "s", "votes.csv", "--cohort", "expert"),
    ("start", "s", "--annotator", "alice"),
    ("plan", "s", "--annotators", "alice,bob", "--overlap", "2"),
    ("report", "s", "--bootstrap", "0"),
    ("export", "s"),
    ("adjudicate", "s", "--annotator", "carol"),
)
"""Every command that loads the spec: each must refuse a broken one before it opens the session file."""

GUIDELINE_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("start", "s", "--annotator", "alice"),
    ("adjudicate", "s", "--annotator", "carol"),
    ("init", "other", "--kind", "pairwise", "--guideline", "house"),
)
"""Every command that needs the guideline: each must refuse a broken one before it writes anything."""


def edit_spec(project: Path, old: str, new: str) -> None:
    spec = project / "sessions" / "s.toml"
    text = spec.read_text(encoding="utf-8")
    assert old in text, old
    spec.write_text(text.replace(old, new, 1), encoding="utf-8")


def house_guideline(text: bytes | str) -> Callable[[Path], None]:
    """Use guideline `house` (guidelines/house.md in the project) with this content."""

    def setup(project: Path) -> None:
        edit_spec(project, 'guideline = "pairwise-chat"', 'guideline = "house"')
        (project / "guidelines").mkdir(exist_ok=True)
        path = project / "guidelines" / "house.md"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())

    return setup


def _spec_latin1(project: Path) -> None:
    spec = project / "sessions" / "s.toml"
    spec.write_bytes(spec.read_bytes().replace(b"# annotate session spec", b"# caf\xe9 session spec"))


def _db_link_out(project: Path) -> None:
    outside = project.parent / f"{project.name}-outside"
    outside.mkdir()
    (outside / "elsewhere.db").write_bytes(b"")
    (project / "sessions" / "link.db").symlink_to(outside / "elsewhere.db")
    edit_spec(project, 'db = "s.db"', 'db = "link.db"')


def _spec_link_out(project: Path) -> None:
    outside = project.parent / f"{project.name}-outside"
    outside.mkdir()
    spec = project / "sessions" / "s.toml"
    (outside / "s.toml").write_bytes(spec.read_bytes())
    spec.unlink()
    spec.symlink_to(outside / "s.toml")


def _guideline_link_out(project: Path) -> None:
    outside = project.parent / f"{project.name}-outside"
    outside.mkdir()
    (outside / "house.md").write_text("---\nid: house\nversion: 1\n---\nread me\n")
    house_guideline("")(project)
    (project / "guidelines" / "house.md").unlink()
    (project / "guidelines" / "house.md").symlink_to(outside / "house.md")


def _guideline_missing(project: Path) -> None:
    edit_spec(project, 'guideline = "pairwise-chat"', 'guideline = "nowhere"')


@dataclass(frozen=True)
class SessionCase:
    name: str
    setup: Callable[[Path], None]
    """Breaks something in the project folder (a copy of the seeded one)."""
    names: str
    """The file the error must name (relative to the project)."""
    expected: tuple[str, ...]
    """Substrings of the error: the line or key, and what was expected."""
    commands: tuple[tuple[str, ...], ...] = SPEC_COMMANDS


SESSION_CASES = [
    SessionCase("spec: misspelt key", lambda p: edit_spec(p, "seed =", "seeed ="), "sessions/s.toml",
                ("[session.seeed]", "no such key", "did you mean 'seed'")),
    SessionCase("spec: misspelt section", lambda p: edit_spec(p, "[experiment]", "[experimnet]"), "sessions/s.toml",
                ("[experimnet]", "did you mean 'experiment'")),
    SessionCase("spec: wrong type", lambda p: edit_spec(p, "seed = 1", 'seed = "one"'), "sessions/s.toml",
                ("[session.seed]", "an integer", "'one'")),
    SessionCase("spec: unknown display mode", lambda p: edit_spec(p, 'modes = ["none"]', 'modes = ["sometimes"]'),
                "sessions/s.toml", ("[experiment.modes]", "on_request")),
    SessionCase("spec: broken TOML", lambda p: edit_spec(p, "[session]", "[session"), "sessions/s.toml",
                ("valid TOML", "line 2")),
    SessionCase("spec: duplicate key", lambda p: edit_spec(p, "seed = 1", "seed = 1\nseed = 2"), "sessions/s.toml",
                ("valid TOML", "line 7")),
    SessionCase("spec: not UTF-8", _spec_latin1, "sessions/s.toml", ("UTF-8", "line 1: byte 0xe9")),
    SessionCase("spec: db outside its folder", lambda p: edit_spec(p, 'db = "s.db"', 'db = "../s.db"'),
                "sessions/s.toml", ("[session.db]", "inside it")),
    SessionCase("spec: db a symbolic link out of its folder", _db_link_out, "sessions/s.toml",
                ("[session.db]", "symbolic link", "outside it")),
    SessionCase("spec: guideline given as a path",
                lambda p: edit_spec(p, 'guideline = "pairwise-chat"', 'guideline = "../../etc/passwd"'),
                "sessions/s.toml", ("[session.guideline]", "not a path")),
    SessionCase("spec: a symbolic link out of sessions/", _spec_link_out, "sessions/s.toml",
                ("symbolic link", "outside")),
    SessionCase("spec: deeply nested TOML", lambda p: edit_spec(p, "[experiment]", f"x = {nested(DEEP)}\n[experiment]"),
                "sessions/s.toml", ("valid TOML", "nested at most 100 levels deep", "line 13 is deeper")),
    SessionCase("spec: TOML nested just under the recursion limit",
                lambda p: edit_spec(p, "[experiment]", f"x = {nested(500)}\n[experiment]"),
                "sessions/s.toml", ("valid TOML", "nested at most 100 levels deep", "line 13 is deeper")),
    SessionCase("spec: deeply nested inline table",
                lambda p: edit_spec(p, "[experiment]", "x = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n[experiment]"),
                "sessions/s.toml", ("valid TOML", "nested at most 100 levels deep")),
    SessionCase("spec: session name with a trailing newline", lambda p: edit_spec(p, 'name = "s"', 'name = "s\\n"'),
                "sessions/s.toml", ("[session.name]", "letters, digits")),
    SessionCase("spec: guideline id with a trailing newline",
                lambda p: edit_spec(p, 'guideline = "pairwise-chat"', 'guideline = "pairwise-chat\\n"'),
                "sessions/s.toml", ("[session.guideline]",)),
    SessionCase("guideline: no front matter", house_guideline("# House rules\n\nPick the better one.\n"),
                "guidelines/house.md", ("line 1", "expected '---' opening the front matter"), GUIDELINE_COMMANDS),
    SessionCase("guideline: front matter never closed", house_guideline("---\nid: house\nversion: 1\n"),
                "guidelines/house.md", ("never closed",), GUIDELINE_COMMANDS),
    SessionCase("guideline: no version", house_guideline("---\nid: house\ntitle: House\n---\nbody\n"),
                "guidelines/house.md", ("missing 'version'",), GUIDELINE_COMMANDS),
    SessionCase("guideline: bad front matter line", house_guideline("---\nid: house\nversion 2\n---\nbody\n"),
                "guidelines/house.md", ("line 3", "'key: value'"), GUIDELINE_COMMANDS),
    SessionCase("guideline: id differs from its file", house_guideline("---\nid: other\nversion: 1\n---\nbody\n"),
                "guidelines/house.md", ("front matter id is 'other'", "expected 'house'"), GUIDELINE_COMMANDS),
    SessionCase("guideline: not UTF-8", house_guideline(b"---\nid: house\nversion: 1\n---\ncaf\xe9\n"),
                "guidelines/house.md", ("line 5: not UTF-8", "byte 0xe9"), GUIDELINE_COMMANDS),
    SessionCase("guideline: a symbolic link out of the project", _guideline_link_out, "guidelines/house.md",
                ("symbolic link", "outside"), GUIDELINE_COMMANDS),
    SessionCase("guideline: no such file", _guideline_missing, "nowhere.md", ("no file nowhere.md",),
                GUIDELINE_COMMANDS[:2]),
]


def session_files(project: Path) -> dict[str, str]:
    """SHA-256 of every file under sessions/ (the session file, its -wal and -shm, the specs). Not
    the writers' `-lock` file: it holds no data, only the count of turns asked for, which a refused
    write moves on too (annotate/store/writers.py)."""
    import hashlib

    return {
        str(path.relative_to(project)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted((project / "sessions").iterdir()) if path.is_file() and not path.name.endswith(".db-lock")
    }
