"""Runs scripts/tmux_demo_check.sh: the demo in a real terminal (tmux), three items judged by keys."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "tmux_demo_check.sh"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_demo_in_tmux() -> None:
    annotate = Path(sys.executable).with_name("annotate")
    env = {"PYTHON": sys.executable}
    if annotate.exists():
        env["ANNOTATE"] = str(annotate)
    result = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=120,
                            env={**os.environ, **env})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok: 3 judgments" in result.stdout


KIND_SCRIPT = SCRIPT.with_name("tmux_demo_kind_check.sh")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize(("kind", "keys", "size"), [
    ("graded", "2", ("100", "30")), ("aspects", "1132", ("80", "24")), ("single", "7", ("100", "30")),
    ("rubric", "33333", ("100", "30")),
    ("ranking", "3=142", ("80", "24", "Enter submits")), ("ranking", "2413", ("120", "40", "Enter submits")),
])
def test_each_demo_kind_opens_and_stores_an_answer(kind: str, keys: str, size: tuple[str, ...]) -> None:
    annotate = Path(sys.executable).with_name("annotate")
    env = {"PYTHON": sys.executable}
    if annotate.exists():
        env["ANNOTATE"] = str(annotate)
    result = subprocess.run(["bash", str(KIND_SCRIPT), kind, keys, *size], capture_output=True, text=True,
                            timeout=120, env={**os.environ, **env})
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"ok: {kind}: 1 judgment" in result.stdout


LAST_MESSAGE_SCRIPT = SCRIPT.with_name("tmux_last_message_check.sh")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("size", [("80", "24"), ("120", "40")])
def test_the_question_answered_is_in_view_in_a_real_terminal(size: tuple[str, str]) -> None:
    annotate = Path(sys.executable).with_name("annotate")
    env = {"PYTHON": sys.executable}
    if annotate.exists():
        env["ANNOTATE"] = str(annotate)
    result = subprocess.run(["bash", str(LAST_MESSAGE_SCRIPT), *size], capture_output=True, text=True,
                            timeout=120, env={**os.environ, **env})
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"ok: {size[0]}x{size[1]}: the question in view on 3 items" in result.stdout


SPANS_SCRIPT = SCRIPT.with_name("tmux_demo_spans_check.sh")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_spans_demo_marks_an_error_with_the_keyboard() -> None:
    annotate = Path(sys.executable).with_name("annotate")
    env = {"PYTHON": sys.executable}
    if annotate.exists():
        env["ANNOTATE"] = str(annotate)
    result = subprocess.run(["bash", str(SPANS_SCRIPT)], capture_output=True, text=True, timeout=120,
                            env={**os.environ, **env})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok: spans: 1 judgment" in result.stdout
