"""Dawid-Skene side by side with a reference implementation (crowd-kit's DawidSkene) on the same data.

crowd-kit is not a dependency of annotate; install it only to run this comparison, e.g. in a
separate environment that can also import annotate::

    python3 -m venv /tmp/ck && /tmp/ck/bin/pip install crowd-kit
    PYTHONPATH=. /tmp/ck/bin/python bench/bench_dawid_skene.py

Without crowd-kit the script prints our estimates and timings only.  Data: the paper's Table 1
(Dawid & Skene 1979: 45 patients, 5 anaesthetists, the first three times; tests/data) and a
simulated set of 20,000 items, 30 annotators of mixed accuracy, 4 classes, 5 answers per item.
crowd-kit stops when its lower bound rises by less than ``tol``; it is run with ``tol=-inf`` for a
fixed number of rounds so both fits are taken to the same fixed point (the same soft-majority start,
the same EM updates), and the difference printed is the largest over priors, confusion matrices
and item posteriors.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from annotate.analysis.dawid_skene import dawid_skene

TABLE_1 = Path(__file__).resolve().parents[1] / "tests" / "data" / "dawid_skene_1979.txt"
ROUNDS = 500


def table_1() -> pd.DataFrame:
    rows = []
    for line in TABLE_1.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        patient, *answers = (int(v) for v in line.split())
        rows += [(patient, 1, a) for a in answers[:3]]
        rows += [(patient, j, a) for j, a in enumerate(answers[3:], start=2)]
    return pd.DataFrame(rows, columns=["unit", "rater", "label"])


def simulated(seed: int = 0, n_items: int = 20_000, n_raters: int = 30, per_item: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.choice(4, n_items, p=[0.4, 0.3, 0.2, 0.1])
    accuracy = rng.uniform(0.35, 0.95, n_raters)
    raters = np.argsort(rng.random((n_items, n_raters)), axis=1)[:, :per_item]
    unit = np.repeat(np.arange(n_items), per_item)
    rater = raters.ravel()
    right = rng.random(unit.size) < accuracy[rater]
    label = np.where(right, truth[unit], (truth[unit] + rng.integers(1, 4, unit.size)) % 4)
    return pd.DataFrame({"unit": unit, "rater": rater, "label": label})


def ours(data: pd.DataFrame) -> tuple[dict, float]:
    start = time.perf_counter()
    fit = dawid_skene(data, max_iter=ROUNDS, tol=0.0)
    seconds = time.perf_counter() - start
    classes = list(fit.classes)
    out = {
        "priors": pd.Series(fit.priors, index=classes),
        "posteriors": pd.DataFrame(fit.posteriors, index=list(fit.units), columns=classes),
        "confusion": {a.rater: pd.DataFrame(a.confusion, index=classes, columns=classes) for a in fit.annotators},
        "labels": pd.Series(fit.labels, index=list(fit.units)),
        "rounds": fit.n_iter,
    }
    return out, seconds


def reference(data: pd.DataFrame) -> tuple[dict, float] | None:
    try:
        from crowdkit.aggregation import DawidSkene
    except ImportError:
        return None
    frame = data.rename(columns={"unit": "task", "rater": "worker"})
    start = time.perf_counter()
    ds = DawidSkene(n_iter=ROUNDS, tol=-np.inf).fit(frame)
    seconds = time.perf_counter() - start
    classes = sorted(ds.priors_.index)
    errors = ds.errors_  # rows (worker, observed label), columns true label
    confusion = {w: errors.loc[w].reindex(index=classes, columns=classes).fillna(0.0).T for w in data["rater"].unique()}
    return {
        "priors": ds.priors_.reindex(classes),
        "posteriors": ds.probas_.reindex(columns=classes),
        "confusion": confusion,
        "labels": ds.labels_,
        "rounds": len(ds.loss_history_),
    }, seconds


def compare(name: str, data: pd.DataFrame, show: bool) -> None:
    print(f"== {name}: {data['unit'].nunique():,} items, {data['rater'].nunique()} annotators, "
          f"{len(data):,} answers ==")
    mine, t_mine = ours(data)
    print(f"annotate  : {t_mine:8.3f} s for {mine['rounds']} EM rounds; priors "
          + ", ".join(f"{c}: {p:.6f}" for c, p in mine["priors"].items()))
    ref = reference(data)
    if ref is None:
        print("crowd-kit : not installed (see the module docstring); no side-by-side comparison")
        return
    theirs, t_ref = ref
    print(f"crowd-kit : {t_ref:8.3f} s for {theirs['rounds']} EM rounds; priors "
          + ", ".join(f"{c}: {p:.6f}" for c, p in theirs["priors"].items()))
    d_prior = float((mine["priors"] - theirs["priors"].reindex(mine["priors"].index)).abs().max())
    posts = theirs["posteriors"].reindex(index=mine["posteriors"].index, columns=mine["posteriors"].columns)
    d_post = float((mine["posteriors"] - posts).abs().to_numpy().max())
    d_conf = max(float((m - theirs["confusion"][w].reindex(index=m.index, columns=m.columns)).abs().to_numpy().max())
                 for w, m in mine["confusion"].items())
    same = int((mine["labels"] == theirs["labels"].reindex(mine["labels"].index)).sum())
    print(f"max |difference|: priors {d_prior:.2e}, confusion matrices {d_conf:.2e}, item posteriors {d_post:.2e}; "
          f"same label on {same:,} of {len(mine['labels']):,} items")
    if show:
        for w, m in mine["confusion"].items():
            print(f"  annotator {w}: confusion (rows true class, columns answer), ours / crowd-kit")
            ref_m = theirs["confusion"][w].reindex(index=m.index, columns=m.columns)
            for c in m.index:
                print(f"    {c}: " + "  ".join(f"{a:.3f}/{b:.3f}" for a, b in zip(m.loc[c], ref_m.loc[c], strict=True)))


def main() -> None:
    compare("Dawid & Skene (1979) Table 1", table_1(), show=True)
    compare("simulated", simulated(), show=False)


if __name__ == "__main__":
    main()
