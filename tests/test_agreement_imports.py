"""`annotate agreement FILE` on the common formats never imports pandas (about 0.9 s of CPU with pyarrow,
thirty times what alpha with 1000 resamples of 10,000 units costs), checked in a fresh interpreter as a
user runs it; a format or feature that needs pandas would import it only then."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHILD = """
import sys
from annotate.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    heavy = sorted(m for m in ("pandas", "pyarrow", "scipy", "textual", "sqlite_utils",
                               "annotate.design", "annotate.report.context") if m in sys.modules)
    print("loaded:", ",".join(heavy), file=sys.stderr)
"""

FILES = {
    "long.csv": "unit,rater,label\n" + "".join(f"u{i},{r},{(i + (r == 'b')) % 3}\n" for i in range(30) for r in "abc"),
    "quoted.csv": 'unit,rater,label\n"u0",a,1\n' + "".join(f"u{i},{r},{i % 2}\n" for i in range(1, 30) for r in "ab"),
    "wide.tsv": "unit\tann\tbob\n" + "".join(f"q{i}\t{'yes' if i % 3 else 'no'}\t{'yes' if i % 4 else ''}\n"
                                             for i in range(30)),
    "long.jsonl": "".join(f'{{"item": "u{i}", "judge": "{r}", "score": {(i * 7 + ord(r)) % 4}}}\n'
                          for i in range(30) for r in "ab"),
}


def _loaded(*args: str, cwd: Path) -> str:
    proc = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr.rsplit("loaded:", 1)[1].strip()


def test_only_alpha_on_a_csv_imports_no_pandas(tmp_path: Path) -> None:
    (tmp_path / "long.csv").write_text(FILES["long.csv"], encoding="utf-8")
    assert _loaded("agreement", "long.csv", "--only", "alpha", cwd=tmp_path) == ""


@pytest.mark.parametrize(("name", "options"), [
    ("long.csv", ["--level", "ordinal"]),
    ("quoted.csv", ["--json"]),
    ("wide.tsv", ["--layout", "wide", "--order", "no,yes"]),
    ("long.jsonl", ["--level", "interval", "--bootstrap", "50", "--json"]),
])
def test_every_coefficient_on_the_common_formats_imports_no_pandas(tmp_path: Path, name: str,
                                                                  options: list[str]) -> None:
    (tmp_path / name).write_text(FILES[name], encoding="utf-8")
    assert _loaded("agreement", name, *options, cwd=tmp_path) == ""
