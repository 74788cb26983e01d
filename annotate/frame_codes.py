"""Integer codes of a frame's text column carried beside it, so that grouping by item or rater need not hash
every string again.

A report groups its votes by item and by rater at a dozen places, each with ``pd.factorize`` of the texts:
at a million votes each costs a tenth to a third of a second of hashing. The votes frame carries, for such a
column ``c``, a categorical column ``c#codes`` of the same values, its categories sorted (made once, from
the read where the read knows them, `annotate.store.frames.votes_frame`). `factorize` gives what
``pd.factorize`` of the texts gives, from the integer codes: equal codes, equal uniques of the same type.

The codes are a fast path only: a frame without them (a caller's own frame) is factorized as before, and
codes that do not match their texts row for row (the texts changed after the codes were made, a filter
that kept one column and not the other) are ignored. The check compares every row (an equality of the texts,
mostly of the same objects: about a quarter of what hashing them costs; with the integer factorize, about
half), so a mismatch can never change a result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    import numpy as np
    import pandas as pd

SUFFIX = "#codes"
"""A column's codes are the column of its name and this suffix (a name no export or section writes)."""


def code_column(column: str) -> str:
    """The name of `column`'s codes."""
    return f"{column}{SUFFIX}"


def code_columns(frame: pd.DataFrame, *columns: str) -> list[str]:
    """The code columns of `columns` that `frame` carries (to keep them when selecting `columns`)."""
    return [code_column(c) for c in columns if code_column(c) in frame.columns]


def with_codes(frame: pd.DataFrame, column: str, codes: np.ndarray, labels: Any) -> pd.DataFrame:
    """`frame` with `column`'s codes: `codes` (one per row, into `labels`) and `labels` (distinct, sorted
    texts). Raises ValueError when `labels` are not distinct and sorted or a code is out of range; codes that
    do not match the texts are not refused here, they are ignored where read (`factorize`)."""
    import numpy as np
    import pandas as pd

    categories = labels if isinstance(labels, pd.Index) else pd.Index(labels)  # an Index: kept, its checks cached
    if not (categories.is_unique and categories.is_monotonic_increasing):
        raise ValueError(f"the labels of {column}'s codes are not distinct and sorted")
    codes = np.asarray(codes)
    if codes.size and (codes.min() < 0 or codes.max() >= len(categories)):
        raise ValueError(f"a code of {column} is out of range")
    coded = pd.Categorical.from_codes(codes, categories=categories)
    return frame.assign(**{code_column(column): pd.Series(coded, index=frame.index)})


def with_codes_of(frame: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """`frame` with the codes of each of `columns` made from its texts (one ``pd.factorize`` each), where
    its values are all text (a column of other values gets none)."""
    import pandas as pd

    for column in columns:
        if pd.api.types.infer_dtype(frame[column], skipna=False) != "string":
            continue
        codes, labels = pd.factorize(frame[column], sort=True)
        frame = with_codes(frame, column, codes, labels)
    return frame


def with_vote_codes(votes: pd.DataFrame, ranks: tuple[np.ndarray, pd.Index] | None, at: Any) -> pd.DataFrame:
    """`votes` with the codes of item and rater: the items' from each vote's place `at` among the items and
    their `ranks` (`annotate.store.item_rows.item_ranks`), when known; otherwise, and for the raters, one
    ``pd.factorize`` of the texts (`with_codes_of`)."""
    if ranks is None:
        return with_codes_of(votes, "item", "rater")
    return with_codes_of(with_codes(votes, "item", ranks[0][at], ranks[1]), "rater")


def checked_codes(frame: pd.DataFrame, column: str) -> tuple[np.ndarray, pd.Index] | None:
    """`column`'s codes (one per row) and their sorted labels when `frame` carries them and they match its
    texts in every row; None otherwise (no codes, a missing value, codes of other texts)."""
    import numpy as np
    import pandas as pd

    name = code_column(column)
    if name not in frame.columns or column not in frame.columns:
        return None
    coded = frame[name]
    if not isinstance(coded.dtype, pd.CategoricalDtype) or isinstance(frame[column].dtype, pd.CategoricalDtype):
        return None  # (a categorical column factorizes to its own categories)
    codes = coded.cat.codes.to_numpy()
    labels = coded.cat.categories
    if not (labels.is_unique and labels.is_monotonic_increasing):
        return None
    if codes.size and codes.min() < 0:
        return None
    texts = frame[column].to_numpy(dtype=object)
    if not np.array_equal(texts, labels.to_numpy(dtype=object)[codes]):
        return None
    return codes, labels


def factorize(frame: pd.DataFrame, column: str, sort: bool = False,
              use_na_sentinel: bool = True) -> tuple[np.ndarray, pd.Index]:
    """``pd.factorize(frame[column], sort=sort, use_na_sentinel=use_na_sentinel)``: the same codes (int64)
    and uniques (an Index of the column's dtype), from the column's codes when `frame` carries matching ones
    (`checked_codes`), by hashing the texts otherwise."""
    import pandas as pd

    fast = factorized(frame, column, sort)
    if fast is None:
        return pd.factorize(frame[column], sort=sort, use_na_sentinel=use_na_sentinel)
    return fast


def factorized(frame: pd.DataFrame, column: str, sort: bool = False) -> tuple[np.ndarray, pd.Index] | None:
    """`factorize` from the column's codes alone: None when `frame` carries no codes of it that match
    (`checked_codes`), so a caller can keep its own way for other frames. With codes there is no missing
    value, so `use_na_sentinel` does not matter."""
    import pandas as pd

    checked = checked_codes(frame, column)
    if checked is None:
        return None
    codes, labels = checked
    # the labels are sorted, so the codes' order is the texts' order: factorizing the integers gives the
    # texts' codes, in first-appearance order or sorted
    out, distinct = factorized_codes(codes, len(labels), sort)
    uniques = pd.Index(labels.to_numpy(dtype=object)[distinct], dtype=frame[column].dtype, name=None)
    return out, uniques


def factorized_codes(codes: np.ndarray, n_labels: int, sort: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(codes, sort=sort)`` (int64) for codes in ``0 .. n_labels - 1``: each code's first row
    found by `np.minimum.at` instead of a hash table (0.02 s against 0.22 s for 1.67M distinct items)."""
    import numpy as np

    n = codes.size
    first = first_rows(codes, n_labels)
    distinct = np.flatnonzero(first < n)  # the codes there, ascending
    if not sort:  # in order of first appearance: the codes of the rows that are some code's first
        starts = np.zeros(n, dtype=bool)
        starts[first[distinct]] = True
        distinct = codes[starts].astype(np.int64, copy=False)
    remap = np.empty(n_labels, dtype=np.int64)
    remap[distinct] = np.arange(distinct.size, dtype=np.int64)
    return remap[codes], distinct


def first_rows(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """Each code's first row among `codes` (codes in ``0 .. n_codes - 1``; ``len(codes)`` for a code that no row
    has), by `np.minimum.at`: a hash table's work for none of its cost."""
    import numpy as np

    first = np.full(n_codes, codes.size, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(codes.size, dtype=np.int64))
    return first


def sorted_ranks(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Each of `texts` (distinct, objects)' place among them sorted, and the texts sorted: the codes and
    labels of a column whose rows are taken from `texts` (`with_codes`); None when one is not text."""
    import numpy as np

    if not all(type(t) is str for t in texts.tolist()):
        return None
    order = np.argsort(texts, kind="stable")
    ranks = np.empty(order.size, dtype=np.int64)
    ranks[order] = np.arange(order.size)
    return ranks, texts[order]


def nunique(frame: pd.DataFrame, column: str) -> int:
    """``frame[column].nunique()`` (distinct values, missing ones not counted): counted from the column's
    codes where `frame` carries matching ones (which have no missing value), by hashing the texts otherwise."""
    import numpy as np

    checked = checked_codes(frame, column)
    if checked is None:
        return int(frame[column].nunique())
    codes, labels = checked
    return int(np.count_nonzero(np.bincount(codes, minlength=len(labels))))


def mapped(series: pd.Series, mapping: dict[Any, Any]) -> pd.Series:
    """``series.map(mapping)``: the same values, dtype, index and name, each distinct value mapped once
    (a vote's label, a winner: a handful of texts over a million rows) where there are few of them."""
    import pandas as pd

    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    if len(uniques) * 2 > len(series):
        return series.map(mapping)
    out = series.iloc[first_rows(codes, len(uniques))].map(mapping).iloc[codes]
    out.index = series.index
    return out


def filled(series: pd.Series, value: str) -> pd.Series:
    """``series.fillna(value)``: the same values, dtype, index and name. pandas fills an object column through
    numpy, which makes a new copy of the text for every row it fills (97 MB of one word for the 1.67M Arena
    votes); here each filled row holds `value` itself."""
    import pandas as pd

    if series.dtype != object:
        return series.fillna(value)
    values = series.to_numpy(dtype=object, copy=True)
    values[pd.isna(values)] = value
    return pd.Series(values, index=series.index, name=series.name, dtype=object, copy=False)


def get_indexer(frame: pd.DataFrame, column: str, index: pd.Index) -> np.ndarray:
    """``index.get_indexer(frame[column])`` (each row's place in `index`, -1: not there): the labels looked
    up once each and taken by code where `frame` carries matching codes, every row looked up otherwise."""
    checked = checked_codes(frame, column)
    if checked is None:
        return index.get_indexer(frame[column])
    codes, labels = checked
    return index.get_indexer(labels)[codes]


def groups(frame: pd.DataFrame, column: str) -> Iterator[tuple[Any, pd.DataFrame]]:
    """``iter(frame.groupby(column, sort=True))``: each value of `column` (sorted) and its rows, in their
    order; grouped by the column's codes where `frame` carries matching ones."""
    fast = factorized(frame, column, sort=True)
    if fast is None:
        yield from frame.groupby(column, sort=True)
        return
    codes, names = fast
    for code, part in frame.groupby(codes, sort=True):
        yield names[int(code)], part
