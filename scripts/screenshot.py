"""Regenerate docs/images/pairwise.svg: the demo's pairwise screen at 120x36, made by the app itself.

The demo session is built in a temporary folder (never the user's demo cache), opened for the
annotator `alice` with the guideline closed, and driven with Textual's Pilot: `1` (Left better)
and confidence 4, so the picture shows an answer being made. The sitting timer is frozen at 0 and
the item-reference key of this throwaway session is fixed, so running it again gives the same
picture unless the screen itself changed.

Usage: .venv/bin/python scripts/screenshot.py [OUTPUT.svg]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from annotate.demo import prepare_demo
from annotate.refs import REF_KEY_META
from annotate.session import open_store
from annotate.tui import make_app

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "docs" / "images" / "pairwise.svg"
SIZE = (120, 36)
KEYS = ("1", "c", "4")
REF_KEY = "0" * 32
"""The reference key of the throwaway demo session (a real session's is random), for a stable picture."""


async def screenshot(output: Path) -> None:
    """Write the SVG of the demo's first item for alice, answered Left better with confidence 4."""
    with tempfile.TemporaryDirectory() as folder:
        spec = prepare_demo(Path(folder))
        with open_store(spec) as store:
            store.set_meta(REF_KEY_META, REF_KEY)
            app = make_app(spec, store, "alice", open_guideline=False, sitting_clock=lambda: 0.0)
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                await pilot.press(*KEYS)
                await pilot.pause()
                output.parent.mkdir(parents=True, exist_ok=True)
                app.save_screenshot(filename=output.name, path=str(output.parent))


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUTPUT
    asyncio.run(screenshot(output.resolve()))
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
