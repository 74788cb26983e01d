"""Benchmark of the style-controlled Bradley-Terry fit at Chatbot Arena scale, and of the feature counts.

Run: ``.venv/bin/python bench/bench_style_control.py [n_boot]`` (default 100 resamples).  Prints
wall-clock times (``time.perf_counter``, one run each) and the peak resident memory of the process.

Data: 1,000,000 simulated battles (each its own item, as in an Arena export) among 50 models with
normal log-strengths; each model has a typical answer length (log-normal across models, the weaker
half about twice as long) and voters favour the longer answer (3.0 per unit of the normalised length
difference), so the plain ranking is pushed towards verbose models and the controlled one should
recover the true order and the planted coefficient.  Header, list and bold counts are Poisson noise
without effect.  No ties are drawn: a tie drawn at random, whatever the strengths, would pull every
coefficient towards 0 and the planted value would not be the one to recover.  The
feature counts are timed separately on the 400 answers of the Vicuna-80 set (shared data folder),
repeated to 100,000 texts.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

from annotate.analysis.style import features_of_texts
from annotate.analysis.style_control import fit_style_control, style_design_from_arrays


def _shared_data() -> Path:
    """The shared data folder: ``$ANNOTATE_SHARED_DATA``, else the nearest ancestor's ``shared/data``
    (a checkout in /work/main or a worktree in /work/wt/NAME both find /work/shared/data)."""
    if os.environ.get("ANNOTATE_SHARED_DATA"):
        return Path(os.environ["ANNOTATE_SHARED_DATA"])
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return Path("shared") / "data"


VICUNA = _shared_data() / "vicuna80"
N_MODELS, N_BATTLES, GAMMA = 50, 1_000_000, 3.0


def simulate(seed: int = 0):
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(0, 1, N_MODELS))[::-1]
    verbose = np.exp(rng.normal(5.0, 0.3, N_MODELS) + np.where(np.arange(N_MODELS) >= N_MODELS // 2, 0.7, 0.0))
    a = rng.integers(0, N_MODELS, N_BATTLES)
    b = (a + rng.integers(1, N_MODELS, N_BATTLES)) % N_MODELS
    length_a, length_b = rng.lognormal(np.log(verbose[a]), 0.4), rng.lognormal(np.log(verbose[b]), 0.4)
    d = (length_a - length_b) / (length_a + length_b)
    p = 1 / (1 + np.exp(-(theta[a] - theta[b] + GAMMA * d)))
    outcome = np.where(rng.random(N_BATTLES) < p, 0, 1)
    votes = np.zeros((N_BATTLES, 3))
    votes[np.arange(N_BATTLES), outcome] = 1.0
    noise = [rng.poisson(lam, (N_BATTLES, 2)) for lam in (1.0, 4.0, 2.0)]
    counts_a = np.column_stack([length_a, *(n[:, 0] for n in noise)])
    counts_b = np.column_stack([length_b, *(n[:, 1] for n in noise)])
    names = [f"model-{i:02d}" for i in range(N_MODELS)]
    return names, a, b, counts_a, counts_b, votes


def spearman(order: list[str], truth: list[str]) -> float:
    rank = {m: i for i, m in enumerate(truth)}
    got = np.array([rank[m] for m in order], dtype=float)
    want = np.arange(len(order), dtype=float)
    return float(np.corrcoef(got, want)[0, 1])


def bench_features() -> None:
    files = sorted(VICUNA.glob("answer_*.jsonl")) if VICUNA.exists() else []
    if not files:
        print(f"(skipping feature counts: {VICUNA} not found)")
        return
    texts = [json.loads(line)["text"] for f in files for line in f.read_text().splitlines() if line.strip()]
    many = (texts * (100_000 // len(texts) + 1))[:100_000]
    start = time.perf_counter()
    counts = features_of_texts(many)
    seconds = time.perf_counter() - start
    print(f"== style features of {len(many):,} answers ({len(texts)} distinct, Vicuna-80) ==")
    print(f"count tokens, headers, list items, bold: {seconds:.3f} s ({seconds / len(many) * 1e6:.1f} us per answer); "
          f"mean tokens {counts[:, 0].mean():.0f}, answers with a list {np.mean(counts[:, 2] > 0):.0%}")
    print()


def main(n_boot: int) -> None:
    bench_features()
    print(f"== style-controlled Bradley-Terry, {N_BATTLES:,} battles among {N_MODELS} models, {n_boot} item "
          "resamples ==")
    t0 = time.perf_counter()
    names, a, b, counts_a, counts_b, votes = simulate()
    t1 = time.perf_counter()
    design = style_design_from_arrays(names, a, b, counts_a, counts_b, votes)
    t2 = time.perf_counter()
    point = fit_style_control(design, n_boot=0)
    t3 = time.perf_counter()
    result = fit_style_control(design, n_boot=n_boot, seed=0)
    t4 = time.perf_counter()
    print(f"simulate: {t1 - t0:.2f} s; design (normalised differences): {t2 - t1:.2f} s")
    print(f"point fits, plain and controlled: {t3 - t2:.2f} s")
    print(f"point fits + {n_boot} resamples of both: {t4 - t3:.2f} s "
          f"({(t4 - t3 - (t3 - t2)) / max(n_boot, 1):.2f} s per resample)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:,.0f} MiB")
    truth = names
    plain = [r.model for r in sorted(result.rows, key=lambda r: -r.plain_rating)]
    controlled = [r.model for r in result.rows]
    length = result.coefficients[0]
    print(f"length coefficient per unit of the normalised difference: {length.per_unit:.3f} "
          f"[{length.ci_low / length.scale:.3f}, {length.ci_high / length.scale:.3f}] (planted {GAMMA})")
    for c in result.coefficients[1:]:
        print(f"  {c.feature:<10} {c.estimate:+.4f} [{c.ci_low:+.4f}, {c.ci_high:+.4f}] per sd (planted 0)")
    print(f"Spearman correlation with the true order: plain {spearman(plain, truth):.3f}, "
          f"controlled {spearman(controlled, truth):.3f}; models whose rank changed: "
          f"{sum(r.rank_change != 0 for r in result.rows)} of {len(result.rows)}")
    assert point.rows[0].rating == result.rows[0].rating


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
