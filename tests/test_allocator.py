"""`annotate.allocator.keep_large_blocks`: glibc's thresholds set on Linux (the report calls it), nothing elsewhere."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from annotate import allocator


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_the_thresholds_are_set_on_glibc() -> None:
    code = ("from annotate.allocator import keep_large_blocks; import numpy as np; assert keep_large_blocks();"
            " a = [np.ones(4_000_000) for _ in range(3)]; print(sum(x.sum() for x in a))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "12000000.0"


def test_nothing_is_done_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(allocator.sys, "platform", "darwin")
    assert allocator.keep_large_blocks() is False
