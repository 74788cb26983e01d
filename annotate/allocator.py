"""Keeping the C allocator's large blocks for reuse during a long analysis (glibc only; elsewhere nothing).

A report on a million votes makes and drops thousands of numpy arrays of a few to a few tens of MB. glibc gives
each block past its mmap threshold (dynamic, from 128 KiB) pages of its own and returns them when freed, so
every new array is fresh pages, zeroed by the kernel on first touch: at the Arena's 1.67M battles some 6 s of
system time in a 34 s report. With the threshold fixed at `MMAP_THRESHOLD` such arrays come from the heap,
whose freed memory is kept (`TRIM_THRESHOLD`) for the next: half the system time, for some 60-110 MB more at
the peak (`bench_scale` prints both).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 1024 * 1024
"""The largest the threshold may be set to on 64-bit glibc (HEAP_MAX_SIZE / 2)."""
TRIM_THRESHOLD = 512 * 1024 * 1024
"""Freed memory at the heap's top kept for reuse before it is given back to the system."""


def keep_large_blocks() -> bool:
    """Set glibc's mmap and trim thresholds for this process (a long analysis: `annotate report`); whether
    they were set (False off Linux, or with another C library)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
