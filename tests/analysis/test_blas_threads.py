"""Batched small solves run on one OpenBLAS thread (the same bits on every host) and solve what numpy solves."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotate.analysis import blas_threads
from annotate.analysis.ranking import rank_models


def _threads() -> int | None:
    control = blas_threads.thread_control()
    return None if control is None else control[0]()


def test_solve_equals_numpy_on_random_systems() -> None:
    rng = np.random.default_rng(3)
    for k in (3, 40, 129):
        a = rng.random((6, k, k))
        a = a @ a.transpose(0, 2, 1) + k * np.eye(k)
        b = rng.random((6, k, 1))
        x = blas_threads.solve(a, b)
        assert np.allclose(a @ x, b, rtol=1e-10, atol=1e-10)
        assert np.allclose(x, np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)


def test_the_thread_count_is_one_inside_and_restored_after() -> None:
    before = _threads()
    if before is None:
        pytest.skip("numpy's BLAS is not an OpenBLAS this module can find")
    with blas_threads.one_thread():
        assert _threads() == 1
    assert _threads() == before


def test_the_ranking_solves_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _threads()
    if before is None or before == 1:
        pytest.skip("needs an OpenBLAS on two threads or more to tell one thread apart")
    seen: list[int | None] = []
    original = np.linalg.solve

    def recording(a, b):  # type: ignore[no-untyped-def]
        seen.append(_threads())
        return original(a, b)

    monkeypatch.setattr(np.linalg, "solve", recording)
    rng = np.random.default_rng(0)
    models = [f"m{k}" for k in range(6)]
    pairs = rng.choice(len(models), size=(300, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    battles = pd.DataFrame({"model_a": [models[i] for i in pairs[:, 0]], "model_b": [models[j] for j in pairs[:, 1]],
                            "winner": rng.choice(["model_a", "model_b", "tie"], size=len(pairs))})
    rank_models(battles, n_boot=20, seed=1)
    assert seen and set(seen) == {1}
    assert _threads() == before
