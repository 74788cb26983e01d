"""Pull the power cord on the real app: SIGKILL `annotate` mid-work, over and over, and start again.

Two ways, both through the app's own submit path (screens -> AnnotateApp.write_judgment -> the store
thread -> Store.submit), not a stand-in:

- `test_sigkill_the_app_at_random_moments`: the app runs headless under Textual's Pilot in a child
  process (tests/tui/scripted_annotator.py, forked from a server that has done the imports, so a
  start takes ~0.2 s), labelling, revising and skipping at random, and is killed at random moments,
  22 times over two sessions annotated side by side. After every kill: the file
  passes `PRAGMA integrity_check`; every write the app reported saved is there; what is stored is
  exactly the submits in order up to some point (writes land whole and in order; only writes still in
  flight at the kill may be missing, at most one); and the next start opens at the first item without
  an answer.
- `test_kill_9_in_a_real_terminal`: a new user's view. `annotate start` in tmux; judge, see `Saved`,
  choose a label on the next item without submitting, `kill -9` the process, start again: the screen
  resumes at that item and every submitted answer is in the file.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from annotate.model import Item, Message, Response
from annotate.plan import ensure_queue
from annotate.session import create_session, open_store
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.tui import make_app

SCRIPT = Path(__file__).with_name("scripted_annotator.py")
SESSIONS = 2
"""Sessions annotated side by side (one process each), so the kills take less wall time."""
ROUNDS = 11
"""Kills per session: 2 x 11 = 22 kills."""


def items(n: int) -> list[Item]:
    return [
        Item(id=f"k{k:04d}", kind="pairwise", conversation=(Message("user", f"Question {k}?"),),
             responses=(Response("A", f"Answer A{k}\n\n" + "More text. " * 40, "m-a"),
                        Response("B", f"Answer B{k}", "m-b")))
        for k in range(n)
    ]


def new_session(folder: Path, n_items: int = 300) -> SessionSpec:
    spec = create_session("kill", "pairwise", seed=3, folder=folder / "sessions")
    with open_store(spec) as store:
        store.add_items(items(n_items))
        ensure_queue(store, spec, "alice")
    return spec


def stored_answers(store: Store) -> dict[int, str]:
    """Position -> current label (`skip` for a skip) of alice's queue."""
    positions = {a.id: a.position for a in store.assignments("alice")}
    return {positions[j.assignment_id]: "skip" if j.skipped else str(j.label) for j in store.judgments("alice")}


def replay(submits: list[tuple[int, str]]) -> dict[int, str]:
    state: dict[int, str] = {}
    for position, label in submits:
        state[position] = label
    return state


@dataclass
class Run:
    """What one session has been through: every submit that landed, in order, across runs."""

    spec: SessionSpec
    landed: list[tuple[int, str]] = field(default_factory=list)
    kills: int = 0
    lost_in_flight: int = 0
    saved_reports: int = 0

    def expected_resume(self) -> int:
        done = replay(self.landed)
        return next(p for p in range(len(done) + 1) if p not in done)

    def check_after_kill(self, output: str) -> None:
        """The file after a kill matches what the killed app said (see the module docstring)."""
        lines = [line.split() for line in output.splitlines() if line.strip()]
        assert lines and lines[0][0] == "ready", output[:300]
        assert int(lines[0][1]) == self.expected_resume(), "the app did not resume at the first unfinished item"
        submits: list[tuple[int, str]] = []
        confirmed = 0
        """How many of this run's submits the app reported saved (writes land in order)."""
        seen_saves: dict[int, int] = {}
        for words in lines[1:]:
            if words[0] == "submit":
                submits.append((int(words[1]), words[2]))
            elif words[0] == "saved":
                position = int(words[1])
                seen_saves[position] = seen_saves.get(position, 0) + 1
                # the k-th `saved p` confirms the k-th submit of p in this run
                nth = [i for i, (p, _) in enumerate(submits) if p == position]
                assert len(nth) >= seen_saves[position], f"saved {position} before it was submitted"
                confirmed = max(confirmed, nth[seen_saves[position] - 1] + 1)
                self.saved_reports += 1
        with Store.open(self.spec.db) as store:
            assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            stored = stored_answers(store)
            rows = len(store.judgments("alice", include_superseded=True))
        # The file holds exactly the earlier runs' writes plus a prefix of this run's submits, and that
        # prefix covers every submit the app reported saved.
        for length in range(confirmed, len(submits) + 1):
            if replay(self.landed + submits[:length]) == stored:
                break
        else:
            raise AssertionError(
                f"after kill {self.kills + 1}: the file matches no prefix of the submits that covers the "
                f"{confirmed} reported saved; stored {len(stored)} answers, submits {submits[-5:]}"
            )
        assert rows == len(self.landed) + length, "a submit is one row; no row half-written or duplicated"
        self.lost_in_flight += len(submits) - length
        assert len(submits) - length <= 1, f"lost {len(submits) - length} submits: more than the one in flight"
        self.landed += submits[:length]
        self.kills += 1


class ForkServer:
    """scripted_annotator.py --serve: forks one app process per sitting (see its docstring)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(SCRIPT), "--serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.children: set[int] = set()

    def ask(self, *words: object) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(" ".join(str(w) for w in words) + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def start(self, spec: SessionSpec, seed: int, out: Path) -> int:
        """Start a sitting on `spec`, its lines going to `out`; its pid."""
        pid = int(self.ask("run", spec.path, seed, out))
        self.children.add(pid)
        return pid

    @staticmethod
    def wait_ready(out: Path) -> None:
        """Wait until the sitting writing to `out` shows an item."""
        deadline = time.monotonic() + 30
        while not out.exists() or not out.read_text().startswith("ready"):
            assert time.monotonic() < deadline, f"the app did not start: {out.with_suffix('.out.err')}"
            time.sleep(0.005)

    def reap(self, pid: int) -> int:
        """Wait for a child to end; its raw wait status."""
        self.children.discard(pid)
        return int(self.ask("wait", pid))

    def close(self) -> None:
        for pid in self.children:  # left running by a failed check
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def test_sigkill_the_app_at_random_moments(tmp_path: Path) -> None:
    rng = random.Random(20261130)
    runs = [Run(new_session(tmp_path / f"p{n}")) for n in range(SESSIONS)]
    server = ForkServer()
    try:
        round_ = 0  # on a loaded host fewer answers land before a kill: go on until 20 have, within a bound
        while round_ < ROUNDS or (sum(run.saved_reports for run in runs) < 20 and round_ < 3 * ROUNDS):
            round_ += 1
            outs = [tmp_path / f"p{n}" / f"round{round_}.out" for n in range(len(runs))]
            pids = [server.start(run.spec, rng.randrange(1 << 30), out) for run, out in zip(runs, outs, strict=True)]
            for out in outs:
                server.wait_ready(out)
            began = time.monotonic()  # every app is up and working: kill each at a random moment from here
            for delay, n in sorted((rng.uniform(0.0, 0.7), n) for n in range(len(pids))):
                time.sleep(max(0.0, began + delay - time.monotonic()))
                os.kill(pids[n], signal.SIGKILL)
            for run, pid, out in zip(runs, pids, outs, strict=True):
                status = server.reap(pid)
                assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (
                    f"round {round_}: the app ended by itself: {out.with_suffix('.out.err').read_text()[-2000:]}")
                run.check_after_kill(out.read_text())
        assert sum(run.kills for run in runs) >= 20
        assert all(run.landed for run in runs), "the app never got to save anything"
        assert sum(run.saved_reports for run in runs) >= 20
        # One more start after the last kill: the app opens at the first unfinished item.
        for n, run in enumerate(runs):
            out = tmp_path / f"p{n}" / "last.out"
            pid = server.start(run.spec, 0, out)
            server.wait_ready(out)
            os.kill(pid, signal.SIGKILL)
            server.reap(pid)
            assert out.read_text().split("\n")[0] == f"ready {run.expected_resume()}"
    finally:
        server.close()


# -- a new user's view: kill -9 `annotate start` in a real terminal ---------------------------------


class Tmux:
    """A private tmux server (its own socket) running one command in a 100x30 window."""

    def __init__(self, folder: Path) -> None:
        self.socket = f"annotate-kill-{os.getpid()}"
        self.folder = folder

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10).stdout

    def open(self, name: str, command: str) -> int:
        """Start `command` (exec'd, so the pane's process is the app) in window `name`; its pid."""
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", name, "-x", "100", "-y", "30",
                  f"cd '{self.folder}' && exec env TERM=xterm-256color {command}")
        return int(self.tmux("list-panes", "-t", name, "-F", "#{pane_pid}").split()[0])

    def screen(self, name: str) -> str:
        return self.tmux("capture-pane", "-p", "-t", name)

    def keys(self, name: str, *keys: str) -> None:
        self.tmux("send-keys", "-t", name, *keys)

    def wait_for(self, name: str, text: str, seconds: float = 20) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            screen = self.screen(name)
            if text in screen:
                return screen
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {text!r}; screen:\n{self.screen(name)}")

    def close(self) -> None:
        self.tmux("kill-server")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_kill_9_in_a_real_terminal(tmp_path: Path) -> None:
    spec = new_session(tmp_path, n_items=12)
    annotate = Path(sys.executable).with_name("annotate")
    command = f"'{annotate}' start kill --annotator alice" if annotate.exists() else (
        f"'{sys.executable}' -m annotate start kill --annotator alice")
    term = Tmux(tmp_path)
    submitted = 0
    try:
        for sitting in range(2):
            name = f"sitting{sitting}"
            pid = term.open(name, command)
            term.wait_for(name, f"Item {submitted + 1} of 12")
            if sitting == 0:  # a first item: the guideline covers the responses (answer keys close it)
                term.wait_for(name, "both responses are behind it")
                term.keys(name, "g")
            for _ in range(2):  # judge two items and see each saved
                term.keys(name, str(1 + submitted % 4), "Enter")
                submitted += 1
                term.wait_for(name, f"{submitted} of 12 done")
                term.wait_for(name, "Saved")
            term.keys(name, "2")  # mid-item: a label chosen, not submitted
            term.wait_for(name, f"Item {submitted + 1} of 12")
            os.kill(pid, signal.SIGKILL)  # the power cord
            for _ in range(100):
                if not _alive(pid):
                    break
                time.sleep(0.02)
            with Store.open(spec.db) as store:
                assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
                assert len(store.judgments("alice")) == submitted
                assert store.progress("alice").next_position == submitted
        pid = term.open("after", command)
        screen = term.wait_for("after", f"Item {submitted + 1} of 12")
        assert f"{submitted} of 12 done" in screen
        term.keys("after", "q")
        for _ in range(150):
            if not _alive(pid):
                break
            time.sleep(0.02)
    finally:
        term.close()


async def test_saved_shows_once_the_write_lands_even_with_reads_still_queued(tmp_path: Path) -> None:
    """What the user trusts before pulling the cord: the progress line says `Saved` as soon as every
    write has landed, even while reads (read-ahead) still wait on the store thread. It used to wait
    for every queued call, reads included, and could say `Saving…` long after the judgment was safe."""
    spec = new_session(tmp_path, n_items=4)
    with Store.open(spec.db) as store:
        app = make_app(spec, store, "alice", open_guideline=False)
        before, after = threading.Event(), threading.Event()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            app.runner.call(before.wait, 10)  # hold the store thread so the order is certain
            await pilot.press("1", "enter")
            assert app.save_status == "Saving…"
            app.runner.call(after.wait, 10)  # a read queued behind the write
            before.set()
            for _ in range(100):
                await pilot.pause(0.01)
                if app.save_status != "Saving…":
                    break
            assert app.save_status == "Saved" and app.runner.pending == 1
            assert len(store.judgments("alice")) == 1
            after.set()


async def test_the_last_answer_saving_behind_the_finished_dialog_turns_saved(tmp_path: Path) -> None:
    """`Saving…` stuck on the finished screen: the progress line under the dialog (and the dialog's
    own line) follow the write of the last answer."""
    from textual.widgets import Static

    from annotate.tui.screens.finished import FinishedDialog
    from annotate.tui.widgets.progress_line import ProgressLine

    spec = new_session(tmp_path, n_items=1)
    with Store.open(spec.db) as store:
        app = make_app(spec, store, "alice", open_guideline=False)
        hold = threading.Event()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            app.runner.call(hold.wait, 10)  # the write waits, as behind another process's lock
            await pilot.press("1", "enter")
            await pilot.pause()
            assert isinstance(app.screen, FinishedDialog)
            line = app.screen_stack[-2].query_one(ProgressLine)
            text = str(app.screen.query_one("#finished-saved", Static).render())
            assert line.status == "Saving…" and "Saving your last answer" in text
            hold.set()
            for _ in range(100):
                await pilot.pause(0.01)
                if app.save_status == "Saved":
                    break
            await pilot.pause()
            assert line.status == "Saved"
            assert "Everything is saved" in str(app.screen.query_one("#finished-saved", Static).render())
