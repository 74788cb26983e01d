"""The Textual annotation app. Build it with `make_app(spec, store, annotator)`."""

from annotate.tui.app import AnnotateApp, make_app, run_app

__all__ = ["AnnotateApp", "make_app", "run_app"]
