"""`annotate agreement FILE --level ranking`: a file whose labels are rankings (`b>a=c>d`), checked
against a published worked example of Kendall's W (ten projects ranked by four judges, S = 1048) and
against `krippendorff.alpha` on the mid-ranks; long and wide layouts; bad rankings name the line."""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from click.testing import CliRunner

from annotate.cli import main

PROJECTS = [  # rank given to projects p1..p10 (rows) by judges A, B, C, D (columns), no ties
    [1, 2, 3, 4], [3, 1, 2, 2], [4, 4, 1, 3], [5, 5, 5, 1], [2, 6, 7, 6],
    [8, 3, 4, 7], [6, 8, 6, 5], [7, 7, 8, 9], [10, 10, 9, 8], [9, 9, 10, 10],
]


def _run(*args: str) -> dict:
    result = CliRunner().invoke(main, ["agreement", *args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_published_example(tmp_path: Path) -> None:
    lines = ["unit,rater,label"]
    for j, judge in enumerate("ABCD"):
        order = sorted(range(10), key=lambda p: PROJECTS[p][j])
        lines.append(f"projects,{judge},{'>'.join(f'p{p + 1}' for p in order)}")
    path = tmp_path / "projects.csv"
    path.write_text("\n".join(lines) + "\n")
    data = _run(str(path), "--level", "ranking", "--bootstrap", "0")
    assert data["kendall_w"]["mean"]["estimate"] == pytest.approx(12 * 1048 / (16 * 990))
    assert data["n_rankings"] == 4 and data["n_units"] == 1 and data["k"] == {"min": 10, "max": 10}


def test_alpha_on_ranks_and_the_wide_layout(tmp_path: Path) -> None:
    rankings = {  # unit -> the rankings of raters r1, r2, r3 (names differ between units)
        "u1": ["a>b>c", "a>c>b", "b>a>c"], "u2": ["x=y>z", "x>y>z", "z>y>x"], "u3": ["p>q>r>s", "p>q>s>r", "q>p>r>s"],
        "u4": ["a>b>c", "a>b>c", "a=b=c"],
    }
    long = tmp_path / "long.csv"
    long.write_text("unit,rater,label\n" + "".join(
        f"{u},r{i + 1},{t}\n" for u, texts in rankings.items() for i, t in enumerate(texts)))
    wide = tmp_path / "wide.csv"
    wide.write_text("unit,r1,r2,r3\n" + "".join(f"{u},{','.join(t)}\n" for u, t in rankings.items()))
    got = _run(str(long), "--level", "ranking", "--bootstrap", "0")
    assert _run(str(wide), "--level", "ranking", "--layout", "wide", "--bootstrap", "0") == got

    def ranks(text: str) -> dict[str, float]:
        out, done = {}, 0
        for group in text.split(">"):
            names = group.split("=")
            out.update({n: done + (len(names) + 1) / 2 for n in names})
            done += len(names)
        return out

    units = [(u, name) for u, texts in rankings.items() for name in sorted(ranks(texts[0]))]
    matrix = np.array([[ranks(rankings[u][i])[name] for u, name in units] for i in range(3)])
    assert got["alpha_ordinal"]["estimate"] == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal"))
    assert got["kendall_w"]["tied_rankings"] == 2 and got["k"] == {"min": 3, "max": 4}


@pytest.mark.parametrize(("label", "message"), [
    ("a>a>b", "line 3, column 'label': 'a>a>b' is not a ranking"),
    ("a>>b", "is not a ranking"),
    ("a>b", "this ranking of unit 'u1' ranks a, b; the one at line 2, column 'label' ranks a, b, c"),
])
def test_a_bad_ranking_names_the_line(tmp_path: Path, label: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(f"unit,rater,label\nu1,r1,a>b>c\nu1,r2,{label}\n")
    result = CliRunner().invoke(main, ["agreement", str(path), "--level", "ranking"])
    assert result.exit_code != 0 and message in result.output, result.output
    assert "Traceback" not in result.output


def test_order_does_not_apply_to_rankings(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("unit,rater,label\nu1,r1,a>b>c\nu1,r2,b>a>c\n")
    result = CliRunner().invoke(main, ["agreement", str(path), "--level", "ranking", "--order", "a,b"])
    assert result.exit_code == 2 and "--order applies to --level nominal or ordinal, not ranking" in result.output
