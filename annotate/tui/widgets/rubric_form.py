"""RubricForm: one row per criterion with its scale and the score given."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from annotate.design import Criterion, grade_keys


class RubricForm(Widget):
    """Rows `▸ helpfulness   0 1 2 ▶3◀ 4`; the current row is marked, the score given marked in text.

    A click on a score gives it to that criterion, as marking the row and pressing its digit would; a
    click on a row's name marks the row."""

    auto_links = False  # the scores are clickable but keep their look (no link colour over the marking)

    criteria: reactive[tuple[Criterion, ...]] = reactive(())
    scores: reactive[dict[str, int]] = reactive(dict, always_update=True)
    current: reactive[int] = reactive(0)
    """Index of the criterion the digit keys score."""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.criteria) + 1

    def render(self) -> Text:
        lines = []
        width = max((len(c.name) for c in self.criteria), default=0)
        for i, criterion in enumerate(self.criteria):
            line = Text(no_wrap=True, overflow="ellipsis")
            here = i == self.current
            line.append(" ▸ " if here else "   ", style="bold")
            line.append(criterion.name.ljust(width), style="bold" if here else "")
            line.stylize(Style(meta={"@click": f"screen.criterion_click({i})"}), 0, len(line))
            line.append("  ")
            key_of = {value: key for key, value in grade_keys(criterion.low, criterion.high).items()}
            for value in range(criterion.low, criterion.high + 1):
                chosen = self.scores.get(criterion.name) == value
                # the chosen score is marked in text (▶3◀) as well as in colour: it shows on any terminal
                style = Style.parse("bold reverse green" if chosen else ("underline" if here else "dim"))
                if value in key_of:
                    style += Style(meta={"@click": f"screen.criterion_click({i}, '{key_of[value]}')"})
                line.append(f"▶{value}◀" if chosen else f" {value} ", style=style)
            if criterion.description and here:
                line.append(f"  {criterion.description}", style="italic")
            lines.append(line)
        done = sum(1 for c in self.criteria if c.name in self.scores)
        lines.append(Text(f"   ↑↓ criterion · digits score · {done} of {len(self.criteria)} scored", style="dim"))
        return Text("\n").join(lines)
