"""Labels of a ratings file made to fit the level of measurement (`annotate.analysis.ratings_io`):
text stays text, numbers become floats, ``--order`` fixes the categories; every refusal names the file,
the place and the value.  `prepared_label_values` works on the distinct labels and each rating's code
(no pandas), `prepared_labels` on an array of labels, `prepare_labels` on the DataFrame of `read_ratings`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from annotate.analysis.ratings_table import RatingsFileError, _objects

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PreparedRatings", "prepare_labels", "prepared_label_values", "prepared_labels"]


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


def prepared_label_values(
    texts: Sequence[str], codes: np.ndarray, level: str, order: Sequence[str] | None, where: Callable[[int], str],
    source: Path | str = "",
) -> tuple[list[Any], tuple[str, ...] | None]:
    """Labels given as codes into their distinct texts made to fit the level of measurement (see
    `prepare_labels`), each distinct label once.

    texts: the distinct labels; codes: int64, each rating's position in `texts`; where: the place of the
    rating at a position, for messages (a refusal names the first rating, in `codes` order, that is wrong).
    Returns each distinct label fitted (text, or a float), in the order of `texts`, and the category order
    to pass on.
    """
    prefix = f"{source}: " if str(source) else ""

    def refuse(wrong: Sequence[bool], why: str) -> RatingsFileError:
        i = int(np.flatnonzero(np.asarray(wrong, dtype=bool)[codes])[0])
        return RatingsFileError(f"{prefix}{where(i)}: label {texts[codes[i]]!r} {why}")

    if order is not None:
        order = tuple(o.strip() for o in order if o.strip())
        if level in ("interval", "ratio"):
            raise RatingsFileError(f"--order is for nominal or ordinal labels; at --level {level} labels are numbers")
        if len(set(order)) != len(order):
            raise RatingsFileError(f"--order lists a label twice: {', '.join(order)}")
        listed = set(order)
        if not listed.issuperset(texts):
            raise refuse([text not in listed for text in texts], f"is not in --order ({', '.join(order)})")
        return list(texts), order
    numbers = [_number(text) for text in texts]
    if all(number is not None for number in numbers):
        values: list[float] = numbers  # type: ignore[assignment]
    elif level == "nominal":
        return list(texts), None
    else:
        hint = (
            "; for ordered text labels give --order, e.g. --order low,mid,high"
            if level == "ordinal"
            else "; interval and ratio levels need numeric labels"
        )
        raise refuse([number is None for number in numbers], f"is not a number at --level {level}{hint}")
    if level == "ratio" and any(value < 0 for value in values):
        raise refuse([value < 0 for value in values], "is negative; the ratio level needs values >= 0")
    return values, None


def prepared_labels(
    labels: np.ndarray, level: str, order: Sequence[str] | None, where: Callable[[int], str], source: Path | str = ""
) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """Text labels made to fit the level of measurement (see `prepare_labels`), as arrays.

    labels: object array of text; where: the place of the label at a position, for messages.
    Returns the labels (an object array of text, or float64 numbers) and the category order to pass on.
    """
    texts = labels.tolist()
    if not all(type(label) is str for label in dict.fromkeys(texts)):  # a file's labels are text already
        texts = [str(label) for label in texts]
    distinct = dict.fromkeys(texts)
    position = dict(zip(distinct, range(len(distinct)), strict=True))
    codes = np.fromiter(map(position.__getitem__, texts), dtype=np.int64, count=len(texts))
    values, kept_order = prepared_label_values(tuple(distinct), codes, level, order, where, source)
    if kept_order is None and all(type(value) is float for value in values):
        return np.asarray(values, dtype=np.float64)[codes], kept_order
    return _objects(values)[codes], kept_order


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
