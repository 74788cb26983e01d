"""A scripted annotator for the kill -9 tests: the real app (make_app, its screens, its store thread)
driven headless by Textual's Pilot, in its own process.

    python scripted_annotator.py SPEC.toml SEED [ANNOTATOR]     annotate until killed
    python scripted_annotator.py --serve                         a fork server (below)

It prints one line per thing that happened, straight to file descriptor 1, so a parent that
SIGKILLs it knows exactly what it had been told:

    ready INDEX          the app is up and shows queue index INDEX (where it resumed)
    submit POS LABEL     about to press Enter on position POS with LABEL (slot space; `skip` for a skip)
    saved POS            the app reported the write of position POS durable (its `Saved` message)

It labels items with random keys, now and then goes back to revise (always to a different label,
so every submit is a write) and now and then skips.

`--serve` imports everything once, then reads commands on standard input, answering each with one
line: `run SPEC SEED OUTFILE` forks a child that annotates as above with its lines going to
OUTFILE, and answers with the child's pid; `wait PID` waits for that child to end and answers with
its raw wait status. Forking skips the interpreter start and the imports (most of the time to
start), so a test can kill many more sittings per second; each child is still a separate process
with its own app, store connection and threads. Not a test module: tests run it as a script.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys

from annotate.model import Message
from annotate.session import load_session
from annotate.store import Store
from annotate.tui import make_app
from annotate.tui.app import AnnotateApp
from annotate.tui.screens.item import ItemScreen

SIDES = ("left", "right", "tie", "both_bad")
STDOUT = sys.stdout.fileno()


def out(*words: object) -> None:
    """One line straight to file descriptor 1: unbuffered, and past Textual's capture of sys.stdout."""
    os.write(STDOUT, (" ".join(str(w) for w in words) + "\n").encode())


def hook(message: Message) -> None:
    if isinstance(message, AnnotateApp.Saved) and message.position >= 0 and not message.error:
        out("saved", message.position)


async def annotate(app: AnnotateApp, rng: random.Random) -> None:
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await pilot.pause()
        out("ready", app.screen.index)  # type: ignore[attr-defined]
        while True:
            screen = app.screen
            if not isinstance(screen, ItemScreen) or screen.assignment is None:
                out("done")
                await asyncio.sleep(60)
                return
            if screen.index > 0 and rng.random() < 0.1:
                await pilot.press("b")
            position = screen.assignment.position
            if rng.random() < 0.05:
                out("submit", position, "skip")
                await pilot.press("s", "1")  # skip: "I lack the expertise"
                continue
            current = getattr(screen, "choice", None)
            keys = [str(k) for k, side in enumerate(SIDES, start=1) if side != current]
            await pilot.press(rng.choice(keys))
            out("submit", position, screen.answer_fields()["label"])
            await pilot.press("enter")


def run(spec_path: str, seed: int, annotator: str = "alice") -> None:
    spec = load_session(spec_path)
    store = Store.open(spec.db)
    app = make_app(spec, store, annotator, open_guideline=False)
    asyncio.run(annotate(app, random.Random(seed)))


def serve() -> None:
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "run":
            pid = os.fork()
            if pid == 0:  # the child: one sitting, its lines to OUTFILE
                try:
                    null = os.open(os.devnull, os.O_RDONLY)
                    os.dup2(null, 0)
                    out = os.open(words[3], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                    os.dup2(out, 1)
                    err = os.open(words[3] + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                    os.dup2(err, 2)
                    run(words[1], int(words[2]))
                finally:
                    os._exit(0)
            print(pid, flush=True)
        elif words[0] == "wait":
            print(os.waitpid(int(words[1]), 0)[1], flush=True)


def main() -> None:
    if sys.argv[1] == "--serve":
        serve()
    else:
        run(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "alice")


if __name__ == "__main__":
    main()
