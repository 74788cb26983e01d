"""Many annotators in browsers at once: `annotate serve` with 20 real browser pages.

Starts the real `annotate serve` on loopback over a generated pairwise session planned for N
annotators (default 20, overlap 2, K items each), then drives N pages of Debian's headless
Chromium at the same time, each through Playwright on its own annotator's private link (every page
in a context of its own: its own cookie, as separate people's browsers). Each page waits for its
first item, closes the guideline, and judges its K items with keys (a label key, then Enter),
pausing a random think time between items (`--think`, default 0.5-1.5 s; 0: as fast as keys go).

Printed:
- judgments written against expected (nothing may be lost), and that every one came from a
  browser sitting;
- memory of each annotator's app process (RSS sampled every 0.25 s while it runs; its peak from
  VmHWM), the server's, and Chromium's (all its processes, for scale);
- key-to-paint in the browser: from the Enter keydown reaching the page to the first animation
  frame after the one in which the page's terminal holds the next item's text (read from the
  xterm.js buffer; that frame has painted it), for every submit; and link-to-first-item per page.

    python bench/bench_serve.py                    # 20 annotators, 10 items each
    python bench/bench_serve.py --annotators 5 --items 20 --think 0

Needs /usr/bin/chromium (Debian's `chromium` package) and Playwright for Python (the test extra).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import threading
import time
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
"""How long one step of one page may take before the run is called failed (a loaded machine is slow)."""


class MemorySampler(threading.Thread):
    """Samples the RSS (kB) of every app process the server has, until stopped."""

    def __init__(self, server: ServeProcess, every_s: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.every_s = every_s
        self.rss: dict[int, int] = {}
        """Largest RSS seen per app process."""
        self.hwm: dict[int, int] = {}
        """Last VmHWM (peak RSS) read per app process."""
        self.total_peak = 0
        """Largest sum of all app processes' PSS (kB) at one moment."""
        self.server_peak = 0
        self.chromium_peak = 0
        self.most_at_once = 0
        self._halt = threading.Event()

    def run(self) -> None:
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
            self.total_peak = max(self.total_peak, total)
            assert self.server.process is not None
            self.server_peak = max(self.server_peak, proc_status(self.server.process.pid, "VmHWM"))
            self.chromium_peak = max(self.chromium_peak, chromium_rss())
            self._halt.wait(self.every_s)

    def stop(self) -> None:
        self._halt.set()
        self.join()


def chromium_rss() -> int:
    """Total PSS (kB: shared pages divided among their sharers, so the sum is not inflated) of every
    Chromium process on the machine (the benchmark's own browser)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if not (entry / "comm").read_text().startswith("chrom"):
                continue
            total += pss(int(entry.name))
        except OSError:
            continue
    return total


def pss(pid: int) -> int:
    """Proportional set size (kB) of a process, 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


async def annotator(browser, url: str, items: int, think: tuple[float, float], seed: int,
                    paints: list[float], firsts: list[float]) -> None:
    """One person in one browser: open the link, judge `items` items, quit."""
    rng = random.Random(seed)
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_S * 1000)
    await page.add_init_script(SCREEN_HOOK)
    opened = time.monotonic()
    response = await page.goto(url, wait_until="domcontentloaded")
    if response is None or response.status != 200:
        raise RuntimeError(f"{url.split('?')[0]}: HTTP {response.status if response else '?'}")
    await wait_for(page, f"Item 1 of {items}")
    firsts.append(time.monotonic() - opened)
    await page.click("#terminal")
    await page.keyboard.press("g")  # the guideline opens on an annotator's first item
    for position in range(1, items + 1):
        await wait_for(page, f"Item {position} of {items}")
        if think[1] > 0:
            await asyncio.sleep(rng.uniform(*think))
        await page.keyboard.press(rng.choice("1234"))
        await wait_for(page, "Enter  submit")
        await page.keyboard.press("Enter")
        following = f"Item {position + 1} of {items}" if position < items else f"All {items} items have an answer"
        paints.append(float(await page.evaluate("([t, ms]) => window.__paintedAfterKey(t, ms)",
                                                [following, TIMEOUT_S * 1000])))
    await page.keyboard.press("q")  # the finished dialog: quit
    await page.wait_for_selector("#ended", state="visible")
    await context.close()


async def wait_for(page, text: str) -> None:
    await page.wait_for_function("(text) => window.__screen && window.__screen().includes(text)", arg=text)


async def drive(urls: list[str], items: int, think: tuple[float, float]) -> tuple[list[float], list[float], float]:
    from playwright.async_api import async_playwright

    paints: list[float] = []
    firsts: list[float] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        started = time.monotonic()
        await asyncio.gather(*(annotator(browser, url, items, think, n, paints, firsts) for n, url in enumerate(urls)))
        elapsed = time.monotonic() - started
        await browser.close()
    return paints, firsts, elapsed


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--items", type=int, default=10, help="items each annotator judges")
    parser.add_argument("--think", type=float, nargs=2, default=(0.5, 1.5), metavar=("MIN", "MAX"),
                        help="seconds between items (0 0: as fast as keys go)")
    args = parser.parse_args()
    missing = chromium_missing()
    if missing:
        print(f"cannot run: {missing}", file=sys.stderr)
        return 2
    names = [f"ann{n:02d}" for n in range(args.annotators)]
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        spec = planned_session(Path(folder), names, items=args.annotators * args.items // 2, overlap=2)
        with open_store(spec) as store:
            totals = {n: len(store.assignments(n)) for n in names}
            if set(totals.values()) != {args.items}:
                raise SystemExit(f"the plan gave {sorted(set(totals.values()))} items each, not {args.items}")
        with ServeProcess(spec, Path(folder)) as server:
            with open_store(spec) as store:
                urls = [f"{server.base}/a/{n}?key={issue_link(store, 'annotator', n).secret}" for n in names]
            sampler = MemorySampler(server)
            sampler.start()
            paints, firsts, elapsed = asyncio.run(drive(urls, args.items, tuple(args.think)))  # type: ignore[arg-type]
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
    load_after = os.getloadavg()
    print(f"machine load (1-min average) {load_before[0]:.1f} before, {load_after[0]:.1f} after")
    print(f"annotate serve, {args.annotators} browser annotators at once (Playwright pages in Debian's Chromium,"
          f" one context each), {args.items} items each, think {args.think[0]:g}-{args.think[1]:g} s; 2 cores")
    print(f"judgments written {written} of {expected} expected, lost {expected - written};"
          f" from browser sittings: {displays.get('browser', 0)}")
    print(f"app processes: {len(rss)} in all, at most {sampler.most_at_once} at once")
    print(f"memory per annotator process (RSS): median {statistics.median(rss):.0f} MB, max {max(rss):.0f} MB;"
          f" peak (VmHWM) max {max(hwm):.0f} MB; all app processes together at peak (PSS)"
          f" {sampler.total_peak / 1024:.0f} MB")
    print(f"server process peak (VmHWM) {sampler.server_peak / 1024:.0f} MB; Chromium (all its processes, PSS) peak"
          f" {sampler.chromium_peak / 1024:.0f} MB")
    print(f"key-to-paint in the browser (Enter -> next item painted), {len(paints)} submits:"
          f" p50 {pct(paints, 0.5):.0f} ms, p95 {pct(paints, 0.95):.0f} ms, max {max(paints):.0f} ms")
    print(f"link -> first item painted ({len(firsts)} pages opened at once): p50 {pct(firsts, 0.5):.1f} s,"
          f" max {max(firsts):.1f} s; whole run {elapsed:.0f} s")
    import resource

    print(f"peak memory of this benchmark process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0 if written == expected else 1


if __name__ == "__main__":
    sys.exit(main())
