"""The README's screenshot is made by the app (scripts/screenshot.py) and shows the screen as it is now."""

from __future__ import annotations

import html
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "images" / "pairwise.svg"


def screen_text(svg: str) -> str:
    """The characters on screen, row by row, without styling (what a changed screen changes)."""
    return "".join(html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)).replace("\xa0", " ")


def load_script():
    spec = importlib.util.spec_from_file_location("screenshot_script", ROOT / "scripts" / "screenshot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_screenshot_script_draws_the_demo_pairwise_screen(tmp_path: Path) -> None:
    script = load_script()
    output = tmp_path / "shot.svg"
    await script.screenshot(output)
    made = output.read_text(encoding="utf-8")
    text = screen_text(made)
    assert script.SIZE == (120, 36) and 'viewBox="0 0 1482 ' in made  # 120 columns
    assert "Item 1 of 46" in text and "Left" in text and "Right" in text
    assert "▶ 1  Left better ◀" in text and "Confidence ▶4/5◀" in text  # the keys the script presses
    assert screen_text(COMMITTED.read_text(encoding="utf-8")) == text, (
        "docs/images/pairwise.svg is not the screen as it is now: run .venv/bin/python scripts/screenshot.py"
    )
