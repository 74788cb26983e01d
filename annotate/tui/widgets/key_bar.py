"""KeyBar: one line of the keys that matter now, greyed out when they cannot be used.

Textual's Footer rebuilds a widget per key whenever the bindings' enabled state changes, which
happens on every item (Submit turns off until a label is chosen); that cost tens of milliseconds
per item in bench/bench_tui.py. This is one Text, rendered from the screen's active bindings.
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget


class KeyBar(Widget):
    """The screen's bindings that have `show=True`, in declaration order (fixed strings only)."""

    DEFAULT_CSS = """
    KeyBar { height: 1; background: $panel; }
    """

    def render(self) -> Content:
        parts: list[tuple[str, str]] = []
        seen: set[str] = set()
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            enabled = active.enabled
            parts.append((f" {self.app.get_key_display(binding)}", "bold $accent" if enabled else "dim"))
            parts.append((f" {binding.description} ", "" if enabled else "dim"))
        return Content.assemble(*parts)
