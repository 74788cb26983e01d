"""The alternative annotator test on the paper's own data, against the paper's published figures.

Calderon, Reichart & Dror (2025) publish their annotations (human and LLM, ten datasets) with their
code, and the winning rate and average advantage probability of every LLM on every dataset in the
example notebook of that repository (run with the epsilons and scoring functions below, the
defaults q = 0.05, at least 2 humans per instance and 30 instances per human).  This script runs
`annotate.analysis.alt_test` on the same files and prints ours beside theirs.

The data are not part of annotate.  Get the ``data/`` folder of the paper's repository
(nitaytech/AltTest: ``data/<dataset>/human_annotations.json`` and ``llm_annotations.json``) and run::

    .venv/bin/python bench/bench_alt_test.py /path/to/AltTest/data
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pandas as pd

from annotate.analysis.alt_test import alt_test

SETTINGS = {  # dataset: (scoring, epsilon), as the paper's notebook runs them
    "wax": ("accuracy", 0.1), "lgbteen": ("accuracy", 0.2), "mtbench": ("accuracy", 0.2),
    "framing": ("accuracy", 0.15), "cebab_aspects": ("accuracy", 0.1), "summeval": ("neg_rmse", 0.2),
    "10k_prompts": ("neg_rmse", 0.15), "cebab_stars": ("neg_rmse", 0.1), "lesion": ("neg_rmse", 0.15),
}
PUBLISHED = {  # (dataset, llm): (winning rate, advantage probability), two decimals as printed
    ("wax", "gemini_flash"): (0.38, 0.69), ("wax", "gemini_pro"): (0.50, 0.74), ("wax", "gpt-4o"): (0.50, 0.73),
    ("wax", "llama-31"): (0.00, 0.57), ("wax", "gpt-4o-mini"): (0.00, 0.59), ("wax", "mistral-v03"): (0.00, 0.50),
    ("lgbteen", "gemini_flash"): (0.25, 0.71), ("lgbteen", "gemini_pro"): (0.00, 0.67),
    ("lgbteen", "gpt-4o"): (0.75, 0.77), ("lgbteen", "llama-31"): (0.00, 0.72),
    ("lgbteen", "gpt-4o-mini"): (0.75, 0.76), ("lgbteen", "mistral-v03"): (0.25, 0.75),
    ("mtbench", "gemini_flash"): (0.00, 0.72), ("mtbench", "gemini_pro"): (0.00, 0.76),
    ("mtbench", "gpt-4o"): (0.00, 0.77), ("mtbench", "llama-31"): (0.00, 0.69),
    ("mtbench", "gpt-4o-mini"): (0.00, 0.74), ("mtbench", "mistral-v03"): (0.00, 0.68),
    ("framing", "gemini_flash"): (1.00, 0.83), ("framing", "gemini_pro"): (1.00, 0.91),
    ("framing", "gpt-4o"): (1.00, 0.92), ("framing", "llama-31"): (0.50, 0.80),
    ("framing", "gpt-4o-mini"): (1.00, 0.87), ("framing", "mistral-v03"): (0.25, 0.80),
    ("cebab_aspects", "gemini_flash"): (0.70, 0.91), ("cebab_aspects", "gemini_pro"): (0.90, 0.94),
    ("cebab_aspects", "gpt-4o"): (0.90, 0.93), ("cebab_aspects", "llama-31"): (0.60, 0.89),
    ("cebab_aspects", "gpt-4o-mini"): (0.50, 0.90), ("cebab_aspects", "mistral-v03"): (0.10, 0.81),
    ("summeval", "gemini_flash"): (0.00, 0.46), ("summeval", "gemini_pro"): (0.00, 0.44),
    ("summeval", "gpt-4o"): (0.00, 0.48), ("summeval", "llama-31"): (0.00, 0.58),
    ("summeval", "gpt-4o-mini"): (0.00, 0.54), ("summeval", "mistral-v03"): (0.00, 0.62),
    ("10k_prompts", "gemini_flash"): (0.31, 0.67), ("10k_prompts", "gemini_pro"): (0.08, 0.63),
    ("10k_prompts", "gpt-4o"): (0.69, 0.76), ("10k_prompts", "llama-31"): (0.15, 0.67),
    ("10k_prompts", "gpt-4o-mini"): (0.92, 0.80), ("10k_prompts", "mistral-v03"): (0.15, 0.67),
    ("cebab_stars", "gemini_flash"): (0.60, 0.82), ("cebab_stars", "gemini_pro"): (0.80, 0.87),
    ("cebab_stars", "gpt-4o"): (0.90, 0.90), ("cebab_stars", "llama-31"): (0.60, 0.85),
    ("cebab_stars", "gpt-4o-mini"): (0.90, 0.89), ("cebab_stars", "mistral-v03"): (0.50, 0.83),
    ("lesion", "gemini_flash"): (0.17, 0.71), ("lesion", "gemini_pro"): (1.00, 0.81),
    ("lesion", "gpt-4o"): (0.00, 0.62), ("lesion", "gpt-4o-mini"): (0.67, 0.73),
}


def main(folder: Path) -> int:
    matched = total = 0
    start = time.perf_counter()
    for dataset, (scoring, epsilon) in SETTINGS.items():
        humans_raw = json.loads((folder / dataset / "human_annotations.json").read_text())
        judges = json.loads((folder / dataset / "llm_annotations.json").read_text())
        humans = pd.DataFrame([(unit, rater, label) for rater, answers in humans_raw.items()
                               for unit, label in answers.items()], columns=["unit", "rater", "label"])
        print(f"== {dataset}: {humans['rater'].nunique()} annotators, {humans['unit'].nunique()} items, "
              f"scoring {scoring}, epsilon {epsilon} ==")
        for name, answers in judges.items():
            judge = pd.DataFrame(list(answers.items()), columns=["unit", "label"])
            result = alt_test(humans, judge, epsilon=epsilon, scoring=scoring)
            published = PUBLISHED.get((dataset, name))
            ours = (round(result.winning_rate, 2), round(result.advantage, 2))
            same = published is not None and abs(ours[0] - published[0]) < 0.006 and abs(ours[1] - published[1]) < 0.006
            total += published is not None
            matched += same
            verdict = "PASSED" if result.passed else "FAILED"
            print(f"  {name:13s} {verdict}  omega = {result.winning_rate:.2f}  rho = {result.advantage:.2f}   "
                  f"published: " + (f"omega = {published[0]:.2f}  rho = {published[1]:.2f}  "
                                    f"{'same' if same else 'DIFFERENT'}" if published else "none"))
    print(f"\n{matched} of {total} (dataset, LLM) pairs give the published winning rate and advantage probability "
          f"(two decimals); {time.perf_counter() - start:.1f} s in all")
    return 0 if matched == total else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
