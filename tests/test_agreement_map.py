"""`annotate agreement`: --map for files whose columns have other names, the accepted names in the
error, and no degenerate interval from a single unit."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from annotate.cli import main

ROWS = [("q1", "ann", "A"), ("q1", "bob", "A"), ("q2", "ann", "B"), ("q2", "bob", "A"), ("q3", "ann", "B"),
        ("q3", "bob", "B"), ("q4", "ann", "A"), ("q4", "bob", "A")]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["agreement", *args])
    return result.exit_code, result.stdout, result.stderr


def test_map_names_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "votes.csv"
    path.write_text("pair,who,choice\n" + "".join(f"{u},{r},{lab}\n" for u, r, lab in ROWS))
    code, out, err = run(str(path))
    assert code == 1
    for needle in ("no 'unit' column", "unit, item, item_id, unit_id, id", "the file has: 'pair', 'who', 'choice'",
                   "--map unit=COLUMN"):
        assert needle in err
    code, out, err = run(str(path), "--map", "unit=pair", "--map", "rater=who", "--map", "label=choice", "--json",
                         "--bootstrap", "0")
    assert code == 0, err
    data = json.loads(out)
    assert data["krippendorff_alpha"]["n_units"] == 4 and data["cohen_kappa"][0]["raters"] == ["ann", "bob"]
    # the reviewer's file: item, annotator, choice; only the label needs naming
    other = tmp_path / "long.csv"
    other.write_text("item,annotator,choice\n" + "".join(f"{u},{r},{lab}\n" for u, r, lab in ROWS))
    code, out, err = run(str(other), "--map", "label=choice", "--json", "--bootstrap", "0")
    assert code == 0, err
    assert json.loads(out)["percent_agreement"]["estimate"] == 0.75


def test_map_errors(tmp_path: Path) -> None:
    path = tmp_path / "votes.csv"
    path.write_text("pair,who,choice\n" + "".join(f"{u},{r},{lab}\n" for u, r, lab in ROWS))
    code, _, err = run(str(path), "--map", "unit=nope", "--map", "rater=who", "--map", "label=choice")
    assert code == 1 and "--map unit=nope: no such column; the file has: 'pair', 'who', 'choice'" in err
    code, _, err = run(str(path), "--map", "colour=pair")
    assert code == 1 and "unknown target 'colour'" in err
    code, _, err = run(str(path), "--map", "unit")
    assert code == 1 and "expected TARGET=COLUMN" in err
    code, _, err = run(str(path), "--layout", "wide", "--map", "unit=pair")
    assert code == 1 and "--map names the columns of the long layout" in err


def test_one_unit_gives_no_interval_and_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_text("unit,rater,label\nq1,a,A\nq1,b,B\nq2,a,A\n")
    code, out, err = run(str(path), "--json")
    assert code == 0, err
    data = json.loads(out)
    for key in ("krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "percent_agreement"):
        assert data[key]["ci"] == [None, None], key
        assert data[key]["n_units"] == 1
    assert data["cohen_kappa"][0]["ci"] == [None, None]
    assert "warning: " in err and "only 1 unit rated by two or more raters" in err
    code, out, err = run(str(path))
    assert code == 0
    flowing = " ".join(out.split())  # the warning wraps where the file's path (long under xdist) puts it
    assert "[-1.000, -1.000]" not in out and "only 1 unit rated by two or more raters" in flowing
    assert "on 2 units" in out and "on 1 units" not in out
