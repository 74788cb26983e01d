"""`annotate agreement FILE` reads, codes and computes without pandas, and gives what the pandas reader
gave (`oracle_ratings_io`, the code as it was), to the bit, on varied files: every format and layout,
missing values, numeric and text labels, every level, `--order`, `--map`, `--only`, and every error
with the same message naming the file, the line and the column."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import oracle_ratings_io as old
import pytest

from annotate.analysis import ratings_io as new
from annotate.analysis.ratings_table import RatingsFileError

MISSING_TOKENS = ["", "NA", "n/a", " . ", "*", "null", "None", "nan", "  "]
LABELS = {
    "small ints": ["0", "1", "2", "3"],
    "numbers as written": ["1", "1.0", " 2", "2.50", "-1", "10", "0", "-0"],
    "text": ["yes", "no", "maybe", "Yes"],
    "mixed": ["1", "2", "two", "3"],
    "ordered text": ["low", "mid", "high"],
}


def _grid(rng: np.random.Generator, labels: list[str], n_units: int, n_raters: int, missing: float) -> list[list[str]]:
    """A units x raters grid of label texts, some cells missing (as one of the tokens for missing)."""
    latent = rng.integers(0, len(labels), n_units)
    grid = []
    for u in range(n_units):
        row = []
        for _ in range(n_raters):
            if rng.random() < missing:
                row.append(str(rng.choice(MISSING_TOKENS)))
            else:
                row.append(labels[latent[u] if rng.random() < 0.6 else rng.integers(0, len(labels))])
        grid.append(row)
    return grid


def _delimited(rows: list[list[str]], delimiter: str, rng: np.random.Generator, quote: bool, crlf: bool) -> str:
    lines = []
    for k, row in enumerate(rows):
        cells = [f'"{c}"' if quote and rng.random() < 0.3 else c for c in row]
        lines.append(delimiter.join(cells))
        if k and rng.random() < 0.05:
            lines.append(rng.choice(["", "  ", delimiter * (len(row) - 1)]))  # blank lines are skipped
    return ("\r\n" if crlf else "\n").join(lines) + ("\r\n" if crlf else "\n")


def _json_value(text: str) -> Any:
    """A cell as JSON would hold it: numbers as numbers, the missing tokens as null or text."""
    if text.strip() in ("", "null"):
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def write_file(folder: Path, seed: int, fmt: str, layout: str, labels: list[str]) -> tuple[Path, dict[str, Any]]:
    """A random ratings file and the `agreement_from_file` options that read it."""
    rng = np.random.default_rng(seed)
    n_units, n_raters = int(rng.integers(3, 40)), int(rng.integers(2, 6))
    grid = _grid(rng, labels, n_units, n_raters, missing=float(rng.choice([0.0, 0.2, 0.5])))
    units = [f"u{rng.integers(0, 10_000)}-{u}" for u in range(n_units)]
    raters = [f"r{r}" for r in range(n_raters)]
    options: dict[str, Any] = {"layout": layout}
    if layout == "long":
        names = [str(rng.choice(["unit", "item", "ID"])), str(rng.choice(["rater", "Annotator", "who"])),
                 str(rng.choice(["label", "score", "choice"]))]
        if names[1] == "who" or names[2] == "choice":
            options["columns"] = {"rater": names[1], "label": names[2]}
        rows = [[*names, "note"]] + [[units[u], raters[r], grid[u][r], "x"] for u in rng.permutation(n_units)
                                     for r in range(n_raters) if rng.random() < 0.9]
    elif rng.random() < 0.5:
        rows = [["unit", *raters]] + [[units[u], *grid[u]] for u in range(n_units)]
    else:
        options["raters_as_rows"] = True
        rows = [["rater", *units]] + [[raters[r], *(grid[u][r] for u in range(n_units))] for r in range(n_raters)]
    path = folder / f"r{seed}.{fmt}"
    if fmt in ("csv", "tsv"):
        text = _delimited(rows, "," if fmt == "csv" else "\t", rng, quote=rng.random() < 0.3, crlf=rng.random() < 0.3)
        path.write_text(text, encoding="utf-8", newline="")
    else:
        records = [{k: _json_value(v) for k, v in zip(rows[0], row, strict=True)} for row in rows[1:]]
        if fmt == "jsonl":
            path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        else:
            path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return path, options


def outcome(compute: Callable[[], Any]) -> str:
    """What a call gave, as text to compare: the repr of its result (floats to the bit), or its error."""
    try:
        return repr(compute())
    except RatingsFileError as exc:
        return f"RatingsFileError: {exc}"


LEVELS = [("nominal", None), ("ordinal", None), ("interval", None), ("ratio", None)]


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "json"])
@pytest.mark.parametrize("layout", ["long", "wide"])
@pytest.mark.parametrize("kind", sorted(LABELS))
def test_every_file_gives_what_the_pandas_reader_gave(tmp_path: Path, fmt: str, layout: str, kind: str) -> None:
    for seed in range(3):
        case = 1000 * seed + zlib.crc32(f"{fmt} {layout} {kind}".encode()) % 1000
        path, options = write_file(tmp_path, case, fmt, layout, LABELS[kind])
        levels = LEVELS + ([("ordinal", ["low", "mid", "high"]), ("nominal", ["high", "mid", "low", "none"])]
                           if kind == "ordered text" else [])
        for level, order in levels:
            for coefficients in (None, ["alpha"], ["cohen", "ac1"]):
                kwargs = dict(options, level=level, order=order, n_boot=20, seed=seed, coefficients=coefficients)
                was = outcome(lambda: old.agreement_from_file(path, **kwargs))  # noqa: B023
                now = outcome(lambda: new.agreement_from_file(path, **kwargs))  # noqa: B023
                assert now == was, (path.read_text(encoding="utf-8"), kwargs)


def test_read_ratings_and_prepare_labels_give_the_frames_they_gave(tmp_path: Path) -> None:
    for seed, (fmt, layout, kind) in enumerate([("csv", "long", "numbers as written"), ("tsv", "wide", "text"),
                                                 ("json", "long", "mixed"), ("csv", "wide", "small ints")]):
        path, options = write_file(tmp_path, seed, fmt, layout, LABELS[kind])
        read = {k: v for k, v in options.items() if k != "layout"}
        was, now = old.read_ratings(path, layout, **read), new.read_ratings(path, layout, **read)
        assert now.to_dict("list") == was.to_dict("list")
        for level in ("nominal", "ordinal"):
            a, b = outcome(lambda: old.prepare_labels(was, level, source=path)), outcome(  # noqa: B023
                lambda: new.prepare_labels(now, level, source=path))  # noqa: B023
            assert b == a


BAD = {
    "no header.csv": "",
    "blank.csv": "\n \n",
    "only header.csv": "unit,rater,label\n",
    "all missing.csv": "unit,rater,label\nu1,a,NA\nu2,b,\n",
    "no label column.csv": "unit,rater,mark\nu1,a,1\n",
    "no unit column.tsv": "thing\trater\tlabel\nu1\ta\t1\n",
    "too wide.csv": "unit,rater,label\nu1,a,1\nu2,b,2,3\n",
    "too wide quoted.csv": 'unit,rater,label\n"u1",a,1\nu2,b,2,3\n',
    "bad quote.csv": 'unit,rater,label\nu1,a,"1"x\n',
    "open quote.csv": 'unit,rater,label\nu1,a,"1\n',
    "empty unit.csv": "unit,rater,label\nu1,a,1\n\n ,b,2\n",
    "empty rater.csv": "unit,rater,label\nu1,a,1\nu2,NA,2\n",
    "twice.csv": "unit,rater,label\nu1,a,1\nu2,a,1\nu1,b,1\nu2,a,2\nu1,a,3\n",
    "twice wide.csv": "unit,a,b\nu1,1,2\nu2,1,1\nu1,,2\n",
    "one rater.csv": "unit,rater,label\nu1,a,1\nu2,a,2\n",
    "text at interval.csv": "unit,rater,label\nu1,a,1\nu1,b,two\n",
    "negative.csv": "unit,rater,label\nu1,a,1\nu1,b,-2\n",
    "three same.csv": "label,rater,label2\nu1,a,1\n",
    "not utf8.csv": b"unit,rater,label\nu1,a,\xff\n",
    "lone cr.csv": "unit,rater,label\ru1,a,1\ru1,b,2\r",
    "nul.csv": "unit,rater,label\nu1,a,1\x00\nu1,b,2\n",
    "not json.jsonl": '{"unit": "u1", "rater": "a", "label": 1}\n{"unit": \n',
    "not objects.json": '[{"unit": "u1", "rater": "a", "label": 1}, 3]',
    "not array.json": '{"unit": "u1"}',
    "deep.json": "[" * 200 + "]" * 200,
    "empty.json": "[]",
    "no name.csv": "unit,a,,b\nu1,1,2,3\n",
    "same name.csv": "unit,a,b,a\nu1,1,2,3\n",
    "one column.csv": "unit\nu1\n",
    "data.xlsx": "unit,rater,label\n",
}


@pytest.mark.parametrize("name", sorted(BAD))
@pytest.mark.parametrize("options", [
    {}, {"layout": "wide"}, {"layout": "wide", "raters_as_rows": True}, {"level": "interval"}, {"level": "ratio"},
    {"level": "ordinal", "order": ["1", "2"]}, {"level": "interval", "order": ["1"]}, {"order": ["1", "1"]},
    {"columns": {"label": "label2"}}, {"columns": {"unit": "nope"}}, {"raters_as_rows": True},
    {"layout": "wide", "columns": {"unit": "unit"}},
])
def test_every_error_says_what_it_said(tmp_path: Path, name: str, options: dict[str, Any]) -> None:
    path = tmp_path / name
    content = BAD[name]
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    kwargs = dict(options, n_boot=10)
    was = outcome(lambda: old.agreement_from_file(path, **kwargs))
    assert outcome(lambda: new.agreement_from_file(path, **kwargs)) == was
    if "RatingsFileError" in was:
        assert str(path) in was or "layout" in was or "--" in was


def test_missing_files_and_folders_say_what_they_said(tmp_path: Path) -> None:
    for path in (tmp_path / "absent.csv", tmp_path):
        assert outcome(lambda: new.agreement_from_file(path)) == outcome(  # noqa: B023
            lambda: old.agreement_from_file(path))  # noqa: B023


def test_the_file_path_loads_no_pandas_module_of_its_own() -> None:
    """The modules `agreement_from_file` runs import pandas only inside the functions that take frames."""
    import annotate.analysis.agreement.coded as coded
    import annotate.analysis.agreement.matrix as matrix
    import annotate.analysis.ratings_table as table

    for module in (new, coded, matrix, table):
        assert "pd" not in vars(module) and "pandas" not in vars(module), module.__name__
