"""sqlite-utils, imported without the pandas and numpy imports it makes eagerly.

sqlite-utils imports pandas and numpy at module level only to map `pandas.Timestamp` and numpy's
scalar types to column types when it creates a table from sample rows, which annotate never asks
of it (every table is created with declared Python types, every row inserted holds plain Python
values). Paying ~0.25 s of pandas and ~0.1 s of numpy on every start of the annotation screen
breaks the rule that starting the TUI does not pay for them (DESIGN.md section 2), so both are
hidden for the duration of that one import. Analysis and exports import them themselves,
normally, later.
"""

from __future__ import annotations

import sys


def _import_sqlite_utils():  # type: ignore[no-untyped-def]
    hidden = [name for name in ("pandas", "numpy") if name not in sys.modules]
    if "sqlite_utils" in sys.modules or not hidden:
        import sqlite_utils

        return sqlite_utils
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import pandas` raise ImportError
    try:
        import sqlite_utils
    finally:
        for name in hidden:
            del sys.modules[name]
    return sqlite_utils


sqlite_utils = _import_sqlite_utils()
