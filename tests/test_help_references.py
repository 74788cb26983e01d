"""Help texts point only at documents that exist: README sections by name, never docs/*.md or DESIGN.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli import all_commands

from annotate.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
HEADINGS = {line.lstrip("#").strip().replace("`", "") for line in README.splitlines() if line.startswith("#")}


@pytest.mark.parametrize("path", [(), *all_commands(main)], ids=lambda p: " ".join(p) or "annotate")
def test_help_names_no_missing_document(path: tuple[str, ...]) -> None:
    out = CliRunner().invoke(main, [*path, "--help"], terminal_width=400).output
    assert "docs/" not in out and "DESIGN.md" not in out, out
    flat = " ".join(out.split())
    for section in re.findall(r"README, '([^']+)'", flat):
        assert any(section in heading for heading in HEADINGS), f"no README section {section!r}"


def test_no_user_visible_reference_to_a_missing_file() -> None:
    assert not (ROOT / "docs").exists() and not (ROOT / "DESIGN.md").exists()
    assert "DESIGN.md" not in README and "docs/" not in README
    for path in (ROOT / "annotate").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "docs/" not in text, path
