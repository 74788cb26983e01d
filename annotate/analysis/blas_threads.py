"""Batched small linear solves on one BLAS thread: faster, and the same figures on every host.

The Newton fits (`annotate.analysis.ranking`, `annotate.analysis.style_newton`) solve a batch of bootstrap
systems of K models each (129 for the Chatbot Arena) per step.  OpenBLAS splits each of these small
factorisations over its threads: on a host with other work its threads wait for each other (1,000 resamples
of the Arena's 129 models: 67 s of CPU against 15 s on one thread), and the split changes the order of the
sums, so the last bits of a rating depended on how many cores OpenBLAS found (a 2-core and an 8-core host
printed different JSON).  On one thread the factorisation is the same on every host.

`solve` is `numpy.linalg.solve` with the OpenBLAS that numpy loaded limited to one thread for the call, and
the thread count restored after.  Where numpy's BLAS is not OpenBLAS (or its library cannot be found) it is
`numpy.linalg.solve` as it is.  Large products (the style fits' features times rows) are left to BLAS's
threads: they gain from them.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

__all__ = ["one_thread", "solve", "thread_control"]

_SYMBOLS = (
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),  # numpy's wheels (ILP64)
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
    ("openblas_get_num_threads", "openblas_set_num_threads"),  # a system OpenBLAS
)


def _loaded_libraries() -> list[str]:
    """Paths of the shared libraries of this process whose name says OpenBLAS (Linux: /proc/self/maps)."""
    try:
        lines = Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return []
    paths = {line.split(maxsplit=5)[-1] for line in lines if "openblas" in line.lower() and "/" in line}
    return sorted(p for p in paths if p.startswith("/"))


@functools.cache
def thread_control() -> tuple[Callable[[], int], Callable[[int], None]] | None:
    """The (get, set) thread-count functions of the OpenBLAS numpy uses, or None when there is none to find."""
    np.linalg.solve(np.eye(2), np.ones(2))  # numpy loads its BLAS lazily on some builds: make sure it is mapped
    for path in _loaded_libraries():
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for get_name, set_name in _SYMBOLS:
            get, put = getattr(library, get_name, None), getattr(library, set_name, None)
            if get is not None and put is not None:
                get.restype, get.argtypes = ctypes.c_int, []
                put.restype, put.argtypes = None, [ctypes.c_int]
                return get, put
    return None


@contextmanager
def one_thread() -> Iterator[None]:
    """numpy's OpenBLAS on one thread inside the block (no change where it cannot be found)."""
    control = thread_control()
    if control is None:
        yield
        return
    get, put = control
    before = get()
    if before == 1:
        yield
        return
    put(1)
    try:
        yield
    finally:
        put(before)


def solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`numpy.linalg.solve` of a batch of small systems, on one BLAS thread (see the module docstring)."""
    with one_thread():
        return np.linalg.solve(a, b)
