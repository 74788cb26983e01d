"""Many annotators in browsers at once: `annotate serve` with 20 simultaneous annotators.

Starts the real `annotate serve` on loopback over a generated pairwise session planned for N
annotators (default 20, overlap 2, K items each, default 10), then runs all N at the same time,
each on its own private link:

- `--browsers B` of them (default: all N) are real pages of Debian's headless Chromium driven by
  Playwright, each in a browser context of its own (its own cookie, like separate people's
  browsers); they type keys into textual-serve's front-end;
- the others are websocket clients speaking textual-serve's protocol as textual.js does (JSON
  envelopes such as ["stdin", "1"] in, the terminal's bytes out), for a load whose browsers run
  elsewhere, as they do in real use: on this benchmark's machine N Chromium pages compete with the
  server for the same 2 cores, which no real deployment does.

Each annotator waits for its first item, closes the guideline, and judges its K items (a label key,
then Enter), pausing a random think time before each (`--think`, default 0.5-1.5 s; 0 0: as fast
as keys go), then quits.

Printed: judgments written against expected (nothing may be lost) and that all came from browser
sittings; memory of each annotator's app process (RSS sampled every 0.25 s, and its peak VmHWM),
of all app processes together (PSS), of the server, of Chromium (PSS of all its processes); CPU
seconds used by the apps, the server and Chromium; key-to-paint in the browser (from the Enter
keydown reaching the page to the first animation frame after the one in which the page's terminal,
read from its xterm.js buffer, holds the next item's text: that frame has painted it) and, for the
websocket clients, from Enter sent to the next item's text received; link to first item.

    python bench/bench_serve.py                          # 20 annotators, all in Chromium pages
    python bench/bench_serve.py --browsers 2             # 20 annotators, 2 in Chromium, 18 over websockets
    python bench/bench_serve.py --annotators 4 --items 20 --think 0 0

Needs /usr/bin/chromium (Debian's `chromium` package) and Playwright for Python (the test extra).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from serve_util import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    SCREEN_HOOK,
    ServeProcess,
    chromium_missing,
    planned_session,
    proc_status,
)

from annotate.session import open_store  # noqa: E402
from annotate.store.links import issue_link  # noqa: E402

TIMEOUT_S = 300
"""How long one step of one annotator may take before the run is called failed (a loaded machine is slow)."""
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Results:
    page_paints: list[float] = field(default_factory=list)
    """ms, Enter keydown in a page -> next item painted."""
    socket_paints: list[float] = field(default_factory=list)
    """ms, Enter sent by a websocket client -> next item's text received."""
    firsts: list[float] = field(default_factory=list)
    """s, link opened -> first item on screen."""


class Sampler(threading.Thread):
    """Samples memory and CPU time of the app processes, the server and Chromium until stopped."""

    def __init__(self, server: ServeProcess, every_s: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.every_s = every_s
        self.rss: dict[int, int] = {}
        """Largest RSS (kB) seen per app process."""
        self.hwm: dict[int, int] = {}
        """Largest VmHWM (peak RSS, kB) read per app process."""
        self.apps_pss_peak = 0
        """Largest sum of all app processes' PSS (kB) at one moment."""
        self.server_peak = 0
        self.chromium_peak = 0
        self.most_at_once = 0
        self.cpu: dict[str, dict[int, float]] = {"apps": {}, "server": {}, "chromium": {}}
        """Last CPU seconds (user + system) seen per process, by kind."""
        self._halt = threading.Event()

    def run(self) -> None:
        assert self.server.process is not None
        server_pid = self.server.process.pid
        while not self._halt.is_set():
            children = self.server.children()
            self.most_at_once = max(self.most_at_once, len(children))
            total = 0
            for pid in children:
                rss = proc_status(pid, "VmRSS")
                if rss:
                    self.rss[pid] = max(self.rss.get(pid, 0), rss)
                    self.hwm[pid] = max(self.hwm.get(pid, 0), proc_status(pid, "VmHWM"))
                    total += pss(pid)
                    self._cpu("apps", pid)
            self.apps_pss_peak = max(self.apps_pss_peak, total)
            self.server_peak = max(self.server_peak, proc_status(server_pid, "VmHWM"))
            self._cpu("server", server_pid)
            browser = chromium_pids()
            self.chromium_peak = max(self.chromium_peak, sum(pss(pid) for pid in browser))
            for pid in browser:
                self._cpu("chromium", pid)
            self._halt.wait(self.every_s)

    def _cpu(self, kind: str, pid: int) -> None:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return
        self.cpu[kind][pid] = (int(fields[11]) + int(fields[12])) / TICKS

    def stop(self) -> None:
        self._halt.set()
        self.join()


def chromium_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().startswith("chrom"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def pss(pid: int) -> int:
    """Proportional set size (kB: shared pages divided among their sharers), 0 when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def next_text(position: int, items: int) -> str:
    return f"Item {position + 1} of {items}" if position < items else f"All {items} items have an answer"


async def page_annotator(browser, url: str, items: int, think: tuple[float, float], seed: int,
                         results: Results) -> None:
    """One person in one Chromium page: open the link, judge `items` items, quit."""
    rng = random.Random(seed)
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_S * 1000)
    await page.add_init_script(SCREEN_HOOK)
    opened = time.monotonic()
    response = await page.goto(url, wait_until="domcontentloaded")
    if response is None or response.status != 200:
        raise RuntimeError(f"{url.split('?')[0]}: HTTP {response.status if response else '?'}")

    async def wait_for(text: str) -> None:
        await page.wait_for_function("(text) => window.__screen && window.__screen().includes(text)", arg=text)

    await wait_for(f"Item 1 of {items}")
    results.firsts.append(time.monotonic() - opened)
    await page.click("#terminal")
    await page.keyboard.press("g")  # the guideline opens on an annotator's first item
    for position in range(1, items + 1):
        await wait_for(f"Item {position} of {items}")
        await asyncio.sleep(rng.uniform(*think))
        await page.keyboard.press(rng.choice("1234"))
        await wait_for("Enter  submit")
        await page.keyboard.press("Enter")
        painted = await page.evaluate("([t, ms]) => window.__paintedAfterKey(t, ms)",
                                      [next_text(position, items), TIMEOUT_S * 1000])
        results.page_paints.append(float(painted))
    await page.keyboard.press("q")  # the finished dialog: quit
    await page.wait_for_selector("#ended", state="visible")
    await context.close()


async def socket_annotator(http, base: str, name: str, secret: str, items: int, think: tuple[float, float],
                           seed: int, results: Results) -> None:
    """One person whose browser runs elsewhere: textual-serve's protocol over a websocket."""
    import aiohttp

    rng = random.Random(seed)
    opened = time.monotonic()
    async with http.ws_connect(f"{base}/a/{name}/ws?width=142&height=38", max_msg_size=0,
                               headers={"Cookie": f"annotate_key={secret}", "Origin": base}) as ws:
        seen = bytearray()

        async def until(text: bytes) -> None:
            deadline = time.monotonic() + TIMEOUT_S
            while text not in seen:
                message = await ws.receive(timeout=max(0.1, deadline - time.monotonic()))
                if message.type == aiohttp.WSMsgType.BINARY:
                    seen.extend(message.data)
                elif message.type != aiohttp.WSMsgType.TEXT:
                    raise RuntimeError(f"{name}: the websocket closed waiting for {text!r}")

        async def key(data: str) -> None:
            await ws.send_str(json.dumps(["stdin", data]))

        await until(f"Item 1 of {items}".encode())
        results.firsts.append(time.monotonic() - opened)
        await key("g")
        for position in range(1, items + 1):
            await asyncio.sleep(rng.uniform(*think))
            seen.clear()
            await key(rng.choice("1234"))
            await until(b"submit")  # the answer bar, redrawn: Enter submits now
            seen.clear()
            sent = time.monotonic()
            await key("\r")
            await until(next_text(position, items).encode())
            results.socket_paints.append((time.monotonic() - sent) * 1000)
            seen.clear()
        await key("q")
        while (await ws.receive(timeout=TIMEOUT_S)).type not in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            pass


async def drive(base: str, links: list[tuple[str, str]], browsers: int, items: int,
                think: tuple[float, float]) -> tuple[Results, float]:
    import aiohttp
    from playwright.async_api import async_playwright

    results = Results()
    async with async_playwright() as playwright, aiohttp.ClientSession() as http:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        started = time.monotonic()
        runs = [
            page_annotator(browser, f"{base}/a/{name}?key={secret}", items, think, n, results) if n < browsers
            else socket_annotator(http, base, name, secret, items, think, n, results)
            for n, (name, secret) in enumerate(links)
        ]
        await asyncio.gather(*runs)
        elapsed = time.monotonic() - started
        await browser.close()
    return results, elapsed


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def spread(values: list[float], unit: str, digits: int = 0) -> str:
    if not values:
        return "none"
    return (f"{len(values)}: p50 {pct(values, 0.5):.{digits}f} {unit}, p95 {pct(values, 0.95):.{digits}f} {unit},"
            f" max {max(values):.{digits}f} {unit}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--browsers", type=int, default=None, help="how many in Chromium pages (default: all)")
    parser.add_argument("--items", type=int, default=10, help="items each annotator judges")
    parser.add_argument("--think", type=float, nargs=2, default=(0.5, 1.5), metavar=("MIN", "MAX"),
                        help="seconds before each answer (0 0: as fast as keys go)")
    args = parser.parse_args()
    browsers = args.annotators if args.browsers is None else min(args.browsers, args.annotators)
    missing = chromium_missing()
    if missing and browsers:
        print(f"cannot run: {missing}", file=sys.stderr)
        return 2
    names = [f"ann{n:02d}" for n in range(args.annotators)]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        spec = planned_session(Path(folder), names, items=args.annotators * args.items // 2, overlap=2)
        with open_store(spec) as store:
            loads = {len(store.assignments(n)) for n in names}
            if loads != {args.items}:
                raise SystemExit(f"the plan gave {sorted(loads)} items each, not {args.items}")
            links = [(n, issue_link(store, "annotator", n).secret) for n in names]
        with ServeProcess(spec, Path(folder)) as server:
            sampler = Sampler(server)
            sampler.start()
            results, elapsed = asyncio.run(drive(server.base, links, browsers, args.items, tuple(args.think)))
            deadline = time.monotonic() + 60
            while server.children() and time.monotonic() < deadline:
                time.sleep(0.1)
            sampler.stop()
        with open_store(spec) as store:
            written = sum(len(store.judgments(n)) for n in names)
            displays = dict(store.db.execute(
                "SELECT s.display, count(*) FROM judgments j JOIN sittings s ON s.id = j.sitting_id GROUP BY 1"
            ).fetchall())
    expected = args.annotators * args.items
    rss = [kb / 1024 for kb in sampler.rss.values()]
    hwm = [kb / 1024 for kb in sampler.hwm.values()]
    cpu = {kind: sum(per.values()) for kind, per in sampler.cpu.items()}
    print(f"annotate serve: {args.annotators} annotators at once, {browsers} in Chromium pages (Playwright, one"
          f" context each) and {args.annotators - browsers} over websockets (textual-serve's protocol);"
          f" {args.items} items each, think {args.think[0]:g}-{args.think[1]:g} s; {os.cpu_count()} cores,"
          f" load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"judgments written {written} of {expected} expected, lost {expected - written};"
          f" from browser sittings {displays.get('browser', 0)}")
    print(f"app processes: {len(rss)}, at most {sampler.most_at_once} at once; RSS each: median"
          f" {statistics.median(rss):.0f} MB, max {max(rss):.0f} MB; peak (VmHWM) max {max(hwm):.0f} MB;"
          f" all together at peak {sampler.apps_pss_peak / 1024:.0f} MB (PSS)")
    print(f"server process peak {sampler.server_peak / 1024:.0f} MB (VmHWM); Chromium peak"
          f" {sampler.chromium_peak / 1024:.0f} MB (PSS, all its processes)")
    print(f"CPU seconds: apps {cpu['apps']:.0f}, server {cpu['server']:.0f}, Chromium {cpu['chromium']:.0f};"
          f" whole run {elapsed:.0f} s")
    print(f"key-to-paint in the browser (Enter keydown -> next item painted), {spread(results.page_paints, 'ms')}")
    print(f"key-to-screen over a websocket (Enter sent -> next item's text received),"
          f" {spread(results.socket_paints, 'ms')}")
    print(f"link -> first item, {spread(results.firsts, 's', 1)}")
    print(f"peak memory of this benchmark process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0 if written == expected else 1


if __name__ == "__main__":
    sys.exit(main())
