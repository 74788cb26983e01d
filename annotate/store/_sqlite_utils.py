"""sqlite-utils, imported without the pandas import it makes eagerly.

sqlite-utils imports pandas at module level only to map `pandas.Timestamp` to a TEXT column,
which annotate never passes it. Paying ~0.25 s of pandas on every start of the annotation screen
breaks the rule that starting the TUI does not pay for pandas (DESIGN.md section 2), so pandas
is hidden for the duration of that one import. Analysis and exports import pandas themselves,
normally, later.
"""

from __future__ import annotations

import sys


def _import_sqlite_utils():  # type: ignore[no-untyped-def]
    if "sqlite_utils" in sys.modules or "pandas" in sys.modules:
        import sqlite_utils

        return sqlite_utils
    sys.modules["pandas"] = None  # type: ignore[assignment]  # makes `import pandas` raise ImportError
    try:
        import sqlite_utils
    finally:
        del sys.modules["pandas"]
    return sqlite_utils


sqlite_utils = _import_sqlite_utils()
