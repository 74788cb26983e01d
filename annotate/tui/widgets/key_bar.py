"""KeyBar: one line of the keys that matter now, greyed out when they cannot be used.

Textual's Footer rebuilds a widget per key whenever the bindings' enabled state changes, which
happens on every item (Submit turns off until a label is chosen); that cost tens of milliseconds
per item in bench/bench_tui.py. This is one Text, rendered from the screen's active bindings.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.content import Content

from annotate.tui.widgets.strip_memo import StripMemo

Entry = tuple[str, str, str, bool]
"""(action, key as shown, description, enabled)."""


class KeyBar(StripMemo):
    """The screen's bindings that have `show=True`, in declaration order (fixed strings only); clicking
    one runs its action, as its key does."""

    DEFAULT_CSS = """
    KeyBar { height: 1; background: $panel; }
    """

    _painted: tuple[Entry, ...] | None = None
    """The entries last painted."""

    def entries(self) -> tuple[Entry, ...]:
        """The keys shown, in order, each once."""
        entries: list[Entry] = []
        seen: set[str] = set()
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            entries.append((binding.action, self.app.get_key_display(binding), binding.description, active.enabled))
        return tuple(entries)

    def memo_key(self) -> Hashable:
        entries = self.entries()
        self._painted = entries
        return entries

    def refresh_if_changed(self) -> None:
        """Paint again only if the keys shown changed: a key in span mode that leaves them alone then
        leaves the bar out of the frame, whose region would otherwise reach from the pane's changed
        line down to the bar, every widget in between drawn again."""
        if self.entries() != self._painted:
            self.refresh()

    def render(self) -> Content:
        parts: list[tuple[str, str]] = []
        clicks: list[tuple[str, int, int]] = []
        at = 0
        for action, shown, description, enabled in self.entries():
            key, words = f" {shown}", f" {description} "
            parts.append((key, "bold $accent" if enabled else "dim"))
            parts.append((words, "" if enabled else "dim"))
            if enabled and action.isidentifier():  # a click does what the key does
                clicks.append((action, at, at + len(key) + len(words)))
            at += len(key) + len(words)
        content = Content.assemble(*parts)
        for action, start, end in clicks:
            content = content.stylize(f"@click=screen.{action}", start, end)
        return content
