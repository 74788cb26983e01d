"""When a suggestion is on screen, per display mode (DESIGN.md section 6). No Textual here: the app
drives a `SuggestionView` with monotonic nanoseconds and shows what it says.

- `none`: never shown (the suggestion stays linked to the assignment, hidden: the baseline).
- `upfront`: shown with the item.
- `after`: hidden until the annotator submits a first answer; that submit is intercepted, the
  answer kept as the initial label, and the suggestion shown; the next submit (same answer or a
  changed one) is the judgment, with both labels.
- `on_request`: offered; a key reveals it (the app logs `REVEAL_EVENT`).

The time the suggestion was on screen becomes `Timings.suggestion_ms` (None when it never was).
Text shown is built from fixed words and the label in the annotator's side space ("Left better"),
never the model's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotate.model import SIDE_TEXT, slot_to_side

__all__ = ["REVEAL_EVENT", "SHOWN_EVENT", "SuggestionView", "suggestion_text"]

SHOWN_EVENT = "suggestion.shown"
REVEAL_EVENT = "suggestion.reveal"
INITIAL_EVENT = "suggestion.initial"
"""`after`: the first answer was committed and the suggestion appeared."""
NS_PER_MS = 1_000_000



def suggestion_text(label: str, kind: str, swapped: bool) -> str:
    """`Suggestion: Left better` (pairwise, in side space) or `Suggestion: 7` (grades)."""
    if kind == "pairwise":
        try:
            side = slot_to_side(label, swapped)
        except ValueError:
            side = ""
        word = SIDE_TEXT.get(side, "?")
    else:
        word = label if label.lstrip("-").isdigit() else "?"
    return f"Suggestion: {word}"


@dataclass
class SuggestionView:
    """The suggestion state of the item on screen.

    stage: `hidden` (nothing to show, or `none`), `waiting` (`after`, before the first answer),
    `offered` (`on_request`, not revealed), `shown`.
    """

    condition: str
    label: str | None
    kind: str
    swapped: bool
    stage: str = "hidden"
    initial_label: str | None = None
    _since_ns: int | None = None
    _shown_ns: int = 0
    _ever_shown: bool = False

    @classmethod
    def start(
        cls, condition: str, label: str | None, kind: str, swapped: bool, now_ns: int, *,
        revisiting: bool = False, initial_label: str | None = None, was_revealed: bool = False,
    ) -> SuggestionView:
        """The state when the item is painted at `now_ns`.

        revisiting: the annotator went back to an item they had answered (the stored answer's
        `initial_label` and whether its suggestion had been on screen carry over: in `after` and a
        revealed `on_request` it is shown again at once).
        """
        view = cls(condition, label, kind, swapped, initial_label=initial_label if revisiting else None)
        if label is None or condition not in ("upfront", "after", "on_request"):
            return view
        if condition == "upfront" or (revisiting and (condition == "after" or was_revealed)):
            view._show(now_ns)
        elif condition == "after":
            view.stage = "waiting"
        else:
            view.stage = "offered"
        return view

    @property
    def visible(self) -> bool:
        return self.stage == "shown"

    @property
    def can_reveal(self) -> bool:
        return self.stage == "offered"

    def text(self) -> str:
        """What the suggestion line says now (empty: show nothing)."""
        if self.stage == "shown" and self.label is not None:
            text = suggestion_text(self.label, self.kind, self.swapped)
            if self.condition == "after" and self.initial_label is not None:
                text += "   Enter keeps your answer; or change it, then Enter"
            return text
        if self.stage == "offered":
            return "Press a to see a suggestion"
        return ""

    def reveal(self, now_ns: int) -> bool:
        """`on_request`: the annotator asked to see it; False when there is nothing to reveal."""
        if self.stage != "offered":
            return False
        self._show(now_ns)
        return True

    def intercept_submit(self, answer: str | None, now_ns: int) -> bool:
        """`after`: the first submit keeps `answer` as the initial label and shows the suggestion
        instead of committing (True: do not commit yet)."""
        if self.stage != "waiting":
            return False
        self.initial_label = answer
        self._show(now_ns)
        return True

    def suggestion_ms(self, now_ns: int) -> int | None:
        """Milliseconds the suggestion has been on screen so far; None if it never was."""
        if not self._ever_shown:
            return None
        total = self._shown_ns + (now_ns - self._since_ns if self._since_ns is not None else 0)
        return total // NS_PER_MS

    def _show(self, now_ns: int) -> None:
        self.stage = "shown"
        self._ever_shown = True
        if self._since_ns is None:
            self._since_ns = now_ns
