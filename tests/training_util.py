"""Sessions with a training round, for the training tests (core, store, app, report)."""

from __future__ import annotations

import json
from pathlib import Path

from annotate.model import Item, Message, Response
from annotate.spec import SessionSpec, load_spec
from annotate.training import TrainingItem

GOLDS = ("A", "B", "tie", "A")
EXPLANATION = "[bold]Slot A[/bold] is right: \x1b[31mred\x1b[0m facts."
"""Markup and an escape sequence: the screen must show them as text, never act on them."""


def training_item(i: int, gold: str) -> TrainingItem:
    item = Item(
        id=f"train-{i}", kind="pairwise", conversation=(Message("user", f"Training question {i}?"),),
        responses=(Response("A", f"Training answer A{i}", "m-a"), Response("B", f"Training answer B{i}", "m-b")),
        gold=gold,
    )
    return TrainingItem(item, f"Explanation {i}: {EXPLANATION}")


def training_lines(golds: tuple[str, ...] = GOLDS) -> list[str]:
    """The JSON Lines of a training file with one item per gold label."""
    return [json.dumps({"id": f"train-{i}", "prompt": f"Training question {i}?",
                        "responses": {"A": {"text": f"Training answer A{i}"}, "B": {"text": f"Training answer B{i}"}},
                        "gold": gold, "explanation": f"Explanation {i}: {EXPLANATION}"})
            for i, gold in enumerate(golds)]


def add_training_table(spec: SessionSpec, threshold: float = 0.75, retries: int = 0) -> SessionSpec:
    """The spec with a [training] table appended (written to its file), loaded again."""
    text = spec.path.read_text(encoding="utf-8")
    spec.path.write_text(text + f"\n[training]\npass_threshold = {threshold}\nretries = {retries}\n", encoding="utf-8")
    return load_spec(spec.path)


def write_training_file(folder: Path, golds: tuple[str, ...] = GOLDS) -> Path:
    path = folder / "training.jsonl"
    path.write_text("\n".join(training_lines(golds)) + "\n", encoding="utf-8")
    return path
