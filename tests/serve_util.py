"""A real `annotate serve` on loopback for the serve tests and the benchmark, and headless Chromium.

`ServeProcess` starts `python -m annotate serve SPEC --port P` as its own process (as a lead
would), waits until it listens, keeps its standard error (the server's log) in a file, and stops
it with SIGINT. `planned_session` makes a pairwise session with items and a plan.

The browser is Debian's Chromium driven by Playwright through `executable_path`; Playwright's own
browser download is never used. `SCREEN_HOOK` is an init script that keeps a reference to the
page's xterm.js terminal (textual-serve's front-end draws on a canvas, so the text on screen is
read from the terminal's buffer: `screen_text(page)`).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from annotate.model import Item, Message, Response
from annotate.plan import Rates, apply_plan
from annotate.session import create_session, open_store
from annotate.spec import SessionSpec

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
    "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
]

SCREEN_HOOK = """
(() => {
  // textual.js assigns its xterm.js Terminal to `this.terminal` of its own object: keep it.
  Object.defineProperty(Object.prototype, "terminal", {
    configurable: true,
    set(value) {
      Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
      if (value && value.buffer && value.buffer.active) {
        window.__terminal = value;
      }
    },
  });
  window.__screen = () => {
    const terminal = window.__terminal;
    if (!terminal) return "";
    const buffer = terminal.buffer.active;
    const rows = [];
    for (let y = 0; y < terminal.rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      rows.push(line ? line.translateToString(true) : "");
    }
    return rows.join("\\n");
  };
  // Key-to-paint: when a key reaches the page (keydown, capture), and then the first animation
  // frame after the one in which the terminal holds `text` (so that frame has been painted).
  window.__keyAt = null;
  window.addEventListener("keydown", () => { window.__keyAt = performance.now(); }, true);
  window.__paintedAfterKey = (text, timeoutMs) => new Promise((resolve, reject) => {
    const started = performance.now();
    const check = () => {
      if (window.__screen().includes(text)) {
        requestAnimationFrame(() => resolve(performance.now() - window.__keyAt));
      } else if (performance.now() - started > timeoutMs) {
        reject(new Error("not on screen: " + text));
      } else {
        requestAnimationFrame(check);
      }
    };
    check();
  });
})();
"""


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; .ci/run installs it)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    return None


def launch_chromium(playwright: Any) -> Any:
    """Debian's Chromium, headless (Playwright's `launch` gives it a new empty profile folder)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


def screen_text(page: Any) -> str:
    return str(page.evaluate("() => window.__screen ? window.__screen() : ''"))


def wait_for_screen(page: Any, text: str, timeout_s: float = 60.0) -> None:
    """Wait until `text` is on the page's terminal (a predicate function: the pages allow no eval)."""
    page.wait_for_function("(text) => window.__screen && window.__screen().includes(text)", arg=text,
                           timeout=timeout_s * 1000)


def make_items(n: int) -> list[Item]:
    return [
        Item(id=f"i{k:03d}", kind="pairwise", conversation=(Message("user", f"Question number {k:03d}?"),),
             responses=(Response("A", f"Answer A to {k:03d}.", "m-a"), Response("B", f"Answer B to {k:03d}.", "m-b")))
        for k in range(n)
    ]


def planned_session(folder: Path, annotators: list[str], items: int = 6, overlap: int | None = None) -> SessionSpec:
    """A pairwise session `s` under `folder/sessions` with `items` items, planned for `annotators`."""
    spec = create_session("s", "pairwise", seed=3, folder=folder / "sessions")
    with open_store(spec) as store:
        store.add_items(make_items(items))
        apply_plan(store, spec, annotators, overlap or len(annotators), Rates(), 5)
    return spec


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServeProcess:
    """`annotate serve` running in a process of its own, on 127.0.0.1 and a free port."""

    def __init__(self, spec: SessionSpec, log_dir: Path, *extra: str, port: int | None = None) -> None:
        self.spec = spec
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_dir / "serve.log"
        self.out_path = log_dir / "serve.out"
        self.extra = extra
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ServeProcess:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("ANNOTATE_ANNOTATOR", None)
        self._log = self.log_path.open("wb")
        self._out = self.out_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "annotate", "serve", str(self.spec.path), "--port", str(self.port), *self.extra],
            stdout=self._out, stderr=self._log, stdin=subprocess.DEVNULL, cwd=self.spec.project_dir, env=env,
        )
        deadline = time.monotonic() + 30
        while "serving session" not in self.out_path.read_text(errors="replace"):
            if self.process.poll() is not None:
                raise RuntimeError(f"annotate serve exited with {self.process.returncode}:\n{self.log()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"annotate serve did not start:\n{self.log()}")
            time.sleep(0.05)
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") + self.out_path.read_text(errors="replace")

    def stop(self, timeout: float = 60) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        self._out.close()
        return self.process.returncode

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def children(self) -> list[int]:
        """Pids of the app processes the server started (one per connected browser)."""
        assert self.process is not None
        return [pid for pid in _all_pids() if _ppid(pid) == self.process.pid]


def _all_pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _ppid(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return -1
    return int(stat.rsplit(")", 1)[1].split()[1])


def proc_status(pid: int, field: str) -> int:
    """A kB figure from /proc/PID/status (VmRSS, VmHWM), 0 when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0
