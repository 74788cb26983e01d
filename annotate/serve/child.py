"""The app process of one browser annotator: `python -m annotate.serve.child SPEC NAME`.

`annotate serve` starts one for every browser that opens a valid link, under Textual's web
driver (textual-serve sets it in the environment), naming the link's annotator, never the link's
secret. It does what `annotate start SPEC --annotator NAME` does, in a sitting whose display is
`browser`: same queue, screens, keys, timings and store. A refusal that `start` would print (the
annotator already has the session open elsewhere, say) is shown in the browser instead. Nothing
is written to standard output: there it is the stream the browser reads.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        sys.stderr.write("usage: python -m annotate.serve.child SPEC NAME\n")
        return 2
    spec_path, annotator = args
    from annotate.session import load_session
    from annotate.store import StoreError
    from annotate.tui.app import run_app

    try:
        run_app(load_session(Path(spec_path)), annotator, display="browser")
    except (ValueError, StoreError, OSError) as exc:
        from annotate.serve.notice import NoticeApp

        NoticeApp(str(exc)).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
