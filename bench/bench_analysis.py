"""Benchmark of the statistics core: vectorised bootstrap versus a plain loop, and Bradley-Terry at scale.

Run: ``.venv/bin/python bench/bench_analysis.py [--loop-resamples N] [--sections alpha,cli,bt,arena]``.
Prints wall-clock times (``time.perf_counter``; one run each unless marked "best of 3") and CPU times
(``time.process_time``) on this machine, the load average beside them, and the peak memory of the
process. The plain ``krippendorff.alpha`` loop runs all 1000 resamples by default, in the same run
as annotate's vectorised interval, so the speed-up is measured, not extrapolated;
``--loop-resamples 50`` shortens it for a quick run (the figure is then marked extrapolated).
The ``cli`` section runs ``annotate agreement`` end to end (a subprocess: wall clock, CPU and peak RSS; annotate's
``.pyc`` files compiled first, as an install has them, unless ``--cold``)
on a 10,000 units x 5 raters file, and in a fresh interpreter the CPU of its imports, of reading and
coding the file and of the statistic (with 1000 resamples, then without), and whether pandas or numpy.ma
got imported.
The shared data folder is ``../shared/data`` beside the checkout, or ``$ANNOTATE_SHARED_DATA``.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd

from annotate.analysis.agreement import agreement_table, krippendorff_alpha
from annotate.analysis.ranking import pair_counts, pair_counts_from_arrays, rank_models

SHARED = Path(os.environ.get("ANNOTATE_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
ARENA = SHARED / "arena_pair_counts_20240814.json"

N_UNITS, N_RATERS, N_BOOT = 10_000, 5, 1000
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


def cpu_timed(fn):
    """Result of ``fn()``, its wall-clock time and its CPU time (this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def bench_alpha(loop_resamples: int = N_BOOT) -> None:
    m = ratings()
    print(f"== Krippendorff's alpha (nominal), {N_UNITS:,} units x {N_RATERS} raters, 20 % missing ==")
    krippendorff_alpha(m, "nominal", n_boot=10, seed=0)  # warm-up (first allocations)
    est, t_vec = timed(lambda: krippendorff_alpha(m, "nominal", n_boot=N_BOOT, seed=0), repeat=3)
    _, _, c_vec = cpu_timed(lambda: krippendorff_alpha(m, "nominal", n_boot=N_BOOT, seed=0))
    print(
        f"annotate (vectorised), point + {N_BOOT} resamples : {t_vec:8.3f} s (best of 3; CPU {c_vec:.3f} s; {load()})"
        f"   alpha = {est.estimate:.4f} [{est.ci_low:.4f}, {est.ci_high:.4f}], n_units = {est.n_units:,}, "
        f"n_pairable = {est.n_pairable:,}"
    )
    pairable = m[(~np.isnan(m)).sum(axis=1) >= 2]
    rng = np.random.default_rng(0)

    def loop() -> list[float]:
        out = [krippendorff.alpha(pairable.T, level_of_measurement="nominal")]
        for _ in range(loop_resamples):
            sample = pairable[rng.integers(0, pairable.shape[0], pairable.shape[0])]
            out.append(krippendorff.alpha(sample.T, level_of_measurement="nominal"))
        return out

    _, t_loop, c_loop = cpu_timed(loop)
    full = loop_resamples == N_BOOT
    t_full, c_full = (t_loop, c_loop) if full else (t_loop * N_BOOT / loop_resamples, c_loop * N_BOOT / loop_resamples)
    print(
        f"plain loop of krippendorff.alpha, point + {loop_resamples} resamples: {t_loop:8.3f} s (CPU {c_loop:.3f} s;"
        f" {load()})" + ("" if full else f"; extrapolated to {N_BOOT}: {t_full:.3f} s (CPU {c_full:.3f} s)")
    )
    print(
        f"  -> speed-up{'' if full else ' (extrapolated)'}: x{t_full / t_vec:.0f} wall, x{c_full / c_vec:.0f} CPU"
        f" (goal >= x50, the full loop in the same run)"
    )
    _, t_table = timed(lambda: agreement_table(m, "nominal", [0, 1, 2, 3], list("abcde"), n_boot=N_BOOT, seed=0))
    print(
        f"full agreement_table (alpha, Fleiss, AC1, percent, 10 Cohen pairs), {N_BOOT} resamples each: {t_table:.3f} s"
    )
    print()


def write_ratings_file(folder: Path) -> Path:
    """The `ratings()` matrix as a long CSV (unit,rater,label; missing ratings left out)."""
    m = ratings()
    path = folder / "ratings-10000x5.csv"
    units, raters = np.nonzero(~np.isnan(m))
    lines = [f"u{u},r{r},{int(m[u, r])}" for u, r in zip(units.tolist(), raters.tolist(), strict=True)]
    path.write_text("unit,rater,label\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


LAUNCHER = """
import json, os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(proc.pid, 0)
print(json.dumps({"wall": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime,
                  "rss": usage.ru_maxrss / 1024, "code": os.waitstatus_to_exitcode(status),
                  "stderr": proc.stderr.read().decode()}))
"""
"""Runs a command and prints its wall clock, CPU and peak RSS. A fresh, small interpreter starts it: a
child's peak RSS counts the memory of the process it was forked from (before its exec), which for the
benchmark itself is its own (after the alpha section, over 100 MiB), not the command's."""


def run_command(args: list[str]) -> tuple[float, float, float]:
    """Wall clock (s), CPU (s, user + system) and peak RSS (MiB) of one command, run as a subprocess (of
    `LAUNCHER`)."""
    out = json.loads(subprocess.run([sys.executable, "-c", LAUNCHER, *args], capture_output=True, text=True,
                                    check=True).stdout)
    if out["code"] != 0:
        raise SystemExit(f"{' '.join(args)} failed: {out['stderr']}")
    return out["wall"], out["cpu"], out["rss"]


PHASES = """
import json, sys, time
from pathlib import Path

def cpu():
    return time.process_time()

path, only = Path(sys.argv[1]), sys.argv[2:] or None
start = cpu()
import annotate.cli, annotate.cli.analysis
from annotate.analysis.agreement.table import agreement_table
from annotate.analysis.ratings_io import coded_file
import annotate.report.file_reports, annotate.report.render_text
import numpy.random
imported = cpu()
read = coded_file(path)
coded = cpu()
options = {"coefficients": only} if only else {}
agreement_table(read.coded, "nominal", read.categories, list(read.raters), n_boot=1000, seed=0, **options)
computed = cpu()
agreement_table(read.coded, "nominal", read.categories, list(read.raters), n_boot=0, seed=0, **options)
point = cpu()
args = ["agreement", str(path), *(["--only", ",".join(only)] if only else []), "--json"]
sys.stdout = open("/dev/null", "w")
annotate.cli.main(args, standalone_mode=False)
sys.stdout = sys.__stdout__
print(json.dumps({"import": imported - start, "read": coded - imported, "statistic": computed - coded,
                  "point": point - computed, "pandas": "pandas" in sys.modules,
                  "numpy.ma": "numpy.ma" in sys.modules}))
"""
"""A fresh interpreter's CPU for each phase of `annotate agreement FILE`: the modules the command imports
(numpy.random too, which the bootstrap imports on its first draw), reading and coding the file
(`coded_file`), the statistic with 1000 resamples (`agreement_table`), then the statistic again without
resamples (its point estimates); then the command itself, after which it says whether pandas and
numpy.ma got imported."""


def agreement_phases(path: Path, only: list[str]) -> dict[str, float]:
    """`PHASES` run on `path` (with `--only` when `only` is given), in the file's folder, so that annotate is
    imported from this interpreter's install, as the command imports it (not from a checkout it runs in)."""
    proc = subprocess.run([sys.executable, "-c", PHASES, str(path), *only], capture_output=True, text=True,
                          check=True, cwd=path.parent)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def warm_install() -> int:
    """Compile the imported annotate's modules to `.pyc` (beside the source, in `__pycache__`), as an install
    has them, so that the commands read them instead of compiling the source (with PYTHONDONTWRITEBYTECODE
    set, as on the benchmark host, an editable checkout is compiled again by every command); the number of
    `.pyc` files found after."""
    import annotate

    package = Path(annotate.__file__).parent
    compileall.compile_dir(str(package), quiet=1)
    return sum(1 for _ in package.rglob("*.cpython-*.pyc"))


def bench_agreement_cli(runs: int = 5, cold: bool = False) -> None:
    """`annotate agreement FILE` end to end (whole command: wall clock, CPU, peak RSS) beside what it is made
    of in a fresh interpreter (the imports, reading and coding the file, the statistic) and whether it
    imported pandas; `runs` of each, the median printed. cold: leave annotate's `.pyc` files as they are."""
    annotate = str(Path(sys.executable).with_name("annotate"))
    install = "annotate's .pyc as they are (--cold)" if cold else f"warmed install ({warm_install()} .pyc files)"
    with tempfile.TemporaryDirectory(prefix="annotate-bench-") as folder:
        path = write_ratings_file(Path(folder))
        print(f"== annotate agreement on {path.name} ({path.stat().st_size / 1e6:.1f} MB, {N_UNITS:,} units x"
              f" {N_RATERS} raters, long CSV), {N_BOOT} resamples, median of {runs} runs; {install} ==")
        start = [run_command([annotate, "agreement", "--help"]) for _ in range(runs)]
        print(f"`annotate agreement --help` (interpreter and CLI start)  : {_median(start, 0):6.2f} s wall, CPU"
              f" {_median(start, 1):.2f} s, peak RSS {_median(start, 2):4.0f} MiB; {load()}")
        for label, only in (("--only alpha", ["alpha"]), ("(every coefficient)", [])):
            whole = [run_command([annotate, "agreement", str(path), *(["--only", *only] if only else [])])
                     for _ in range(runs)]
            phases = [agreement_phases(path, only) for _ in range(runs)]
            cpu = {key: float(np.median([p[key] for p in phases])) for key in ("import", "read", "statistic", "point")}
            loaded = [name for name in ("pandas", "numpy.ma") if any(p[name] for p in phases)]
            pandas = f"imported {', '.join(loaded)}" if loaded else "no pandas, no numpy.ma"
            print(f"`annotate agreement FILE {label}`{' ' * (22 - len(label))}: {_median(whole, 0):6.2f} s wall,"
                  f" CPU {_median(whole, 1):.2f} s, peak RSS {_median(whole, 2):4.0f} MiB; {load()}")
            print(f"    in a fresh interpreter, CPU: imports {cpu['import']:.3f} s, read and code the file"
                  f" {cpu['read']:.3f} s, the statistic {cpu['statistic']:.3f} s"
                  f" (read / statistic = {cpu['read'] / cpu['statistic']:.2f}; then without resamples"
                  f" {cpu['point']:.3f} s); {pandas}")
    print()


def _median(runs: list[tuple[float, float, float]], k: int) -> float:
    return float(np.median([run[k] for run in runs]))


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loop-resamples", type=int, default=N_BOOT,
                        help=f"Resamples of the plain krippendorff.alpha loop (default {N_BOOT}, the full loop; fewer"
                             " for a quick run, extrapolated).")
    parser.add_argument("--sections", default="alpha,cli,bt,arena", help="Which parts to run (comma-separated).")
    parser.add_argument("--cold", action="store_true",
                        help="cli: do not compile annotate's .pyc files first (every command then compiles the modules"
                             " it imports when PYTHONDONTWRITEBYTECODE is set).")
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    if "alpha" in sections:
        bench_alpha(args.loop_resamples)
    if "cli" in sections:
        bench_agreement_cli(cold=args.cold)
    if "bt" in sections:
        bench_bradley_terry()
    if "arena" in sections:
        bench_arena()
    print(f"peak memory of this process (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
          " (the cli section's commands: their own, above)")


if __name__ == "__main__":
    main()
