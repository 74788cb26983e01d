"""What help texts, messages and the README point at exists: README sections and docs/ pages by name.

A reference is `README, 'Heading'` or `docs/PAGE.md, 'Heading'` (either quote); the heading need only
contain the quoted text, backticks ignored. README links into docs/ (`[text](docs/PAGE.md#anchor)`)
must name a page that exists and, with an anchor, one of its headings (anchors made as MkDocs makes
them). DESIGN.md is not part of the project: help texts and the README never name it. Links between the docs pages
themselves are checked by `mkdocs build --strict` in .ci/run.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli import all_commands

from annotate.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")
REFERENCE = re.compile(r"""(README|docs/[\w./-]+\.md)(?:\.md)?,\s+['"]([^'"]+)['"]""")
DOCS_MENTION = re.compile(r"docs/[\w./-]+\.md")
README_LINK = re.compile(r"\]\((docs/[^)#\s]*)(?:#([^)\s]+))?\)")


def headings(markdown: str) -> list[str]:
    """The text of every heading outside fenced code blocks, backticks removed."""
    found, fenced = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            found.append(line.lstrip("#").strip().replace("`", ""))
    return found


def anchor(heading: str) -> str:
    """The id MkDocs (Python-Markdown's toc) gives a heading: ASCII, lower case, words joined by '-'."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def page_headings(document: str) -> list[str]:
    if document == "README":
        return headings(README)
    page = ROOT / document
    assert page.is_file(), f"{document} does not exist"
    return headings(page.read_text(encoding="utf-8"))


def check_references(text: str, where: str) -> int:
    """Assert that every README or docs/ reference in `text` exists; return how many were checked."""
    flat = " ".join(text.split())
    for document in DOCS_MENTION.findall(flat):
        assert (ROOT / document).is_file(), f"{where}: {document} does not exist"
    references = REFERENCE.findall(flat)
    for document, section in references:
        assert re.search(r"[A-Za-z]{3}", section), f"{where}: {document}, {section!r}: a reference split in two?"
        assert any(section in h for h in page_headings(document)), f"{where}: no section {section!r} in {document}"
    return len(references)


def test_anchor_is_made_as_mkdocs_makes_it() -> None:
    assert anchor("Offline annotators: annotate merge") == "offline-annotators-annotate-merge"
    assert anchor("The native format (JSON Lines)") == "the-native-format-json-lines"
    assert anchor("annotate report SESSION: the lead's report") == "annotate-report-session-the-leads-report"


@pytest.mark.parametrize("path", [(), *all_commands(main)], ids=lambda p: " ".join(p) or "annotate")
def test_help_names_no_missing_document(path: tuple[str, ...]) -> None:
    out = CliRunner().invoke(main, [*path, "--help"], terminal_width=400).output
    assert "DESIGN.md" not in out, out
    check_references(out, "annotate " + " ".join(path) + " --help")


def test_sources_name_no_missing_document() -> None:
    """Messages and docstrings in the package: every docs/ page and section they name exists."""
    checked = sum(check_references(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
                  for path in sorted((ROOT / "annotate").rglob("*.py")))
    assert checked >= 10  # the references are found at all (help, restore hints, module docstrings)


def test_a_reference_to_a_missing_page_or_section_fails() -> None:
    with pytest.raises(AssertionError, match="does not exist"):
        check_references("see docs/nowhere.md, 'Anything'", "example")
    with pytest.raises(AssertionError, match="no section"):
        check_references("see docs/merging.md, 'No such heading'", "example")
    with pytest.raises(AssertionError, match="no section"):
        check_references("see README, 'Planning: annotate plan'", "example")  # moved to docs/planning.md


def test_readme_links_into_docs_exist() -> None:
    links = README_LINK.findall(README)
    assert {"docs/index.md", "docs/getting-started.md", "docs/images/pairwise.svg"} <= {p for p, _ in links}
    for target, fragment in links:
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"
        if fragment:
            anchors = {anchor(h) for h in page_headings(target)}
            assert fragment in anchors, f"README links to {target}#{fragment}; its anchors: {sorted(anchors)}"
    assert "DESIGN.md" not in README and not (ROOT / "DESIGN.md").exists()


def test_every_docs_page_is_in_the_site_navigation() -> None:
    """mkdocs.yml lists every page; --strict in .ci/run fails on a link to a page left out."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages and all(re.search(rf":\s+{re.escape(page)}\s*$", nav, re.M) for page in pages), pages


REPO_PATH = re.compile(r"`((?:annotate|tests|bench|scripts|examples|guidelines|docs)/[\w./-]+)`")


def test_repository_paths_named_in_the_docs_exist() -> None:
    """A file of the project named in the README or a docs page (`tests/test_plan.py`) is there; names
    with a placeholder in capitals (`guidelines/ID.md`) are patterns, not files."""
    named = 0
    for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for path in REPO_PATH.findall(page.read_text(encoding="utf-8")):
            if re.search(r"\b[A-Z]{2,}\b", path):
                continue
            named += 1
            assert (ROOT / path.rstrip("/")).exists(), f"{page.relative_to(ROOT)} names {path}, which does not exist"
    assert named >= 10
