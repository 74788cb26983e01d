"""The store's own exception, apart so that every module of the store can raise it."""

from __future__ import annotations


class StoreError(Exception):
    """A write the store refused, or a session file it cannot use; nothing was written."""
