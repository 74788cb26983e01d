"""Agreement on rankings in a ratings file (`annotate agreement FILE --level ranking`): each label is a
ranking of the unit's responses, best first, `>` between places and `=` joining a tie (`b>a=c>d`); the
names are whatever the file uses (letters, model names), the same set in every ranking of a unit.

Read with `annotate.analysis.ratings_io.read_ratings` (long or wide), turned into mid-ranks, and
measured with `annotate.analysis.rankings`: Kendall's W per unit (tie-corrected) and its mean over
units, and Krippendorff's alpha at the ordinal level on the ranks, both with a bootstrap over units.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotate.analysis.ratings_io import RatingsFileError, read_ratings
from annotate.design.ranking import split_ranking

if TYPE_CHECKING:
    import pandas as pd

    from annotate.analysis.estimate import Estimate
    from annotate.analysis.rankings import KendallW


def mid_ranks(groups: list[list[str]]) -> dict[str, float]:
    """Places (each a group of tied names) -> name: mid-rank (a tie of places 2 and 3 is 2.5 each)."""
    out: dict[str, float] = {}
    done = 0
    for group in groups:
        out.update({name: done + (len(group) + 1) / 2 for name in group})
        done += len(group)
    return out


def read_rankings(path: Path | str, layout: str = "long", raters_as_rows: bool = False,
                  columns: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per (unit, rater, name): columns item, rater, slot (the name ranked), rank (mid-rank).

    A label that is not a ranking (a name twice, an empty place, fewer than two names) or that ranks
    other names than the unit's first ranking is an error naming the file, line and column.
    """
    import pandas as pd

    ratings = read_ratings(path, layout, raters_as_rows, columns)
    names_of: dict[str, tuple[frozenset[str], str]] = {}
    rows = []
    for unit, rater, label, where in ratings[["unit", "rater", "label", "where"]].itertuples(index=False):
        groups = split_ranking(label)
        flat = [n for g in groups for n in g]
        if len(flat) < 2 or any(not n for n in flat) or len(set(flat)) != len(flat):
            raise RatingsFileError(f"{path}: {where}: {label!r} is not a ranking: expected two or more names, best "
                                   "first, places separated by > and ties joined by =, each name once (b>a=c>d)")
        names = frozenset(flat)
        first = names_of.setdefault(str(unit), (names, where))
        if first[0] != names:
            raise RatingsFileError(f"{path}: {where}: this ranking of unit {unit!r} ranks {', '.join(sorted(names))}; "
                                   f"the one at {first[1]} ranks {', '.join(sorted(first[0]))}: every ranking of a "
                                   "unit ranks the same responses")
        rows += [(str(unit), str(rater), name, rank) for name, rank in mid_ranks(groups).items()]
    return pd.DataFrame(rows, columns=["item", "rater", "slot", "rank"])


@dataclass(frozen=True)
class FileRankingAgreement:
    """Agreement on the rankings of a file: Kendall's W over units and alpha on the ranks."""

    kendall_w: KendallW
    alpha: Estimate
    n_rankings: int
    n_units: int
    raters: tuple[str, ...]
    k: tuple[int, int]
    """The fewest and most names a unit's rankings rank."""
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"level": "ranking", "kendall_w": self.kendall_w.to_json(), "alpha_ordinal": self.alpha.to_json(),
                "n_rankings": self.n_rankings, "n_units": self.n_units, "n_raters": len(self.raters),
                "k": {"min": self.k[0], "max": self.k[1]}}


def ranking_agreement_from_file(
    path: Path | str, layout: str = "long", raters_as_rows: bool = False, n_boot: int = 1000, seed: int | None = 0,
    columns: dict[str, str] | None = None,
) -> FileRankingAgreement:
    """Read a file of rankings (`read_rankings`) and measure agreement on them (module docstring)."""
    from annotate.analysis.bootstrap import MIN_UNITS_FOR_INTERVAL
    from annotate.analysis.rankings import kendall_w, rank_alpha
    from annotate.text import plural

    ranks = read_rankings(path, layout, raters_as_rows, columns)
    raters = tuple(sorted(ranks["rater"].unique()))
    if len(raters) < 2:
        raise RatingsFileError(f"{path}: only one rater ({raters[0]!r}); agreement needs at least two")
    w = kendall_w(ranks, n_boot=n_boot, seed=seed)
    alpha = rank_alpha(ranks, n_boot=n_boot, seed=seed)
    sizes = ranks.groupby("item")["slot"].nunique()
    warnings = []
    if w.mean.n_units < MIN_UNITS_FOR_INTERVAL:
        warnings.append(f"{path}: only {plural(w.mean.n_units, 'unit')} ranked by two or more raters: too few to "
                        "resample, so no interval is given (null)")
    return FileRankingAgreement(w, alpha, int(ranks.groupby(["item", "rater"]).ngroups), int(ranks["item"].nunique()),
                                raters, (int(sizes.min()), int(sizes.max())), tuple(warnings))
