"""The Textual annotation app. Build it with `make_app(spec, store, annotator)`.

The names are loaded on first use, so importing the package (as tools that walk every package
of annotate do) does not load Textual; only using the app does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from annotate.tui.app import AnnotateApp, make_app, run_app

__all__ = ["AnnotateApp", "make_app", "run_app"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from annotate.tui import app

        return getattr(app, name)
    raise AttributeError(f"module 'annotate.tui' has no attribute {name!r}")
