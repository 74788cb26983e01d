"""HelpScreen: every key of the annotation screen, read from its bindings (so it cannot drift)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Answer", ("submit", "rationale", "confidence", "skip", "flag")),
    ("Move", ("back", "next-unfinished", "items")),
    ("Read", ("scroll-down", "scroll-up", "page-down", "page-up", "scroll-home", "scroll-end",
              "switch-pane", "switch-pane-back", "link", "zoom", "earlier-turns", "guideline",
              "search", "match-next", "match-previous", "copy")),
    ("Other", ("help", "theme", "escape", "quit")),
)


class HelpScreen(ModalScreen[None]):
    """The bindings of `screen`, grouped, with what each does."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close help", id="help-close"),
        Binding("j,down", "scroll('down')", show=False),
        Binding("k,up", "scroll('up')", show=False),
    ]

    def __init__(self, screen: ItemScreen) -> None:
        super().__init__()
        self.item_screen = screen

    def compose(self) -> ComposeResult:
        box = VerticalScroll(id="help-box")
        box.border_title = "Keys"
        box.border_subtitle = "Esc, ? or q closes · j/k scroll"
        with box:
            yield Static(self._table())

    def _table(self) -> Table:
        by_id: dict[str, list[Binding]] = {}
        for binding in self._item_bindings():
            if binding.id:
                by_id.setdefault(binding.id, []).append(binding)
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style="bold", no_wrap=True)
        table.add_column()
        for note in getattr(self.item_screen, "HELP_NOTES", ()):
            table.add_row(Text("•"), Text(note))
        for title, keys in self.item_screen.help_answers():
            table.add_row(Text(""), Text(title, style="bold underline"))
            for key, text in keys:
                table.add_row(Text(key), Text(text))
        groups = list(self.item_screen.help_groups()) + list(GROUPS)
        for title, ids in groups:
            rows = [(ids_key, by_id[ids_key]) for ids_key in ids if ids_key in by_id]
            if not rows:
                continue
            table.add_row(Text(""), Text(title, style="bold underline"))
            for _id, bindings in rows:
                keys = " ".join(self.app.get_key_display(b) for b in bindings)
                first = bindings[0]
                text = first.description or first.tooltip
                if first.tooltip and first.tooltip != text:
                    text = f"{text}: {first.tooltip}"
                table.add_row(Text(keys), Text(text))
        table.add_row(Text(""), Text(""))
        table.add_row(Text(""), Text("Esc, ? or q closes this help.", style="dim"))
        return table

    def _item_bindings(self) -> list[Binding]:
        found: list[Binding] = []
        for cls in reversed(type(self.item_screen).__mro__):
            for binding in cls.__dict__.get("BINDINGS", []):
                if isinstance(binding, Binding):
                    for key in binding.key.split(","):
                        found.append(Binding(key.strip(), binding.action, binding.description,
                                             show=binding.show, id=binding.id, tooltip=binding.tooltip))
        return found

    def action_scroll(self, how: str) -> None:
        box = self.query_one(VerticalScroll)
        box.scroll_relative(y=1 if how == "down" else -1, animate=False)
