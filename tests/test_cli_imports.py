"""Commands that work on a file alone do not load the session machinery.

`annotate agreement FILE` reads a CSV and computes coefficients; the command line's group callback
used to import `annotate.session` (and with it the store, sqlite-utils and the session specs) for
every command just to remember `--project`. Checked in a fresh interpreter, as a user runs it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CHILD = """
import sys
from annotate.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    heavy = sorted(m for m in ("annotate.session", "annotate.store", "sqlite_utils", "textual") if m in sys.modules)
    print("loaded:", ",".join(heavy), file=sys.stderr)
"""


def _loaded(*args: str, cwd: Path) -> str:
    proc = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr.rsplit("loaded:", 1)[1].strip()


def test_agreement_on_a_file_loads_no_session_machinery(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("unit,rater,label\n" + "".join(f"u{i},{r},{(i + (r == 'b')) % 2}\n" for i in range(30)
                                                   for r in "abc"))
    (tmp_path / "sessions").mkdir()
    assert _loaded("--project", str(tmp_path), "agreement", str(path), "--only", "alpha", cwd=tmp_path) == ""
    assert _loaded("agreement", str(path), "--only", "alpha", cwd=tmp_path) == ""
    assert _loaded("agreement", "--help", cwd=tmp_path) == ""


def test_a_store_error_still_becomes_a_one_line_error() -> None:
    import click
    import pytest

    from annotate.cli.common import domain_errors
    from annotate.store import StoreError

    @domain_errors
    def refused() -> None:
        raise StoreError("sessions/x.db: the session file is locked\nby another process")

    @domain_errors
    def broken() -> None:
        raise RuntimeError("a bug, not a domain error")

    with pytest.raises(click.ClickException) as caught:
        refused()
    assert "\n" not in caught.value.message and "locked" in caught.value.message
    with pytest.raises(RuntimeError):
        broken()
