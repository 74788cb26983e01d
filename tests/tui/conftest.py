"""Fixtures for the app tests: a session in a temp folder with deterministic items."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from annotate.model import Item, Message, Response
from annotate.refs import REF_KEY_META
from annotate.session import create_session, open_store
from annotate.spec import SessionSpec
from annotate.store import Store

MODELS = ("zephyr-secret-7b", "orca-hidden-13b")
"""Model names that must never appear on screen."""


def pairwise_item(i: int, a: str | None = None, b: str | None = None) -> Item:
    return Item(
        id=f"item-{MODELS[0]}-{i:03d}",
        kind="pairwise",
        conversation=(Message("user", f"Question {i}: how do I reverse a list in Python?"),),
        responses=(
            Response("A", a or f"Answer A{i}: use `reversed(xs)` or `xs[::-1]`.", MODELS[0]),
            Response("B", b or f"Answer B{i}: call `xs.reverse()` to reverse in place.", MODELS[1]),
        ),
        category="secret-category-x",
        metadata={"model_a": MODELS[0], "model_b": MODELS[1]},
    )


def single_item(i: int) -> Item:
    return Item(
        id=f"single-{i:03d}", kind="single",
        conversation=(Message("user", f"Write a haiku about item {i}."),),
        responses=(Response("A", f"Autumn wind {i}\nleaves fall softly\nquiet code", MODELS[0]),),
    )


def make_session(tmp_path: Path, kind: str = "pairwise", items: list[Item] | None = None,
                 name: str = "t", design: str = "outcomes") -> tuple[SessionSpec, Store]:
    spec = create_session(name, kind, seed=11, folder=tmp_path / "sessions", design=design)
    store = open_store(spec)
    store.set_meta(REF_KEY_META, "0" * 32)  # fixed item references: snapshots stay the same
    if items is None:
        items = [pairwise_item(i) for i in range(6)] if kind == "pairwise" else [single_item(i) for i in range(4)]
    store.add_items(items)
    return spec, store


@pytest.fixture
def session(tmp_path: Path) -> Iterator[tuple[SessionSpec, Store]]:
    spec, store = make_session(tmp_path)
    yield spec, store
    store.close()


def screen_render(app: object) -> tuple[str, str]:
    """What the terminal would receive for the current screen: (plain text, raw bytes as str)."""
    import io

    from rich.console import Console

    width, height = app.size  # type: ignore[attr-defined]
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    update = app.screen._compositor.render_update(  # type: ignore[attr-defined]
        full=True, screen_stack=app._background_screens,  # type: ignore[attr-defined]
    )
    console.print(update)
    raw = console.file.getvalue()  # type: ignore[attr-defined]
    return console.export_text(styles=False), raw
