"""LabelBar: the outcome keys with the choice highlighted, plus confidence and rationale."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive

from annotate.safe_text import sanitize
from annotate.tui.widgets.strip_memo import StripMemo


class LabelBar(StripMemo):
    """Two lines: the key row (`1 Left better  2 Right better ...`) and the extras row.

    The choice is marked in text as well as colour (`▶ 1  Left better ◀`, `Confidence ▶4/5◀`), so
    it shows on a monochrome terminal too. A click on an option, on `c`, `r` or `Enter` does what
    the key does.
    """

    DEFAULT_CSS = """
    LabelBar { height: 2; }
    """

    options: reactive[tuple[tuple[str, str], ...]] = reactive(())
    """(key, label) pairs in key order, e.g. ("1", "Left better")."""
    short_options: reactive[tuple[tuple[str, str], ...]] = reactive(())
    """The same keys with short labels ("1", "L++"), used when the full ones do not fit the width
    (the chosen one keeps its full label); empty: always the full ones."""
    selected: reactive[str | None] = reactive(None)
    """The key of the chosen option, or None."""
    prefix: reactive[str] = reactive("")
    """A fixed word before the keys, e.g. `Grade`."""
    confidence: reactive[int | None] = reactive(None)
    rationale: reactive[str] = reactive("")
    mode: reactive[str] = reactive("")
    """`confidence` while waiting for a 1-5 key; empty otherwise."""
    can_submit: reactive[bool] = reactive(False)

    def render(self) -> Text:
        top = self._keys(self.options, compact=False)
        if self.short_options and top.cell_len > self.size.width:
            full = dict(self.options)
            top = self._keys(tuple((k, full[k] if k == self.selected else short) for k, short in self.short_options),
                             compact=True)
            if top.cell_len > self.size.width:
                top = self._keys(self.short_options, compact=True)
        return Text("\n", no_wrap=True, overflow="ellipsis").join([top, self._extras()])

    def _keys(self, options: tuple[tuple[str, str], ...], compact: bool) -> Text:
        """The key row; compact: one space less around each label (narrow terminals)."""
        top = Text(no_wrap=True, overflow="ellipsis")
        if self.prefix:
            top.append(f" {self.prefix}: ", style="bold")
        pad = "" if compact else " "
        for key, label in options:
            chosen = key == self.selected
            start = top.cell_len
            top.append(" ▶" if chosen else " ", style="bold green" if chosen else "")
            top.append(f" {key} ", style="bold reverse" if not chosen else "bold reverse green")
            if label != key:  # a grade row's `1` means 1: the key alone, not `1  1`
                top.append(f"{pad}{label}{' ' if not compact or not chosen else ''}",
                           style="bold green underline" if chosen else "")
            elif not chosen:
                top.append(" ")
            if chosen:
                top.append("◀", style="bold green")
            if key.isdigit():  # a click on the option does what its key does
                top.stylize(Style(meta={"@click": f"screen.pick('{key}')"}), start, top.cell_len)
        return top

    def _extras(self) -> Text:
        bottom = Text(no_wrap=True, overflow="ellipsis")
        if self.mode == "confidence":
            now = f" (now ▶{self.confidence}/5◀)" if self.confidence else ""
            bottom.append(f" Confidence{now}: press 1 (guess) .. 5 (certain), 0 to clear, Esc to cancel",
                          style="bold")
            return bottom
        bottom.append(" c", style=Style(bold=True, meta={"@click": "screen.confidence"}))
        bottom.append(" Confidence ", style=Style(meta={"@click": "screen.confidence"}))
        if self.confidence:
            bottom.append(f"▶{self.confidence}/5◀", style="bold green")
        else:
            bottom.append("–")
        bottom.append("   ")
        bottom.append("r", style=Style(bold=True, meta={"@click": "screen.rationale"}))
        note = sanitize(self.rationale).replace("\n", " ")
        rationale = Style(meta={"@click": "screen.rationale"})
        bottom.append(f" Rationale {('“' + note + '”') if note else '–'}   ", style=rationale)
        if self.can_submit:
            bottom.append(" Enter ", style=Style(bold=True, reverse=True, meta={"@click": "screen.submit"}))
            bottom.append(" submit", style=Style(meta={"@click": "screen.submit"}))
        else:
            bottom.append("choose an answer to submit", style="dim")
        return bottom
