"""Malformed input files: each gives a clear error naming the file, the line (or record) and the
field, and leaves the session file byte-identical."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_util import cli, fingerprint, pair, session

from annotate.formats import MAX_TEXT_CHARS

from .file_cases import CASES, Case, lines, with_responses


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_refused_and_nothing_is_written(
    case: Case, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    from annotate.session import load_session

    spec = load_session("s")
    (tmp_path / case.file).write_bytes(case.content())
    before = fingerprint(spec)
    result = cli(*case.command, *(("s",) if case.session else ()), case.file, *case.args)
    assert result.exit_code == 1, result.output
    error = result.stderr.strip()
    assert error.startswith(f"Error: {case.file}"), error[:300]
    assert error.count("\n") == 0 and len(error) < 600, "one short line, never the whole field"
    for part in case.expected:
        assert part in error, f"{part!r} not in {error!r}"
    assert fingerprint(spec) == before


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 20


def test_bom_is_accepted(project: Path) -> None:
    session(project)
    (project / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + lines(pair("a")))
    (project / "bom.csv").write_bytes(b"\xef\xbb\xbfprompt,A,B\nHi,a,b\n")
    assert "added 1 item" in cli("import", "s", "bom.jsonl").stdout
    assert "added 1 item" in cli("import", "s", "bom.csv").stdout


def test_large_text_under_the_limit_is_accepted(project: Path) -> None:
    session(project)
    (project / "big.jsonl").write_bytes(lines(with_responses("a", "y" * (MAX_TEXT_CHARS - 1))))
    assert "added 1 item" in cli("import", "s", "big.jsonl").stdout


def test_an_empty_response_is_accepted_and_counted(project: Path) -> None:
    """Models do return nothing: an empty or blank response is data, imported, counted and listed."""
    session(project)
    (project / "empty.jsonl").write_bytes(lines(pair("a"), with_responses("b", "Ok", ""), with_responses("c", " \n")))
    (project / "empty.csv").write_bytes(b"q,r1,r2\nHi,a,\n")
    result = cli("import", "s", "empty.jsonl")
    assert result.exit_code == 0, result.output
    assert "added 3 items (0 unchanged; 2 empty responses) from empty.jsonl" in result.stdout
    assert "2 empty responses (a model that returned nothing)" in result.stderr and "b (B); c (A)" in result.stderr
    result = cli("import", "s", "empty.csv", "--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")
    assert "added 1 item (0 unchanged; 1 empty response)" in result.stdout


def test_blank_lines_are_ignored(project: Path) -> None:
    session(project)
    (project / "gaps.jsonl").write_bytes(b"\n" + lines(pair("a")) + b"\n  \n" + lines(pair("b")))
    assert "added 2 items" in cli("import", "s", "gaps.jsonl").stdout

