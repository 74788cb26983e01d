"""The plain delimited path that codes cells on the file's bytes (`annotate.analysis.ratings_bytes`) gives
what coding the cells as Python strings gives (`raw_codes`, the split path and the csv module), on cells
of every kind: empty, spaced, missing tokens, non-ASCII, one prefix of another, past 8 and past 64
bytes, keys that collide; and a file it reads names its bad lines as the other readers do."""

from __future__ import annotations

import codecs
import sys
from pathlib import Path

import numpy as np
import pytest

from annotate.analysis import ratings_bytes
from annotate.analysis.ratings_bytes import plain_columns, raw_codes
from annotate.analysis.ratings_io import RatingsFileError, read_cells
from annotate.analysis.ratings_table import MISSING, MISSING_CASES, _delimited_exact, _delimited_fast

PIECES = ["", " ", "u", "u1", "u10", "u2", "NA", "na ", "Null", "é", "日本", "🙂", "x" * 7, "x" * 8, "x" * 9,
          "item_000001", "item_000002", "y" * 64, "y" * 65, "a b", "-0", "0", "1.0"]


def _cells(rng: np.random.Generator, n: int, kinds: int) -> list[str]:
    """`n` cells drawn from `kinds` of the pieces (joined in twos now and then)."""
    chosen = rng.choice(len(PIECES), size=kinds, replace=False)
    cells = []
    for _ in range(n):
        a, b = rng.choice(chosen, size=2)
        cells.append(PIECES[a] + (PIECES[b] if rng.random() < 0.3 else ""))
    return cells


def _plain(rows: list[list[str]], delimiter: str) -> tuple[str, bytes]:
    text = "\n".join(delimiter.join(row) for row in rows) + "\n"
    return text, text.encode("utf-8")


@pytest.mark.parametrize("seed", range(40))
def test_the_columns_on_the_bytes_are_the_columns_of_the_strings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    width, n = int(rng.integers(1, 5)), int(rng.integers(1, 300))
    columns = [_cells(rng, n, int(rng.integers(1, len(PIECES)))) for _ in range(width)]
    delimiter = "," if seed % 2 else "\t"
    _, body = _plain([list(row) for row in zip(*columns, strict=True)], delimiter)
    raw = "hé\n".encode() + body  # the body after a first line
    start = len("hé\n".encode())
    found = plain_columns(raw, start, len(raw) - 1, delimiter, width, lambda a, b: raw[a:b].decode("utf-8"))
    assert found is not None
    for (codes, cells, order), column in zip(found, columns, strict=True):
        want_codes, want_cells = raw_codes(column)
        assert codes.tolist() == want_codes.tolist()
        assert cells == want_cells
        if max(len(c.encode()) for c in column) <= ratings_bytes.MAX_PACKED:
            assert order is not None and [cells[k] for k in order] == sorted(cells)
        else:  # coded cell by cell
            assert order is None


def test_lines_of_another_width_are_left_to_the_split_path() -> None:
    for body in (b"a,b\nc", b"a,b\nc,d,e", b"a\n\nb,c", b"a,b,\nc,d"):
        assert plain_columns(body, 0, len(body), ",", 2, lambda a, b: "") is None


def test_colliding_keys_never_merge_two_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratings_bytes, "_mixed", lambda words: np.zeros(words.shape[0], dtype=np.uint64))
    cells = ["item_000001", "item_000002", "item_000001", "a_much_longer_cell_than_eight"]
    body = "\n".join(cells).encode()
    [(codes, distinct, order)] = plain_columns(body, 0, len(body), ",", 1, lambda a, b: body[a:b].decode())
    assert (codes.tolist(), distinct) == ([0, 1, 0, 2], cells[:2] + cells[3:])
    assert order is None  # coded cell by cell: the split path sorts them


def test_the_missing_tokens_are_found_in_any_case_without_lowering_each_cell() -> None:
    assert {text.lower() for text in MISSING_CASES} == MISSING
    # no character outside ASCII lowers to something made of the tokens' characters
    letters = set("".join(MISSING))
    assert not [c for c in map(chr, range(128, sys.maxunicode + 1)) if set(c.lower()) <= letters and c.lower()]


def _fast_and_exact(text: str, raw: bytes) -> None:
    fast = _delimited_fast(text, ",", raw)
    exact = _delimited_exact(Path("r.csv"), text, ",")
    assert fast is not None
    assert fast.header == exact.header
    assert fast.places(range(fast.n_rows)) == exact.places(range(exact.n_rows))
    assert [c.cells().tolist() for c in fast.columns] == [c.cells().tolist() for c in exact.columns]


@pytest.mark.parametrize("seed", range(12))
def test_a_plain_file_with_a_bom_crlf_spaces_and_blank_rows_reads_as_the_csv_module_reads_it(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(1, 200))
    rows = [["unit", "rater", "label"]] + [[c for c in (_cells(rng, 3, 6))] for _ in range(n)]
    if seed % 3 == 0:
        rows.insert(int(rng.integers(1, len(rows))), ["", " ", ""])  # a row of blank cells
    text = "\r\n".join(",".join(row) for row in rows) + ("\r\n" if seed % 2 else "")
    raw = (codecs.BOM_UTF8 if seed % 4 < 2 else b"") + text.encode("utf-8")
    decoded = raw.decode("utf-8-sig")
    _fast_and_exact(decoded, raw)
    _fast_and_exact(decoded.replace("\r\n", "\n"), raw.replace(b"\r\n", b"\n"))


BAD = {
    "wrong columns.csv": (b"item,who,mark\nu1,a,1\nu1,b,2\n",
                          "no 'rater' column"),
    "ragged.csv": (b"unit,rater,label\nu1,a,1\nu1,b,2,3\n", "line 3: 4 cells but the header (line 1) has 3"),
    "quoted.csv": (b'unit,rater,label\nu1,a,1\nu1,"b,2\n', "line 3: unexpected end of data"),
    "bom twice.csv": (codecs.BOM_UTF8 + b"unit,rater,label\nu1,a,1\nu2,a,1\nu1,a,2\n",
                      "line 4, column 'label': rater 'a' already rated unit 'u1' (line 2, column 'label')"),
    "crlf empty unit.csv": (b"unit,rater,label\r\nu1,a,1\r\n,b,2\r\n", "line 3, column 'unit': the unit id is empty"),
    "empty rater.csv": (b"unit,rater,label\nu1,a,1\nu1,  ,2\n", "line 3, column 'rater': the rater is empty"),
    "empty cells.csv": (b"unit,rater,label\nu1,a,\nu1,b, NA \n", "no ratings found"),
    "non-utf8.csv": (b"unit,rater,label\nu1,a,1\nu1,b,\xe9\n", "line 3: not UTF-8 text (byte 29)"),
    "non-ascii twice.csv": ("unit,rater,label\nünï,ä,1\n日本,ä,1\nünï,ä,2\n".encode(),
                            "line 4, column 'label': rater 'ä' already rated unit 'ünï' (line 2, column 'label')"),
    "long ids twice.csv": (("unit,rater,label\n" + "".join(f"{'z' * 70}{i % 2},r{i // 2},1\n" for i in range(4))
                            + f"{'z' * 70}1,r0,2\n").encode(),
                           f"line 6, column 'label': rater 'r0' already rated unit '{'z' * 70}1' (line 3"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_plain_files_name_the_file_and_the_line(tmp_path: Path, name: str) -> None:
    content, message = BAD[name]
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(RatingsFileError) as caught:
        read_cells(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_a_non_ascii_file_reads_its_ids_sorted_as_python_sorts_them(tmp_path: Path) -> None:
    ids = ["zebra", "Émile", "eve", "日本", "e", "ève", "🙂", "x" * 9, "x" * 8]
    path = tmp_path / "r.csv"
    path.write_text("unit,rater,label\n" + "".join(f"{u},{r},1\n" for u in ids for r in ("b", "á")),
                    encoding="utf-8")
    cells = read_cells(path)
    assert cells.unit_ids == tuple(sorted(ids)) and cells.rater_ids == ("b", "á")
    assert cells.unit.tolist() == [u for u in ids for _ in "ab"]
