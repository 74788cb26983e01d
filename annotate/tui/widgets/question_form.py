"""QuestionForm: one row per question of the label schema (aspects of a pair), with its choices.

Rows read `▸ correctness   1 Left  2 Right  3 Tie  4 Both bad`; the marked row is the one the
digit keys answer, the chosen answer is marked in text as well as colour (`▶2 Right◀`), and each
row uses the choices' short words when the full ones do not fit. The words are the schema's fixed
strings (never text from an item). A click on an answer gives it to that row, as marking the row
and pressing its digit would; a click on a row's name marks the row.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from annotate.design import Question


class QuestionForm(Widget):
    """The questions, the side-space answers given so far and the row the digits answer."""

    DEFAULT_CSS = """
    QuestionForm { height: auto; background: $boost; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    auto_links = False  # the answers are clickable but keep their look (no link colour over the marking)

    questions: reactive[tuple[Question, ...]] = reactive((), layout=True)
    """The rows; a change of rows is a change of height (the answers only repaint)."""
    answers: reactive[dict[str, str]] = reactive(dict, always_update=True)
    """Question name -> side-space answer."""
    current: reactive[int] = reactive(0)
    """Index of the question the digit keys answer."""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.questions) + 1

    def render(self) -> Text:
        width = max((len(q.name) for q in self.questions), default=0)
        lines = [self._row(i, q, width) for i, q in enumerate(self.questions)]
        done = sum(1 for q in self.questions if q.name in self.answers)
        lines.append(Text(f"   ↑↓ aspect · digits answer · {done} of {len(self.questions)} answered", style="dim"))
        return Text("\n", no_wrap=True, overflow="ellipsis").join(lines)

    def _row(self, index: int, question: Question, width: int) -> Text:
        here = index == self.current
        full = self._choices(index, question, here, short=False)
        head_len = 3 + width + 2
        text = full
        if head_len + full.cell_len > self.size.width:
            text = self._choices(index, question, here, short=True)
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(" ▸ " if here else "   ", style="bold")
        line.append(question.name.ljust(width), style="bold" if here else "")
        line.stylize(Style(meta={"@click": f"screen.aspect({index})"}), 0, len(line))
        line.append("  ")
        line.append_text(text)
        if question.description and here:
            line.append(f"  {question.description}", style="italic")
        return line

    def _choices(self, index: int, question: Question, here: bool, short: bool) -> Text:
        chosen_value = self.answers.get(question.name)
        out = Text(no_wrap=True)
        for choice in question.choices():
            start = len(out)
            chosen = choice.value == chosen_value
            words = choice.text if chosen or not short else choice.short
            if chosen:
                out.append("▶", style="bold green")
                out.append(f"{choice.key} {words}", style="bold reverse green")
                out.append("◀ ", style="bold green")
            else:
                out.append(f" {choice.key} ", style="bold" if here else "dim")
                out.append(words, style="underline" if here else "dim")
                out.append("  ")
            click = Style(meta={"@click": f"screen.aspect({index}, '{choice.key}')"})
            out.stylize(click, start, len(out) - 1)  # not the gap before the next answer
        return out
