"""Running `annotate` commands in a child process under real restrictions: without the root
privilege to write files it does not own (tests run as root, which would ignore file permissions),
under a file-size limit, or with the session folder on a read-only mount.

One child runs a list of commands (through click's runner, so one interpreter start serves them
all) and reports, per command, its exit code, output and any exception that escaped as a traceback.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

_CHILD = """
import json, sys
from click.testing import CliRunner
from annotate.cli import main

done = []
for args in json.loads(sys.argv[1]):
    result = CliRunner().invoke(main, args, catch_exceptions=True)
    escaped = result.exception is not None and not isinstance(result.exception, SystemExit)
    done.append({"args": args, "code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr,
                 "traceback": repr(result.exception) if escaped else ""})
print(json.dumps(done))
"""

_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def _drop_file_privileges() -> None:
    """In the child before exec: as root, give up overriding file permissions (for good: the
    capabilities leave the bounding set, so the new program never has them)."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _file_size_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def require_permissions_apply(folder: Path) -> None:
    """Skip unless a child of this process is really refused a write to a read-only file."""
    probe = folder / ".probe"
    probe.write_bytes(b"")
    probe.chmod(0o444)
    try:
        done = subprocess.run([sys.executable, "-c", f"open({str(probe)!r}, 'a')"], preexec_fn=_drop_file_privileges,
                              capture_output=True, check=False)
    except OSError as exc:
        pytest.skip(f"cannot drop the privilege to override file permissions: {exc}")
    finally:
        probe.chmod(0o644)
        probe.unlink()
    if done.returncode == 0:
        pytest.skip("file permissions are not enforced for this user here")


def read_only_mount_command(folder: Path) -> list[str]:
    """A command prefix that runs the rest with `folder` bind-mounted read-only in a private mount
    namespace (needs `unshare` and the privilege to mount); skip the test when that is unavailable."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no unshare(1) here")
    script = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && exec "$@"'
    prefix = [unshare, "--mount", "--propagation", "private", "sh", "-c", script, str(folder)]
    probe = subprocess.run([*prefix, "sh", "-c", f'! touch "{folder}/.probe" 2>/dev/null'], capture_output=True,
                           check=False)
    if probe.returncode != 0:
        pytest.skip(f"cannot mount {folder} read-only here: {probe.stderr.decode(errors='replace')[:200]}")
    return prefix


def run_commands(
    commands: Sequence[Sequence[str]], cwd: Path, *, unprivileged: bool = False, file_size_limit: int | None = None,
    prefix: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Run each `annotate` command (arguments after `annotate`) in one child process in `cwd`."""
    setups = ([_drop_file_privileges] if unprivileged else []) + (
        [_file_size_limit(file_size_limit)] if file_size_limit is not None else [])

    def preexec() -> None:
        for setup in setups:
            setup()

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "200"}
    done = subprocess.run(
        [*prefix, sys.executable, "-c", _CHILD, json.dumps([list(c) for c in commands])], cwd=cwd, env=env,
        preexec_fn=preexec if setups else None, capture_output=True, text=True, check=False, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])
