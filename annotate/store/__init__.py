"""The session store: one SQLite file per session, behind a typed API (the only SQL in annotate)."""

from annotate.store.store import AddResult, ItemConflict, Progress, StaleAssignment, Store, StoreError, utc_now

__all__ = ["AddResult", "ItemConflict", "Progress", "StaleAssignment", "Store", "StoreError", "utc_now"]
