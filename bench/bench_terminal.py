"""The annotator's key path measured from outside, in a real terminal, optionally on a busy host.

`annotate start` runs in tmux (a private server, 160x48). For each item the benchmark sends `1`
(Left better) and then `Enter`, and polls `tmux capture-pane` until the next item's first words
show: the time from sending Enter to seeing them is the key-to-screen latency an annotator feels.
The prompt of every item starts with a unique marker (`Q00042`), so the poll knows which item is
on screen. Launch is the time from starting the tmux window to the first item's marker showing.

tmux's own cost (send-keys, the pane's redraw, capture-pane) is measured in the same run by a
trivial baseline: a shell loop that prints a marker as soon as it reads a key. Its median is
printed, and subtracted nowhere: the figures are what an annotator sees.

Paces:
- `annotator`: before each key, wait 0.5 s (the read-ahead and rendering of the next items finish,
  as when someone reads for a few seconds);
- `rapid`: send the next key the moment the item shows (nothing read or rendered ahead).

`--busy` runs one competing busy process per core (pure CPU loops, nice 0) during the whole run,
as when many annotators share a host over ssh.

Launch is measured on a warmed install: annotate's `.pyc` files are compiled before the first
launch (`warm_install`), as `pip install` does for a wheel. Without them (an editable install run
with PYTHONDONTWRITEBYTECODE set, as on the benchmark host) every launch compiles annotate's ~300
modules again, which is not what an annotator waits for. `--cold` leaves them as they are.

    python bench/bench_terminal.py                       # 10k and 50k characters, both paces, idle
    python bench/bench_terminal.py --busy                # the same with every core busy
    python bench/bench_terminal.py --sizes 10000 --items 40
    python bench/bench_terminal.py --busy --launches 8 --baseline /work/wt/old   # launch only, alternately

`--launches N` measures only the launch, N times: the time to the first item's marker and the app's
CPU by then (the whole process, and its main thread, from schedstat), then `q`. With `--baseline DIR`
(a checkout of other code with its own `.venv`) each round launches the other code too, alternately
in the same run, on the same session; the medians of both and their ratio are printed. A first start
(no answer yet: the guideline opens beside the panes) and a resumed one are measured in turn.

Targets (issue 15): in busy mode p95 <= 50 ms at 10k (annotator pace), <= 100 ms at 50k (rapid),
launch <= 0.7 s.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_tui import markdown_doc, percentile  # noqa: E402

from annotate.model import Item, Message, Response  # noqa: E402
from annotate.plan import ensure_queue  # noqa: E402
from annotate.session import create_session, load_session, open_store  # noqa: E402

WIDTH, HEIGHT = 160, 48
POLL_S = 0.001


class Tmux:
    def __init__(self) -> None:
        self.socket = f"annotate-bench-{os.getpid()}"

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True).stdout

    def open(self, name: str, command: str, cwd: Path) -> int:
        self.run("-f", "/dev/null", "new-session", "-d", "-s", name, "-x", str(WIDTH), "-y", str(HEIGHT),
                 f"cd '{cwd}' && exec env TERM=xterm-256color {command}")
        return int(self.run("list-panes", "-t", name, "-F", "#{pane_pid}").split()[0])

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-t", name)

    def keys(self, name: str, *keys: str) -> None:
        self.run("send-keys", "-t", name, *keys)

    def wait_for(self, name: str, text: str, timeout: float = 30.0) -> float:
        """Poll until `text` is on screen; the monotonic time it was first seen."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.screen(name):
                return time.monotonic()
            time.sleep(POLL_S)
        raise TimeoutError(f"{text!r} not on screen after {timeout} s:\n{self.screen(name)}")

    def close(self) -> None:
        self.run("kill-server")


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def busy_host(enabled: bool) -> Iterator[int]:
    """One CPU-bound process per core while the block runs; yields how many."""
    if not enabled:
        yield 0
        return
    procs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(os.cpu_count() or 1)]
    for p in procs:
        p.start()
    try:
        yield len(procs)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.join()


def make_session(folder: Path, chars: int, n: int) -> None:
    spec = create_session("bench", "pairwise", seed=5, folder=folder / "sessions")
    items = [
        Item(
            id=f"t-{chars}-{i:05d}", kind="pairwise",
            conversation=(Message("user", f"Q{i:05d} explain the sorting helper and its edge cases."),),
            responses=(Response("A", markdown_doc(chars, 2 * i), "model-a"),
                       Response("B", markdown_doc(chars, 2 * i + 1), "model-b")),
        )
        for i in range(n)
    ]
    with open_store(spec) as store:
        store.add_items(items)
        queue = ensure_queue(store, spec, "bench")
    order = [a.item_id for a in queue]
    (folder / "order.txt").write_text("\n".join(f"Q{int(i.rsplit('-', 1)[1]):05d}" for i in order))


def warm_install(root: Path = ROOT) -> int:
    """Compile annotate's modules to `.pyc` (beside the source, in `__pycache__`) so that launches
    read them instead of compiling the source; how many files were out of date is not reported by
    compileall, so the number of `.pyc` files found after is returned."""
    package = root / "annotate"
    compileall.compile_dir(str(package), quiet=1)
    return sum(1 for _ in package.rglob("*.cpython-*.pyc"))


def command(code: Path | None = None, annotator: str = "bench") -> str:
    """`annotate start` of this checkout's install, or of the checkout `code` (its own `.venv`)."""
    python = Path(sys.executable) if code is None else code / ".venv" / "bin" / "python"
    annotate = python.with_name("annotate")
    runner = f"'{annotate}'" if annotate.exists() else f"'{python}' -m annotate"
    return f"{runner} start bench --annotator {annotator}"


def app_rss_mb(pid: int) -> float:
    """Peak resident memory of the app process so far (VmHWM), in MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def cpu_ms(pid: int) -> tuple[float, float]:
    """(the main thread's, the whole process's) CPU time so far in ms, from the scheduler's own
    nanosecond counters (/proc/PID/task/TID/schedstat): a figure the host's load does not inflate."""
    main = total = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            ns = int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that just ended
        total += ns / 1e6
        if task.name == str(pid):
            main = ns / 1e6
    return main, total


def end_app(pid: int, wait_s: float = 15.0) -> None:
    """Wait for the app to finish its queued writes and exit (tmux is gone); end it if it does not,
    so that no run leaves a process behind on the host."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists():
            return
        time.sleep(0.1)
    print(f"  (the app, pid {pid}, was still running {wait_s:.0f} s after its terminal closed: ended)")
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, 15)


def measure(folder: Path, chars: int, n: int, pace: str) -> dict[str, float | list[float]]:
    """Launch, key-to-screen latencies, and per item: CPU (main thread and process) from Enter to the
    next item seen, and (annotator pace) the bytes the app wrote to the terminal for `1`, Enter and
    the next item (tmux pipe-pane)."""
    markers = (folder / "order.txt").read_text().split("\n")
    term = Tmux()
    output = folder / f"pane-{pace}.out"
    pid = 0
    try:
        started = time.monotonic()
        pid = term.open("app", command(), folder)
        term.run("pipe-pane", "-t", "app", f"cat >> '{output}'")
        shown = term.wait_for("app", markers[0])
        launch = shown - started
        term.keys("app", "g")  # the guideline opens beside the panes on a first item: close it
        time.sleep(0.5)
        latencies: list[float] = []
        main_cpu: list[float] = []
        process_cpu: list[float] = []
        written: list[float] = []
        for k in range(1, min(n, len(markers))):
            if pace == "annotator":
                time.sleep(0.5)
            bytes_before = output.stat().st_size if output.exists() else 0
            term.keys("app", "1")
            main_before, total_before = cpu_ms(pid)
            sent = time.monotonic()
            term.keys("app", "Enter")
            latencies.append((term.wait_for("app", markers[k]) - sent) * 1000)
            main_after, total_after = cpu_ms(pid)
            main_cpu.append(main_after - main_before)
            process_cpu.append(total_after - total_before)
            if pace == "annotator":
                time.sleep(0.2)  # let the item's output reach the file (not the read-ahead's: nothing painted)
                written.append((output.stat().st_size - bytes_before) / 1024)
        rss = app_rss_mb(pid)
        term.keys("app", "q")
        time.sleep(0.5)
    finally:
        term.close()
        if pid:
            end_app(pid)
    return {"launch_ms": launch * 1000, "latencies": latencies, "rss_mb": rss, "main_cpu": main_cpu,
            "process_cpu": process_cpu, "written_kib": written}


def watch_output(fifo: Path, marker: str, seen: list[float]) -> None:
    """Read the pane's output from `fifo` (tmux pipe-pane) until `marker` passes; append the monotonic
    time it did to `seen`. The read blocks in the kernel: watching costs no CPU, unlike polling."""
    data = marker.encode()
    tail = b""
    with fifo.open("rb", buffering=0) as stream:
        while chunk := stream.read(65536):
            if data in tail + chunk:
                seen.append(time.monotonic())
                break
            tail = (tail + chunk)[-len(data):]


def launch_once(folder: Path, marker: str, code: Path | None, annotator: str, watch: str = "poll",
                ) -> tuple[float, float, float]:
    """One launch of `annotate start` in tmux: (ms to `marker` on screen, the process's CPU ms and its main
    thread's by then); then `q`, and the app is waited for.

    `watch`: "poll" polls capture-pane every POLL_S, as the key path is measured (the poll is itself a
    busy process: a tmux client every millisecond); "pipe" reads the pane's output through a FIFO and
    takes the time the marker passes (no CPU while waiting), then checks the screen shows it."""
    import threading

    term = Tmux()
    pid = 0
    fifo = folder / f"launch-{os.getpid()}.fifo"
    try:
        seen: list[float] = []
        reader = None
        if watch == "pipe":
            os.mkfifo(fifo)
            reader = threading.Thread(target=watch_output, args=(fifo, marker, seen), daemon=True)
            reader.start()
        started = time.monotonic()
        pid = term.open("app", command(code, annotator), folder)
        if reader is not None:
            term.run("pipe-pane", "-t", "app", f"cat > '{fifo}'")
            reader.join(30)
            if not seen:
                raise TimeoutError(f"{marker!r} not in the output after 30 s:\n{term.screen('app')}")
            main_cpu, total_cpu = cpu_ms(pid)
            term.wait_for("app", marker)  # and on screen
            shown = seen[0]
        else:
            shown = term.wait_for("app", marker)
            main_cpu, total_cpu = cpu_ms(pid)
        term.keys("app", "q")
        time.sleep(0.3)
    finally:
        term.close()
        if pid:
            end_app(pid)
        fifo.unlink(missing_ok=True)
    return (shown - started) * 1000, total_cpu, main_cpu


def measure_launches(folder: Path, rounds: int, baseline: Path | None, watch: str = "poll") -> None:
    """`--launches`: launch only, `rounds` times each of a first start and a resumed one, this code and (with
    `baseline`) the other alternately; medians of wall clock and CPU to the first item."""
    marker = "explain the sorting helper"  # every item's prompt (each annotator has an order of their own)
    codes: list[tuple[str, Path | None]] = [("new", None)] + ([("old", baseline)] if baseline else [])
    got: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for r in range(rounds):
        order = codes if r % 2 == 0 else codes[::-1]
        for start, annotator in (("first start", f"fresh{r}"), ("resumed", "bench")):
            for name, code in order:
                got.setdefault((start, name), []).append(launch_once(
                    folder, marker, code, f"{annotator}{name}" if start == "first start" else annotator, watch))
    for start in ("first start", "resumed"):
        medians = {}
        for name, _code in codes:
            runs = got[(start, name)]
            medians[name] = [statistics.median(r[i] for r in runs) for i in range(3)]
            walls = " ".join(f"{r[0]:.0f}" for r in runs)
            print(f"  launch {start:<12} {name}: median {medians[name][0]:6.0f} ms wall, CPU {medians[name][1]:5.0f} ms"
                  f" (main thread {medians[name][2]:5.0f} ms); each: {walls}")
        if baseline:
            new, old = medians["new"], medians["old"]
            print(f"  launch {start:<12} new / old: wall x{new[0] / old[0]:.2f}, CPU x{new[1] / old[1]:.2f}")


def tmux_baseline(rounds: int = 40) -> list[float]:
    """Key sent -> marker visible for a shell loop that echoes a marker per key: tmux's own cost."""
    term = Tmux()
    try:
        script = 'i=0; while read -rsn1 k; do i=$((i+1)); echo "MARK$i"; done'
        term.open("base", f"bash -c '{script}'", Path.cwd())
        time.sleep(0.3)
        out = []
        for i in range(1, rounds + 1):
            sent = time.monotonic()
            term.keys("base", "x")
            out.append((term.wait_for("base", f"MARK{i}") - sent) * 1000)
        return out
    finally:
        term.close()


def line(name: str, values: list[float]) -> str:
    return (f"  {name:<34} n={len(values):<4} median {statistics.median(values):7.1f} ms"
            f"   p95 {percentile(values, 95):7.1f} ms   max {max(values):7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,50000", help="characters per response, comma-separated")
    parser.add_argument("--items", type=int, default=60, help="items per size")
    parser.add_argument("--busy", action="store_true", help="one competing busy process per core")
    parser.add_argument("--paces", default="annotator,rapid")
    parser.add_argument("--cold", action="store_true", help="do not compile annotate's .pyc files first")
    parser.add_argument("--launches", type=int, default=0, metavar="N",
                        help="measure only the launch, N rounds (a first start and a resumed one each)")
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="with --launches: also launch the checkout DIR (its own .venv), alternately")
    parser.add_argument("--launch-watch", choices=("poll", "pipe"), default="poll",
                        help="with --launches: poll the screen every ms (as the key path) or read the pane's"
                             " output through a FIFO (no CPU spent watching)")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed")
    warmed = "" if args.cold else f"warmed install ({warm_install()} .pyc files of annotate)"
    if args.baseline and not args.cold:
        warm_install(args.baseline.resolve())
    sizes = [int(s) for s in args.sizes.split(",")]
    with busy_host(args.busy) as busy:
        print(f"annotate in a real terminal (tmux {WIDTH}x{HEIGHT}), {os.cpu_count()} cores,"
              f" {'busy: ' + str(busy) + ' competing processes' if busy else 'idle host'};"
              f" load average before: {os.getloadavg()[0]:.2f}")
        if args.launches:
            with tempfile.TemporaryDirectory() as tmp:
                make_session(Path(tmp), sizes[0], 10)
                print(f"  launch watched by {args.launch_watch}")
                measure_launches(Path(tmp), args.launches, args.baseline.resolve() if args.baseline else None,
                                 args.launch_watch)
            print(f"load average after: {os.getloadavg()[0]:.2f}" + (f"; launch: {warmed}" if warmed else ""))
            return
        base = tmux_baseline()
        print(line("tmux baseline (key -> echo shown)", base))
        results = {}
        for chars in sizes:
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                make_session(folder, chars, args.items)
                for pace in args.paces.split(","):
                    got = measure(folder, chars, args.items, pace)
                    results[(chars, pace)] = got
                    print(line(f"key_to_screen_{chars}_{pace}", got["latencies"]))  # type: ignore[arg-type]
                    print(line("  CPU main thread, key -> seen", got["main_cpu"]))  # type: ignore[arg-type]
                    print(line("  CPU process, key -> seen", got["process_cpu"]))  # type: ignore[arg-type]
                    if got["written_kib"]:
                        print(line("  KiB written to the terminal/item", got["written_kib"]).replace(" ms", "   "))  # type: ignore[arg-type]
                    print(f"  {'launch_to_first_item_' + str(chars) + '_' + pace:<34} {got['launch_ms']:7.1f} ms"
                          f"   app peak RSS {got['rss_mb']:.0f} MB")
                    # the next pace starts a new sitting on the same session: resume at the first unanswered
                    with open_store(load_session(folder / "sessions" / "bench.toml")) as store:
                        store.db.execute("DELETE FROM events")
                        store.db.execute("DELETE FROM judgments")
                        store.db.conn.commit()
    if (10000, "annotator") in results:
        p95 = percentile(results[(10000, "annotator")]["latencies"], 95)  # type: ignore[arg-type]
        print(f"target p95 <= 50 ms at 10k: {'met' if p95 <= 50 else 'MISSED'} ({p95:.1f} ms)")
    if (50000, "rapid") in results:
        p95 = percentile(results[(50000, "rapid")]["latencies"], 95)  # type: ignore[arg-type]
        print(f"target p95 <= 100 ms at 50k rapid: {'met' if p95 <= 100 else 'MISSED'} ({p95:.1f} ms)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if warmed:
        print(f"launch: {warmed}")
    elif os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: --cold and PYTHONDONTWRITEBYTECODE is set: unless annotate's .pyc files exist, every launch"
              " compiles it")
    launches = [r["launch_ms"] for r in results.values()]
    print(f"target launch <= 0.7 s: {'met' if max(launches) <= 700 else 'MISSED'}"  # type: ignore[type-var]
          f" (max {max(launches):.0f} ms)")  # type: ignore[type-var]


if __name__ == "__main__":
    main()
