"""A SIGCONT that follows no suspend must not bring application mode back (`annotate.tui.terminal_driver`).

When the terminal goes away the kernel sends the session's leader SIGHUP and SIGCONT. Textual's own
driver took every SIGCONT as "back from Ctrl+Z" and started new input and output threads on the
terminal, even while the app was being taken down; its input thread is not a daemon, so the process
never ended (on a dead terminal it read end-of-file in a busy loop). The child here runs a real app
in a real pseudo-terminal and sends itself SIGCONT while the app stops: it must still end. And a
SIGCONT after a suspend (Ctrl+Z) must still bring the app back.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from textual import constants
from textual.drivers.linux_driver import LinuxDriver

from annotate.tui.terminal_driver import TerminalDriver, terminal_driver_class
from annotate.tui.web_driver import BrowserDriver

CHILD = """
import os, signal, sys, time
from textual.app import App
from annotate.tui.terminal_driver import TerminalDriverChoice

class Tiny(TerminalDriverChoice, App[None]):
    def on_mount(self) -> None:
        self.set_timer(0.2, self.exit)

    def on_unmount(self) -> None:
        # While the app is taken down, as when the terminal goes away just after `q`.
        os.kill(os.getpid(), signal.SIGCONT)
        time.sleep(0.3)

app = Tiny()
app.run()
print("driver", app.driver_class.__name__, flush=True)
print("stopped", flush=True)
"""


SUSPEND_CHILD = """
import sys
from pathlib import Path
from textual.app import App
from annotate.tui.terminal_driver import TerminalDriverChoice

marker = Path(sys.argv[1])

class Tiny(TerminalDriverChoice, App[None]):
    def on_mount(self) -> None:
        self.app_resume_signal.subscribe(self, self.resumed)
        self.set_timer(0.3, self.action_suspend_process)  # as Ctrl+Z: SIGTSTP, then the process stops

    def resumed(self, _app: App) -> None:
        marker.write_text("resumed")
        self.exit()

Tiny().run()
"""


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def _run_in_pty(args: list[str], cwd: Path) -> tuple[subprocess.Popen[bytes], int, list[bytes]]:
    master, slave = os.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    env.pop("TEXTUAL_DRIVER", None)
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, start_new_session=True, env=env, cwd=cwd)
    os.close(slave)
    out: list[bytes] = []
    threading.Thread(target=_drain, args=(master, out), daemon=True).start()
    return proc, master, out


def test_after_a_suspend_sigcont_still_resumes_the_app(tmp_path: Path) -> None:
    marker = tmp_path / "resumed"
    proc, master, out = _run_in_pty([sys.executable, "-c", SUSPEND_CHILD, str(marker)], tmp_path)
    try:
        deadline = time.monotonic() + 20
        while _state(proc.pid) != "T":
            assert proc.poll() is None and time.monotonic() < deadline, b"".join(out).decode(errors="replace")[-2000:]
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGCONT)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        time.sleep(0.05)
        os.close(master)
    assert proc.returncode == 0 and marker.read_text() == "resumed", b"".join(out).decode(errors="replace")[-2000:]


def _drain(master: int, out: list[bytes]) -> None:
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            return
        if not data:
            return
        out.append(data)


def test_a_sigcont_after_the_app_stopped_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    master, slave = os.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    env.pop("TEXTUAL_DRIVER", None)
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True, env=env, cwd=tmp_path)
    os.close(slave)
    out: list[bytes] = []
    reader = threading.Thread(target=_drain, args=(master, out), daemon=True)
    reader.start()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("the process did not end after a SIGCONT that followed no suspend") from None
    finally:
        time.sleep(0.05)
        os.close(master)
    text = b"".join(out).decode(errors="replace")
    assert proc.returncode == 0, text[-2000:]
    assert "driver TerminalDriver" in text and "stopped" in text


def test_the_terminal_driver_replaces_only_textuals_linux_driver(monkeypatch) -> None:
    assert terminal_driver_class(LinuxDriver) is TerminalDriver
    assert terminal_driver_class(BrowserDriver) is BrowserDriver
    from annotate.tui.notice import NoticeApp

    monkeypatch.setattr(constants, "DRIVER", None)
    assert NoticeApp("x").get_driver_class() is TerminalDriver
    monkeypatch.setattr(constants, "DRIVER", "annotate.tui.web_driver:BrowserDriver")
    assert NoticeApp("x").get_driver_class() is BrowserDriver
