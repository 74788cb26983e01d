"""`annotate.collector.fewer_collections`: the import runs few passes of the cyclic collector, thresholds come back."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.cli import main
from annotate.collector import BULK_THRESHOLD, fewer_collections


def test_the_first_threshold_is_raised_for_the_block_and_restored_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), fewer_collections():
        assert gc.get_threshold() == (max(before[0], BULK_THRESHOLD), before[1], before[2])
        raise RuntimeError("inside")
    assert gc.get_threshold() == before


def _battle(k: int) -> dict:
    prompt = {"role": "user", "content": f"question {k}"}
    return {"question_id": f"q{k}", "model_a": "alpha-7b", "model_b": "beta-13b", "winner": "model_a",
            "judge": f"u{k % 40}", "conversation_a": [prompt, {"role": "assistant", "content": f"one {k}"}],
            "conversation_b": [prompt, {"role": "assistant", "content": f"two {k}"}]}


def test_an_import_of_many_battles_runs_few_young_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["init", "evals", "--kind", "pairwise"]).exit_code == 0
    data = tmp_path / "battles.jsonl"
    data.write_text("".join(json.dumps(_battle(k)) + "\n" for k in range(6000)), encoding="utf-8")
    passes: list[int] = []
    before = gc.get_threshold()

    def seen(phase: str, info: dict) -> None:
        if phase == "start":
            passes.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        result = runner.invoke(main, ["import", "evals", str(data), "--format", "arena"])
    finally:
        gc.callbacks.remove(seen)
    assert result.exit_code == 0, result.output
    assert "added 6000 items" in result.output
    # 6,000 battles: some 150 passes with the default first threshold (700), a handful (6) at BULK_THRESHOLD
    assert len(passes) < 40, len(passes)
    assert gc.get_threshold() == before
