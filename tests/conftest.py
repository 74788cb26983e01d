"""Shared fixtures: sessions live in a temporary project folder, never in the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.model import Item, Message, Response
from annotate.session import create_session, open_store
from annotate.spec import SessionSpec
from annotate.store import Store


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh project folder as the current directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def pairwise_spec(project: Path) -> SessionSpec:
    return create_session("t", "pairwise", seed=7, folder=project / "sessions")


@pytest.fixture
def store(pairwise_spec: SessionSpec) -> Store:
    with open_store(pairwise_spec) as opened:
        yield opened


def make_item(item_id: str, a: str = "left text", b: str = "right text", **kwargs: object) -> Item:
    """A small pairwise item with models m-a and m-b."""
    return Item(
        id=item_id, kind="pairwise", conversation=(Message("user", f"prompt {item_id}"),),
        responses=(Response("A", a, "m-a"), Response("B", b, "m-b")), **kwargs,
    )
