"""The app process of one browser annotator: `python -m annotate.serve.child SPEC NAME`.

`annotate serve` starts one for every browser that opens a valid link, under Textual's web
driver (textual-serve sets it in the environment), naming the link's annotator, never the link's
secret. It does what `annotate start SPEC --annotator NAME` does, in a sitting whose display is
`browser`: same queue, screens, keys, timings and store (the driver, `annotate.tui.web_driver`, differs only
in letting keys already sent finish when the browser goes away). A refusal that `start` would print (the
annotator already has the session open elsewhere, say) is shown in the browser instead. Nothing
is written to standard output: there it is the stream the browser reads.

A server that dies without closing its apps (SIGKILL, a crash) would leave them running with
nobody to type into them, holding their sittings open; so each app stops as on SIGTERM (writing
what it holds, ending its sitting) within PARENT_CHECK_S of its server being gone.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

DRIVER = "annotate.tui.web_driver:BrowserDriver"
"""The value of TEXTUAL_DRIVER that selects the browser annotator's driver (`annotate.tui.web_driver`)."""
PARENT_CHECK_S = 1.0
"""How often the app looks whether the server that started it is still there."""


def stop_when_orphaned() -> None:
    """SIGTERM this process once its parent (the server) is gone, i.e. it has been re-parented."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="annotate-server-watch", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        sys.stderr.write("usage: python -m annotate.serve.child SPEC NAME\n")
        return 2
    spec_path, annotator = args
    stop_when_orphaned()
    if os.environ.get("TEXTUAL_DRIVER", "").startswith("textual.drivers.web_driver"):
        os.environ["TEXTUAL_DRIVER"] = DRIVER  # before Textual is imported: it reads the variable once
    from annotate.session import load_session
    from annotate.store import StoreError
    from annotate.tui.app import run_app

    try:
        run_app(load_session(Path(spec_path)), annotator, display="browser")
    except (ValueError, StoreError, OSError) as exc:
        from annotate.tui.notice import NoticeApp

        NoticeApp(str(exc)).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
