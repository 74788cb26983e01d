"""Labels of a ratings file made to fit the level of measurement (`annotate.analysis.ratings_io`):
text stays text, numbers become floats, ``--order`` fixes the categories; every refusal names the file,
the place and the value.  `prepared_labels` works on arrays (no pandas), `prepare_labels` on the
DataFrame of `read_ratings`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from annotate.analysis.ratings_table import RatingsFileError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PreparedRatings", "prepare_labels", "prepared_labels"]


@dataclass(frozen=True)
class PreparedRatings:
    """Ratings ready for `annotate.analysis.agreement.ratings_matrix`.

    Attributes:
        ratings: columns unit, rater, label; labels are floats when numeric, else text.
        order: the category order to pass on (None: sorted distinct labels).
    """

    ratings: pd.DataFrame
    order: tuple[Any, ...] | None


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _first(texts: list[str], wrong: Callable[[str], bool]) -> int:
    """The position of the first text `wrong` holds for (one is known to)."""
    return next(i for i, text in enumerate(texts) if wrong(text))


def prepared_labels(
    labels: np.ndarray, level: str, order: Sequence[str] | None, where: Callable[[int], str], source: Path | str = ""
) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """Text labels made to fit the level of measurement (see `prepare_labels`), as arrays.

    labels: object array of text; where: the place of the label at a position, for messages.
    Returns the labels (an object array of text, or float64 numbers) and the category order to pass on.
    """
    prefix = f"{source}: " if str(source) else ""
    texts = labels.tolist()
    if not all(type(label) is str for label in dict.fromkeys(texts)):  # a file's labels are text already
        texts = [str(label) for label in texts]
    if order is not None:
        order = tuple(o.strip() for o in order if o.strip())
        if level in ("interval", "ratio"):
            raise RatingsFileError(f"--order is for nominal or ordinal labels; at --level {level} labels are numbers")
        if len(set(order)) != len(order):
            raise RatingsFileError(f"--order lists a label twice: {', '.join(order)}")
        listed = set(order)
        if not listed.issuperset(texts):
            i = _first(texts, lambda text: text not in listed)
            raise RatingsFileError(f"{prefix}{where(i)}: label {texts[i]!r} is not in --order ({', '.join(order)})")
        return _objects(texts), order
    numbers = {text: _number(text) for text in dict.fromkeys(texts)}  # a few labels, many ratings: parse each once
    if all(number is not None for number in numbers.values()):
        values = np.fromiter(map(numbers.__getitem__, texts), dtype=np.float64, count=len(texts))
    elif level == "nominal":
        return _objects(texts), None
    else:
        i = _first(texts, lambda text: numbers[text] is None)
        hint = (
            "; for ordered text labels give --order, e.g. --order low,mid,high"
            if level == "ordinal"
            else "; interval and ratio levels need numeric labels"
        )
        raise RatingsFileError(f"{prefix}{where(i)}: label {texts[i]!r} is not a number at --level {level}{hint}")
    if level == "ratio" and (values < 0).any():
        i = int(np.flatnonzero(values < 0)[0])
        raise RatingsFileError(
            f"{prefix}{where(i)}: label {texts[i]!r} is negative; the ratio level needs values >= 0"
        )
    return values, None


def _objects(texts: list[str]) -> np.ndarray:
    out = np.empty(len(texts), dtype=object)
    out[:] = texts
    return out


def prepare_labels(
    ratings: pd.DataFrame, level: str, order: Sequence[str] | None = None, source: Path | str = ""
) -> PreparedRatings:
    """Make text labels fit the level of measurement.

    * nominal: labels stay text, unless every label is a number (then ``1`` and ``1.0`` are one
      label); ``order`` only fixes the category list (it matters to Gwet's AC1 through q).
    * ordinal: with ``order`` (e.g. ``["low", "mid", "high"]``) the labels are categories in that
      order and each must be listed; without it every label must be a number.
    * interval, ratio: every label must be a number (``order`` is refused); ratio needs >= 0.

    ratings: as returned by `read_ratings` (a ``where`` column is used in messages if present).
    Raises RatingsFileError naming the file, the place and the value.
    """
    where = ratings["where"].tolist() if "where" in ratings.columns else None
    values, kept_order = prepared_labels(ratings["label"].to_numpy(object), level, order,
                                         lambda i: "" if where is None else where[i], source)
    return PreparedRatings(ratings[["unit", "rater"]].copy().assign(label=values), kept_order)
