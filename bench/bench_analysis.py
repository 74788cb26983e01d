"""Benchmark of the statistics core: vectorised bootstrap versus a plain loop, and Bradley-Terry at scale.

Run: ``.venv/bin/python bench/bench_analysis.py``.  Prints wall-clock times (``time.perf_counter``;
one run each unless marked "best of 3") on this machine, and the peak memory of the process.
The shared data folder is ``../shared/data`` beside the checkout, or ``$ANNOTATE_SHARED_DATA``.
"""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd

from annotate.analysis.agreement import agreement_table, krippendorff_alpha
from annotate.analysis.ranking import pair_counts, pair_counts_from_arrays, rank_models

SHARED = Path(os.environ.get("ANNOTATE_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
ARENA = SHARED / "arena_pair_counts_20240814.json"

N_UNITS, N_RATERS, N_BOOT, LOOP_SAMPLE = 10_000, 5, 1000, 50
N_MODELS, N_BATTLES = 50, 1_000_000


def ratings(seed: int = 0) -> np.ndarray:
    """10,000 units x 5 raters, 4 categories, raters copy a latent label w.p. 0.7, 20 % missing."""
    rng = np.random.default_rng(seed)
    latent = rng.integers(0, 4, size=(N_UNITS, 1))
    m = np.where(rng.random((N_UNITS, N_RATERS)) < 0.7, latent, rng.integers(0, 4, size=(N_UNITS, N_RATERS)))
    m = m.astype(float)
    m[rng.random(m.shape) < 0.2] = np.nan
    return m


def battles(seed: int = 0, votes_per_item: int = 1) -> pd.DataFrame:
    """1,000,000 battles among 50 models with normal log-strengths and 15 % ties; with
    ``votes_per_item`` > 1, that many votes share each item (same pair), as several raters of one item."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, N_MODELS)
    n_items = N_BATTLES // votes_per_item
    a = np.repeat(rng.integers(0, N_MODELS, n_items), votes_per_item)
    b = (a + np.repeat(rng.integers(1, N_MODELS, n_items), votes_per_item)) % N_MODELS
    p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
    winner = np.where(rng.random(a.size) < p, "model_a", "model_b")
    winner = np.where(rng.random(a.size) < 0.15, "tie", winner)
    names = np.array([f"model-{i:02d}" for i in range(N_MODELS)])
    item = np.repeat(np.arange(n_items), votes_per_item)
    return pd.DataFrame({"item": item, "model_a": names[a], "model_b": names[b], "winner": winner})


def timed(fn, repeat: int = 1):
    """Result of ``fn()`` and the best wall-clock time of ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def bench_alpha() -> None:
    m = ratings()
    print(f"== Krippendorff's alpha (nominal), {N_UNITS:,} units x {N_RATERS} raters, 20 % missing ==")
    krippendorff_alpha(m, "nominal", n_boot=10, seed=0)  # warm-up (first allocations)
    est, t_vec = timed(lambda: krippendorff_alpha(m, "nominal", n_boot=N_BOOT, seed=0), repeat=3)
    print(
        f"annotate (vectorised), point + {N_BOOT} resamples : {t_vec:8.3f} s (best of 3)   alpha = {est.estimate:.4f} "
        f"[{est.ci_low:.4f}, {est.ci_high:.4f}], n_units = {est.n_units:,}, n_pairable = {est.n_pairable:,}"
    )
    pairable = m[(~np.isnan(m)).sum(axis=1) >= 2]
    rng = np.random.default_rng(0)

    def loop() -> list[float]:
        out = []
        for _ in range(LOOP_SAMPLE):
            sample = pairable[rng.integers(0, pairable.shape[0], pairable.shape[0])]
            out.append(krippendorff.alpha(sample.T, level_of_measurement="nominal"))
        return out

    _, t_loop = timed(loop)
    per = t_loop / LOOP_SAMPLE
    print(
        f"plain loop of krippendorff.alpha, {LOOP_SAMPLE} resamples    : {t_loop:8.3f} s   ({per * 1000:.1f} ms each)"
    )
    print(
        f"  -> extrapolated to {N_BOOT} resamples (x{N_BOOT // LOOP_SAMPLE})      : {per * N_BOOT:8.3f} s   "
        f"(speed-up x{per * N_BOOT / t_vec:.0f})"
    )
    _, t_table = timed(lambda: agreement_table(m, "nominal", [0, 1, 2, 3], list("abcde"), n_boot=N_BOOT, seed=0))
    print(
        f"full agreement_table (alpha, Fleiss, AC1, percent, 10 Cohen pairs), {N_BOOT} resamples each: {t_table:.3f} s"
    )
    print()


def bench_bradley_terry() -> None:
    print(f"== Bradley-Terry, {N_BATTLES:,} simulated battles among {N_MODELS} models, {N_BOOT} bootstrap rounds ==")
    df, t_sim = timed(battles)
    counts, t_agg = timed(lambda: pair_counts(df))
    rows, t_fit = timed(lambda: rank_models(counts, n_boot=N_BOOT, seed=0))
    print(f"simulate battles            : {t_sim:8.3f} s")
    print(f"aggregate to pair counts    : {t_agg:8.3f} s   ({len(counts.pairs):,} pairs)")
    print(f"fit + {N_BOOT} bootstrap refits : {t_fit:8.3f} s")
    top = rows[0]
    print(
        f"top: {top.model} {top.rating:.1f} [{top.ci_low:.1f}, {top.ci_high:.1f}] rank {top.rank}, "
        f"n = {top.n_battles:,}"
    )
    print()
    clustered = battles(votes_per_item=3)
    n_items = clustered["item"].nunique()
    print(f"== the same scale with 3 votes per item ({n_items:,} items): intervals resample items ==")
    counts, t_agg = timed(lambda: pair_counts(clustered, item="item"))
    rows, t_fit = timed(lambda: rank_models(counts, n_boot=N_BOOT, seed=0))
    votes_only, _ = timed(lambda: rank_models(pair_counts(clustered), n_boot=N_BOOT, seed=0))
    print(f"aggregate to pair counts and item patterns: {t_agg:8.3f} s   ({counts.items.multiplicity.size:,} "
          f"patterns of {counts.items.n_items:,} items)")
    print(f"fit + {N_BOOT} item-bootstrap refits       : {t_fit:8.3f} s")
    top = rows[0]
    vote_top = next(r for r in votes_only if r.model == top.model)
    print(f"top: {top.model} {top.rating:.1f}, interval over items [{top.ci_low:.1f}, {top.ci_high:.1f}] "
          f"(width {top.ci_high - top.ci_low:.1f}) against over votes [{vote_top.ci_low:.1f}, "
          f"{vote_top.ci_high:.1f}] (width {vote_top.ci_high - vote_top.ci_low:.1f})")
    print()


def bench_arena() -> None:
    if not ARENA.exists():
        print(f"(skipping Chatbot Arena counts: {ARENA} not found)")
        return
    data = json.loads(ARENA.read_text())
    counts, t_load = timed(lambda: pair_counts_from_arrays(data["models"], data["X"], data["Y"]))
    print(
        f"== Chatbot Arena pair counts 2024-08-14: {len(counts.models)} models, {len(counts.pairs):,} pairs, "
        f"{counts.n_battles:,} battles =="
    )
    _, t_point = timed(lambda: rank_models(counts, n_boot=0))
    rows, t_fit = timed(lambda: rank_models(counts, n_boot=N_BOOT, seed=0))
    print(f"build counts: {t_load:.3f} s; point fit: {t_point:.3f} s; fit + {N_BOOT} bootstrap refits: {t_fit:.3f} s")
    print(f"{'rank':>4}  {'model':<34} {'rating':>7}  {'95 % CI':>17}  {'win rate':>8}  {'battles':>8}")
    for r in rows[:10]:
        print(
            f"{r.rank:>4}  {r.model:<34} {r.rating:7.1f}  [{r.ci_low:7.1f}, {r.ci_high:7.1f}]  "
            f"{r.win_rate:8.3f}  {r.n_battles:8,}"
        )
    print("(scale: mean rating 1000 over the 129 models; Arena's own board anchors differently)")


def main() -> None:
    bench_alpha()
    bench_bradley_terry()
    bench_arena()
    print(f"peak memory (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
