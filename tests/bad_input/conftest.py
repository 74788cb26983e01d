"""The seeded project every case of the corpus starts from (copied for each case)."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_util import DATA, session


@pytest.fixture(scope="package")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose session already holds items and votes, copied for each case."""
    folder = tmp_path_factory.mktemp("seed")
    spec = session(folder)
    from annotate.formats import import_items
    from annotate.session import open_store

    with open_store(spec) as store:
        import_items(store, spec.schema, DATA / "pairs_native.jsonl")
        import_items(store, spec.schema, DATA / "arena_battles.json", format="arena")
    return folder
