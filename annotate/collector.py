"""Fewer passes of the cyclic garbage collector during a bulk command (an import of a file).

CPython looks for reference cycles after every 700 container objects (tuples, lists, dicts) allocated and not
yet freed, and looks through the older generations every tenth and hundredth pass. An import keeps a batch of
thousands of records, staged rows and facts alive at a time, so the young generation fills again and again
with objects that are freed by reference counting a moment later, none in a cycle, and each pass traverses the
live ones: at 1.67M Arena battles 28,666 passes, 10.7 s of the import's 150 s. With the first threshold at
`BULK_THRESHOLD` 40 passes, 0.04 s (400k battles: 28.5 s instead of 31.4 s, three runs each alternately, at the
same peak memory). The collector stays on: cycles (an exception's traceback, say) are still collected, only
70 times less often.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

BULK_THRESHOLD = 50_000
"""Container objects allocated between two passes over the youngest generation (CPython's default: 700)."""


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The youngest generation's threshold at BULK_THRESHOLD for the block, the other two as they were."""
    first, second, third = gc.get_threshold()
    gc.set_threshold(max(first, BULK_THRESHOLD), second, third)
    try:
        yield
    finally:
        gc.set_threshold(first, second, third)
