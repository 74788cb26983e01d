"""The session store: one SQLite file per session, behind a typed API (the only SQL in annotate)."""

from annotate.store.health import SessionFileError
from annotate.store.store import AddResult, ItemConflict, Progress, StaleAssignment, Store, StoreError, utc_now

__all__ = [
    "AddResult", "ItemConflict", "Progress", "SessionFileError", "StaleAssignment", "Store", "StoreError", "utc_now",
]
