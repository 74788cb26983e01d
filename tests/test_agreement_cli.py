"""`annotate agreement FILE` on long, wide and raters-as-rows files, checked against krippendorff.alpha.

The data are the reliability data of Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability":
4 observers x 12 units with missing values; alpha nominal 0.743, ordinal 0.815, interval 0.849,
ratio 0.797.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from click.testing import CliRunner

from annotate.cli import main

NAN = math.nan
OBSERVERS = ("A", "B", "C", "D")
DATA = (
    (1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN),
    (1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3),
    (NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN),
    (1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN),
)
PUBLISHED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


def _cell(value: float) -> str:
    return "" if math.isnan(value) else str(int(value))


def write_long(path: Path) -> Path:
    lines = ["unit,rater,label"]
    for rater, row in zip(OBSERVERS, DATA, strict=True):
        lines += [f"u{u + 1},{rater},{_cell(v)}" for u, v in enumerate(row)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_wide(path: Path) -> Path:
    lines = ["unit," + ",".join(OBSERVERS)]
    for u in range(12):
        lines.append(f"u{u + 1}," + ",".join(_cell(row[u]) for row in DATA))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_rows(path: Path) -> Path:
    lines = ["observer," + ",".join(f"u{u + 1}" for u in range(12))]
    lines += [f"{rater}," + ",".join(_cell(v) for v in row) for rater, row in zip(OBSERVERS, DATA, strict=True)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["agreement", *args])
    return result.exit_code, result.output


def run_json(*args: str) -> dict:
    code, out = run(*args, "--json")
    assert code == 0, out
    return json.loads(out)


@pytest.mark.parametrize("level", list(PUBLISHED))
def test_reference_values_match_the_krippendorff_package(level: str) -> None:
    expected = krippendorff.alpha(reliability_data=np.array(DATA), level_of_measurement=level)
    assert round(expected, 3) == PUBLISHED[level]


@pytest.mark.parametrize("level", list(PUBLISHED))
@pytest.mark.parametrize("layout", ["long", "wide", "rows"])
def test_alpha_on_every_layout(tmp_path: Path, layout: str, level: str) -> None:
    if layout == "long":
        args = [str(write_long(tmp_path / "r.csv"))]
    elif layout == "wide":
        args = [str(write_wide(tmp_path / "r.csv")), "--layout", "wide"]
    else:
        args = [str(write_rows(tmp_path / "r.csv")), "--layout", "wide", "--raters-as-rows"]
    data = run_json(*args, "--level", level, "--bootstrap", "200")
    alpha = data["krippendorff_alpha"]
    expected = krippendorff.alpha(reliability_data=np.array(DATA), level_of_measurement=level)
    assert alpha["estimate"] == pytest.approx(expected, abs=1e-9)
    assert alpha["n_units"] == 11  # unit 12 has one rating only: not pairable
    assert alpha["n_pairable"] == 40
    assert alpha["n_raters"] == 4
    lo, hi = alpha["ci"]
    assert lo <= alpha["estimate"] <= hi


def test_json_has_exactly_the_documented_keys(tmp_path: Path) -> None:
    data = run_json(str(write_wide(tmp_path / "r.csv")), "--layout", "wide", "--level", "ordinal")
    assert set(data) == {"krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "percent_agreement", "cohen_kappa"}
    for key in ("krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "percent_agreement"):
        assert {"estimate", "ci", "n_units"} <= set(data[key])
        assert len(data[key]["ci"]) == 2
    pairs = data["cohen_kappa"]
    assert len(pairs) == 6
    for pair in pairs:
        assert {"raters", "estimate", "weighted_linear", "weighted_quadratic", "n_units"} <= set(pair)
        assert len(pair["raters"]) == 2
        assert pair["weighted_linear"] is not None
    ab = next(p for p in pairs if p["raters"] == ["A", "B"])
    assert ab["n_units"] == 9


def test_nominal_has_no_weighted_kappa_and_seeded_intervals(tmp_path: Path) -> None:
    path = str(write_long(tmp_path / "r.csv"))
    first = run_json(path, "--seed", "3", "--bootstrap", "300")
    again = run_json(path, "--seed", "3", "--bootstrap", "300")
    assert first == again
    assert all(p["weighted_linear"] is None and p["weighted_quadratic"] is None for p in first["cohen_kappa"])
    none = run_json(path, "--bootstrap", "0")
    assert none["krippendorff_alpha"]["ci"] == [None, None]


def test_jsonl_json_and_tsv_inputs(tmp_path: Path) -> None:
    long_csv = write_long(tmp_path / "r.csv")
    expected = run_json(str(long_csv), "--bootstrap", "50")
    rows = [dict(zip(("unit", "rater", "label"), line.split(","), strict=True))
            for line in long_csv.read_text().splitlines()[1:]]
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text("\n".join(json.dumps({**r, "label": int(r["label"]) if r["label"] else None}) for r in rows))
    assert run_json(str(jsonl), "--bootstrap", "50") == expected
    tsv = tmp_path / "r.tsv"
    tsv.write_text(write_wide(tmp_path / "w.csv").read_text().replace(",", "\t"))
    assert run_json(str(tsv), "--layout", "wide", "--bootstrap", "50") == expected
    wide_json = tmp_path / "w.json"
    records = [{"unit": f"u{u + 1}", **{r: None if math.isnan(row[u]) else row[u]
                                        for r, row in zip(OBSERVERS, DATA, strict=True)}} for u in range(12)]
    wide_json.write_text(json.dumps(records))
    assert run_json(str(wide_json), "--layout", "wide", "--bootstrap", "50") == expected


def test_text_output_shows_every_coefficient_and_the_reading(tmp_path: Path) -> None:
    code, out = run(str(write_rows(tmp_path / "r.csv")), "--layout", "wide", "--raters-as-rows", "--level", "interval")
    assert code == 0, out
    for needle in ("Krippendorff's alpha (interval)", "0.849", "reliable", "Fleiss' kappa", "Gwet's AC1",
                   "percent agreement", "Cohen's kappa", "95 % CI", "0.667", "0.800", "units", "pairable"):
        assert needle in out, needle


def test_ordinal_text_labels_with_order(tmp_path: Path) -> None:
    names = {1: "poor", 2: "fair", 3: "good", 4: "great", 5: "superb"}
    lines = ["unit,rater,label"]
    for rater, row in zip(OBSERVERS, DATA, strict=True):
        lines += [f"u{u + 1},{rater},{'' if math.isnan(v) else names[int(v)]}" for u, v in enumerate(row)]
    path = tmp_path / "text.csv"
    path.write_text("\n".join(lines) + "\n")
    data = run_json(str(path), "--level", "ordinal", "--order", "poor,fair,good,great,superb", "--bootstrap", "0")
    assert data["krippendorff_alpha"]["estimate"] == pytest.approx(0.8153875, abs=1e-6)
    code, out = run(str(path), "--level", "ordinal")
    assert code != 0
    assert "text.csv" in out and "line 2" in out and "column 'label'" in out and "'poor'" in out
    assert "--order" in out
    code, out = run(str(path), "--level", "ordinal", "--order", "poor,fair,good")
    assert code != 0 and "'great'" in out and "not in --order" in out


@pytest.mark.parametrize(
    ("content", "args", "needles"),
    [
        ("unit,rater,label\nu1,a,1\nu1,b,x\n", ["--level", "interval"], ["bad.csv", "line 3", "column 'label'", "'x'"]),
        ("unit,who,label\nu1,a,1\n", [], ["bad.csv", "line 1", "'rater'", "--layout wide"]),
        ("unit,rater,label\nu1,a,1\nu1,a,2\n", [], ["bad.csv", "line 3", "line 2", "already rated"]),
        ("unit,rater,label\nu1,a,1,7\n", [], ["bad.csv", "line 2", "4 cells"]),
        ("unit,a,b\nu1,1,2\nu2,3,-1\n", ["--layout", "wide", "--level", "ratio"],
         ["bad.csv", "line 3", "column 'b'", "negative"]),
        ("unit,a,b\nu1,1,2\n,3,1\n", ["--layout", "wide"], ["bad.csv", "line 3", "unit id is empty"]),
        ("", [], ["bad.csv", "empty"]),
        ("unit,rater,label\nu1,a,1\nu2,a,2\n", [], ["bad.csv", "only one rater"]),
    ],
)
def test_bad_files_name_file_line_and_column(tmp_path: Path, content: str, args: list[str], needles: list[str]) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out = run(str(path), *args)
    assert code != 0
    assert "Traceback" not in out
    for needle in needles:
        assert needle in out, (needle, out)


def test_bad_json_and_extension(tmp_path: Path) -> None:
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text('{"unit": "u1", "rater": "a", "label": 1}\n{"unit": "u1", "rater": \n')
    code, out = run(str(jsonl))
    assert code != 0 and "bad.jsonl" in out and "line 2" in out
    xlsx = tmp_path / "sheet.xlsx"
    xlsx.write_text("x")
    code, out = run(str(xlsx))
    assert code != 0 and "sheet.xlsx" in out and ".csv" in out
    code, out = run(str(tmp_path / "missing.csv"))
    assert code != 0


def test_help_alone_explains_the_layouts() -> None:
    code, out = run("--help")
    assert code == 0
    for needle in ("--layout", "wide", "--raters-as-rows", "--level", "--bootstrap", "--json", "Example", "alpha"):
        assert needle in out


def test_hostile_rater_names_are_shown_inert(tmp_path: Path) -> None:
    path = tmp_path / "evil.jsonl"
    evil = ["bob\x1b]52;c;aGk=\x07", "[bold]x[/bold]\u202e", "漢字 👩‍🔬"]
    rows = [{"unit": f"u{u}", "rater": r, "label": (u + k) % 3 if u % 4 else 1}
            for u in range(8) for k, r in enumerate(evil)]
    path.write_text("\n".join(json.dumps(row) for row in rows))
    code, out = run(str(path))
    assert code == 0, out
    assert "\x1b" not in out and "\u202e" not in out
    assert "bob␛]52;c;aGk=␇" in out and "[bold]x[/bold]" in out and "漢字" in out
    data = run_json(str(path), "--bootstrap", "0")
    assert {frozenset(p["raters"]) for p in data["cohen_kappa"]} == {frozenset(pair) for pair in
                                                                     [evil[:2], evil[1:], evil[::2]]}


SPACED = {"a": [1, 2, 2, 5, 10, 10, 1, 5], "b": [1, 2, 5, 5, 10, 5, 2, 10], "c": [3, 7, 20, 2, 10, 7, 3, 5]}
"""Unequally spaced numeric labels; rater c uses values a and b never use."""


def _write_spaced(path: Path, raters: tuple[str, ...]) -> Path:
    lines = ["unit," + ",".join(raters)]
    lines += [f"u{u}," + ",".join(str(SPACED[r][u]) for r in raters) for u in range(8)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_interval_kappa_and_alpha_use_the_values_and_ignore_other_raters(tmp_path: Path, level: str) -> None:
    two = run_json(str(_write_spaced(tmp_path / "ab.csv", ("a", "b"))), "--layout", "wide", "--level", level)
    three = run_json(str(_write_spaced(tmp_path / "abc.csv", ("a", "b", "c"))), "--layout", "wide", "--level", level)
    ab_alone = two["cohen_kappa"][0]
    ab_with_c = next(p for p in three["cohen_kappa"] if p["raters"] == ["a", "b"])
    for key in ("estimate", "weighted_linear", "weighted_quadratic", "ci", "weighted_linear_ci"):
        assert ab_with_c[key] == pytest.approx(ab_alone[key], abs=1e-12), key
    x, y = np.array(SPACED["a"], float), np.array(SPACED["b"], float)
    linear = 1 - np.abs(x - y).mean() / np.abs(x[:, None] - y[None, :]).mean()  # Cohen (1968) on the values
    assert ab_alone["weighted_linear"] == pytest.approx(linear, abs=1e-12)
    expected = krippendorff.alpha(reliability_data=np.array([SPACED[r] for r in "abc"], float),
                                  level_of_measurement=level)
    assert three["krippendorff_alpha"]["estimate"] == pytest.approx(expected, abs=1e-9)


def test_too_little_data_says_why_never_nan(tmp_path: Path) -> None:
    """No variation: alpha, Fleiss and every kappa undefined, with the reason and n; one unit: no interval."""
    same = tmp_path / "same.csv"
    same.write_text("unit,rater,label\nu1,a,1\nu1,b,1\nu2,a,1\nu2,b,1\n")
    code, out = run(str(same), "--level", "interval")
    assert code == 0 and "nan" not in out.lower()
    flat = " ".join(out.split())
    assert ("–: Krippendorff's alpha (interval), Fleiss' kappa: not enough data (n = 2 units): every rating has the "
            "same label") in flat
    assert "–: kappa, linear, quadratic: not enough data (n = 2 units)" in flat
    one = tmp_path / "one.csv"
    one.write_text("unit,rater,label\nu1,a,1\nu1,b,2\n")
    code, out = run(str(one), "--level", "ordinal")
    flat = " ".join(out.split())
    assert code == 0 and "nan" not in out.lower()
    assert "no interval: not enough data (n = 1 unit) to resample" in flat


def test_only_the_coefficients_asked_for_are_computed_and_shown(tmp_path: Path) -> None:
    path = str(write_long(tmp_path / "r.csv"))
    full = run_json(path)
    alpha = run_json(path, "--only", "alpha")
    assert list(alpha) == ["krippendorff_alpha"]
    assert alpha["krippendorff_alpha"]["estimate"] == full["krippendorff_alpha"]["estimate"]
    pairs = run_json(path, "--only", "cohen,percent")
    assert list(pairs) == ["percent_agreement", "cohen_kappa"]
    assert [p["estimate"] for p in pairs["cohen_kappa"]] == [p["estimate"] for p in full["cohen_kappa"]]
    code, out = run(path, "--only", "alpha")
    assert code == 0 and "Krippendorff's alpha (nominal)" in out
    assert "Fleiss" not in out and "Cohen's kappa" not in out


def test_only_names_a_coefficient_it_does_not_know(tmp_path: Path) -> None:
    path = str(write_long(tmp_path / "r.csv"))
    code, out = run(path, "--only", "alpha,kappa")
    assert code == 2 and "unknown coefficient 'kappa'; choose from alpha, fleiss, ac1, percent, cohen" in out
    code, out = run(path, "--only", "alpha", "--level", "ranking")
    assert code == 2 and "--only applies to labels" in out
