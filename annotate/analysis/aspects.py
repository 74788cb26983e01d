"""How often one question of a pair disagrees with another (an aspect with the overall verdict).

Votes: long, one row per (judgment, aspect) with columns ``judgment_id``, ``item``, ``aspect`` and
``preference`` (A / B / tie / both_bad, slot space; rows without one are dropped). For an aspect X
and the reference aspect R (normally ``overall``), every judgment that answered both counts once:
it *differs* when X's preference is not R's, and is *opposite* when one says A and the other B.
Shares are pooled over judgments; their 95 % intervals come from a percentile bootstrap over items
(all judgments of an item are drawn together), never over single votes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.bootstrap import estimates_from_features, safe_ratio
from annotate.analysis.estimate import Estimate

__all__ = ["AspectDisagreement", "disagreement_with"]


@dataclass(frozen=True)
class AspectDisagreement:
    """Aspect `aspect` against the reference aspect `reference` over the judgments that answered both.

    differs: share of those judgments whose preferences differ (n_units = items, n_pairable = judgments);
    opposite: share where one preferred A and the other B.
    """

    aspect: str
    reference: str
    differs: Estimate
    opposite: Estimate
    n_judgments: int
    n_items: int

    def to_json(self) -> dict[str, Any]:
        return {"aspect": self.aspect, "reference": self.reference, "differs": self.differs.to_json(),
                "opposite": self.opposite.to_json(), "n_judgments": self.n_judgments, "n_items": self.n_items}


def disagreement_with(
    votes: pd.DataFrame, aspect: str, reference: str, *, n_boot: int = 1000, seed: int | None = 0,
) -> AspectDisagreement:
    """How often `aspect` disagrees with `reference` (module docstring).

    >>> v = pd.DataFrame({"judgment_id": [1, 1, 2, 2], "item": ["x", "x", "y", "y"],
    ...                   "aspect": ["c", "o", "c", "o"], "preference": ["A", "A", "B", "A"]})
    >>> disagreement_with(v, "c", "o", n_boot=0).differs.estimate
    0.5
    """
    columns = ["judgment_id", "item", "aspect", "preference"] + (["rater"] if "rater" in votes.columns else [])
    v = votes.loc[votes["preference"].notna(), columns]
    mine = v.loc[v["aspect"] == aspect].drop_duplicates("judgment_id").set_index("judgment_id")
    ref = v.loc[v["aspect"] == reference].drop_duplicates("judgment_id").set_index("judgment_id")
    both = mine.join(ref[["preference"]].rename(columns={"preference": "ref"}), how="inner")
    differs = (both["preference"] != both["ref"]).to_numpy(np.float64)
    sides = both["preference"].isin(["A", "B"]) & both["ref"].isin(["A", "B"])
    opposite = (sides & (both["preference"] != both["ref"])).to_numpy(np.float64)
    items = both["item"].astype(str).to_numpy()
    codes, uniques = pd.factorize(items)
    features = np.zeros((len(uniques), 3))
    np.add.at(features, codes, np.column_stack([differs, opposite, np.ones(len(both))]))
    raters = int(both["rater"].nunique()) if "rater" in both.columns else 0
    est = estimates_from_features(
        features,
        {"differs": lambda s: safe_ratio(s[:, 0], s[:, 2]), "opposite": lambda s: safe_ratio(s[:, 1], s[:, 2])},
        n_boot=n_boot, seed=seed, n_units=len(uniques), n_raters=raters, n_pairable=len(both),
    )
    return AspectDisagreement(aspect, reference, est["differs"], est["opposite"], len(both), len(uniques))
