"""The columnar ratings reader: its fast path (plain delimited files, pandas' C reader) gives exactly
the table of the exact path (the csv module, strict), or leaves the file to it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from annotate.analysis.ratings_io import RatingsFileError, read_ratings
from annotate.analysis.ratings_table import Table, _delimited_exact, _delimited_fast

PLAIN = [
    "unit,rater,label\nu1,a,1\nu1,b,2\nu2,a,NA\n",
    "unit,rater,label\r\nu1,a,1\r\nu1,b, 2 \r\n",
    "unit,rater,label\n\nu1,a,1\n  \n,,\nu2,b,yes\n",  # blank and whitespace-only lines are skipped
    "unit,rater,label\nu1,a\nu2,b,\nu3,c,.\n",  # short rows: the missing cells are missing ratings
    "unit,rater,label\nu1,a,1",  # no line break at the end
    "unit,rater,label\nNA,a,1\n",  # a row of an empty unit id: kept, refused later
    "unit\trater\tlabel\nu1\ta\t1\n",
]
NOT_PLAIN = [
    'unit,rater,label\n"u1",a,1\n',  # quotes: the csv module reads them
    "unit,rater,label\nu1,a,1,,\n",  # wider than the header (empty extra cells are allowed)
    "unit,rater,label\nu1,a,1\ru2,b,2\n",  # a lone carriage return
    "\nunit,rater,label\nu1,a,1\n",  # a blank line before the header
]


def _same(fast: Table, exact: Table) -> None:
    assert fast.header == exact.header
    assert fast.places(range(fast.n_rows)) == exact.places(range(exact.n_rows))
    assert [c.cells().tolist() for c in fast.columns] == [c.cells().tolist() for c in exact.columns]


@pytest.mark.parametrize("text", PLAIN)
def test_the_fast_reader_gives_the_exact_readers_table(text: str) -> None:
    delimiter = "\t" if "\t" in text else ","
    fast = _delimited_fast(text, delimiter)
    assert fast is not None
    _same(fast, _delimited_exact(Path("r.csv"), text, delimiter))


@pytest.mark.parametrize("text", NOT_PLAIN)
def test_files_that_are_not_plain_go_to_the_exact_reader(text: str) -> None:
    assert _delimited_fast(text, ",") is None


def test_an_empty_unit_id_names_its_line_whichever_reader(tmp_path: Path) -> None:
    for name, text in (("plain.csv", "unit,rater,label\nu1,a,1\n\nNA,b,2\n"),
                       ("quoted.csv", 'unit,rater,label\n"u1",a,1\n\nNA,b,2\n')):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(RatingsFileError, match=rf"{name}: line 4, column 'unit': the unit id is empty"):
            read_ratings(path)


def test_wide_files_read_row_by_row_with_each_cells_place(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("unit,ann,bob\nq1,yes,no\n\nq2,,yes\n", encoding="utf-8")
    frame = read_ratings(path, "wide")
    assert frame[["unit", "rater", "label"]].values.tolist() == [["q1", "ann", "yes"], ["q1", "bob", "no"],
                                                                 ["q2", "bob", "yes"]]
    assert frame["where"].tolist() == ["line 2, column 'ann'", "line 2, column 'bob'", "line 4, column 'bob'"]


def test_a_second_rating_names_both_places(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("unit,rater,label\nu1,a,1\nu2,a,1\nu1,a,2\n", encoding="utf-8")
    with pytest.raises(RatingsFileError, match=r"line 4, column 'label': rater 'a' already rated unit 'u1' "
                                               r"\(line 2, column 'label'\)"):
        read_ratings(path)


def test_a_large_plain_file_reads_the_same_either_way(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    lines = ["unit,rater,label"] + [f"u{i // 3},r{i % 3},{rng.integers(0, 4) if rng.random() > 0.2 else ''}"
                                    for i in range(3000)]
    text = "\n".join(lines) + "\n"
    fast = _delimited_fast(text, ",")
    assert fast is not None
    _same(fast, _delimited_exact(Path("r.csv"), text, ","))
