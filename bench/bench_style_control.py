"""Benchmark of the style-controlled Bradley-Terry fit at Chatbot Arena scale, and of the feature counts.

Run: ``.venv/bin/python bench/bench_style_control.py [n_boot]`` (default 100 resamples).  Prints
wall-clock times (``time.perf_counter``, one run each) and the peak resident memory of the process.

Two more modes compare the two ways the intervals are made (`annotate.analysis.style_control_intervals`):

* ``--compare``: at 5k to 40k items (the auto threshold `SANDWICH_ABOVE` lies among them), the
  bootstrap's (1000 resamples) and the sandwich's CPU time and how far their interval widths are
  apart (controlled and plain ratings, coefficients), for the Arena shape (50 models, one vote per
  item) and the report's (12 models, five votes per item whose voters share an item effect, so the
  votes of an item are correlated and the clustering matters);
* ``--scale``: at 100k and 1M items (Arena shape), fit + intervals by either method, each in a process
  of its own: wall clock, CPU time and peak RSS of that process (the bootstrap at 1M with
  ``--scale-boot`` resamples, default 100, and its time per resample).

Every figure is printed with the load average (the host is shared: compare CPU seconds).

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

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from annotate.analysis.style import features_of_texts
from annotate.analysis.style_control import SANDWICH_ABOVE, fit_style_control, style_design_from_arrays


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


def simulate(seed: int = 0, n_items: int = N_BATTLES, n_models: int = N_MODELS, votes_per_item: int = 1,
             item_sd: float = 0.0):
    """Items among ``n_models``; each item's ``votes_per_item`` votes share an item effect ~ N(0, item_sd)
    on the log-odds (0: independent votes; one vote per item is an Arena export)."""
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.normal(0, 1, n_models))[::-1]
    verbose = np.exp(rng.normal(5.0, 0.3, n_models) + np.where(np.arange(n_models) >= n_models // 2, 0.7, 0.0))
    a = rng.integers(0, n_models, n_items)
    b = (a + rng.integers(1, n_models, n_items)) % n_models
    length_a, length_b = rng.lognormal(np.log(verbose[a]), 0.4), rng.lognormal(np.log(verbose[b]), 0.4)
    d = (length_a - length_b) / (length_a + length_b)
    shift = rng.normal(0.0, item_sd, n_items) if item_sd > 0 else 0.0
    p = 1 / (1 + np.exp(-(theta[a] - theta[b] + GAMMA * d + shift)))
    votes = np.zeros((n_items, 3))
    if votes_per_item == 1:  # as before the modes were added: the same battles for the same seed
        votes[np.arange(n_items), np.where(rng.random(n_items) < p, 0, 1)] = 1.0
    else:
        votes[:, 0] = rng.binomial(votes_per_item, p)
        votes[:, 1] = votes_per_item - votes[:, 0]
    noise = [rng.poisson(lam, (n_items, 2)) for lam in (1.0, 4.0, 2.0)]
    counts_a = np.column_stack([length_a, *(n[:, 0] for n in noise)])
    counts_b = np.column_stack([length_b, *(n[:, 1] for n in noise)])
    names = [f"model-{i:02d}" for i in range(n_models)]
    return names, a, b, counts_a, counts_b, votes


def _load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def _widths(result) -> dict[str, np.ndarray]:
    return {"controlled": np.array([r.ci[1] - r.ci[0] for r in result.rows]),
            "plain": np.array([r.plain_ci[1] - r.plain_ci[0] for r in result.rows]),
            "coefficients": np.array([c.ci_high - c.ci_low for c in result.coefficients if c.reason is None])}


def compare(sizes: list[int], n_boot: int) -> None:
    """Bootstrap against sandwich on the same designs: CPU time and the ratio of interval widths."""
    print(f"== bootstrap ({n_boot} resamples) against sandwich; auto threshold SANDWICH_ABOVE = "
          f"{SANDWICH_ABOVE:,} items ==")
    print("width ratio = sandwich / bootstrap, per model (ratings) or feature: median [min, max]")
    shapes = (("arena: 50 models, 1 vote/item", {"n_models": 50}),
              ("report: 12 models, 5 correlated votes/item", {"n_models": 12, "votes_per_item": 5, "item_sd": 1.0}))
    for label, shape in shapes:
        for n in sizes:
            names, a, b, counts_a, counts_b, votes = simulate(1, n, **shape)
            design = style_design_from_arrays(names, a, b, counts_a, counts_b, votes)
            t0 = time.thread_time()
            boot = fit_style_control(design, n_boot=n_boot, seed=0, intervals="bootstrap")
            t1 = time.thread_time()
            sand = fit_style_control(design, n_boot=n_boot, seed=0, intervals="sandwich")
            t2 = time.thread_time()
            wb, ws = _widths(boot), _widths(sand)
            ratios = "; ".join(f"{key} {np.median(ws[key] / wb[key]):.3f} [{np.min(ws[key] / wb[key]):.3f}, "
                               f"{np.max(ws[key] / wb[key]):.3f}]" for key in wb)
            print(f"{label}, {n:,} items: bootstrap CPU {t1 - t0:.2f} s, sandwich CPU {t2 - t1:.3f} s "
                  f"(both include the two point fits); {ratios}; {_load()}", flush=True)


def scale_one(n_items: int, method: str, n_boot: int, n_models: int = N_MODELS) -> None:
    """One fit in this process: prints a JSON line of its times and this process's peak RSS."""
    names, a, b, counts_a, counts_b, votes = simulate(0, n_items, n_models)
    design = style_design_from_arrays(names, a, b, counts_a, counts_b, votes)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    w0, c0 = time.perf_counter(), time.process_time()
    point = fit_style_control(design, n_boot=0)
    w1, c1 = time.perf_counter(), time.process_time()
    result = fit_style_control(design, n_boot=n_boot, seed=0, intervals=method)
    w2, c2 = time.perf_counter(), time.process_time()
    assert result.interval_method == method and point.rows[0].rating == result.rows[0].rating
    print(json.dumps({"wall": w2 - w1, "cpu": c2 - c1, "point_wall": w1 - w0, "point_cpu": c1 - c0,
                      "rss_before": before, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "width": float(np.mean(_widths(result)["controlled"]))}))


def scale(sizes: list[int], big_boot: int, n_models: int, methods: list[str]) -> None:
    print(f"== fit + intervals at scale (Arena shape, {n_models} models, one vote per item); each in a process of "
          "its own ==")
    for n in sizes:
        for method in methods:
            n_boot = 1000 if method == "sandwich" or n <= 100_000 else big_boot
            load = _load()
            out = subprocess.run([sys.executable, __file__, "--scale-one", str(n), method, str(n_boot), str(n_models)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            per = (f" ({(r['cpu'] - r['point_cpu']) / n_boot:.3f} s CPU per resample)" if method == "bootstrap"
                   else "")
            print(f"{n:,} items, {method}{f' ({n_boot} resamples)' if method == 'bootstrap' else ''}: "
                  f"fit + intervals {r['wall']:.2f} s wall, {r['cpu']:.2f} s CPU{per} (the point fits alone: "
                  f"{r['point_wall']:.2f} s wall, {r['point_cpu']:.2f} s CPU); peak RSS {r['peak']:,.0f} MiB "
                  f"(design built: {r['rss_before']:,.0f} MiB); mean controlled CI width {r['width']:.2f}; "
                  f"{load} before, {_load()} after", flush=True)


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
    result = fit_style_control(design, n_boot=n_boot, seed=0, intervals="bootstrap")  # auto: the sandwich at 1M
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


def _sizes(text: str) -> list[int]:
    return [int(float(s.lower().replace("k", "e3").replace("m", "e6"))) for s in text.split(",")]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n_boot", nargs="?", type=int, default=100, help="Resamples of the default run.")
    parser.add_argument("--compare", action="store_true", help="Bootstrap against sandwich near the threshold.")
    parser.add_argument("--compare-sizes", default="5k,10k,20k,40k")
    parser.add_argument("--scale", action="store_true", help="Both methods at 100k and 1M items.")
    parser.add_argument("--scale-sizes", default="100k,1m")
    parser.add_argument("--scale-boot", type=int, default=100, help="Bootstrap resamples above 100k items.")
    parser.add_argument("--scale-models", type=int, default=N_MODELS, help="Models in --scale (Arena: about 130).")
    parser.add_argument("--scale-methods", default="sandwich,bootstrap")
    parser.add_argument("--scale-one", nargs=4, metavar=("N", "METHOD", "N_BOOT", "MODELS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scale_one:
        scale_one(int(args.scale_one[0]), args.scale_one[1], int(args.scale_one[2]), int(args.scale_one[3]))
    elif args.compare or args.scale:
        if args.compare:
            compare(_sizes(args.compare_sizes), 1000)
        if args.scale:
            scale(_sizes(args.scale_sizes), args.scale_boot, args.scale_models, args.scale_methods.split(","))
    else:
        main(args.n_boot)
