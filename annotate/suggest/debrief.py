"""The debrief an annotator can be shown once their queue is done: that some suggestions were
planted wrong on purpose, and how often they went along with wrong ones.

Pure: works on the `anchoring_frame` rows of one annotator. Model names never appear.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from annotate.text import plural

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Debrief", "debrief"]


@dataclass(frozen=True)
class Debrief:
    """One annotator's figures (counts of their own current judgments)."""

    annotator: str
    judged: int
    shown: int
    """Judgments where a suggestion was on screen."""
    planted_shown: int
    planted_accepted: int
    wrong_shown: int
    """Shown suggestions that were wrong (planted or not), on items with a known answer."""
    wrong_accepted: int
    right_shown: int
    right_rejected: int

    def text(self) -> str:
        """Plain text for the terminal or the app (no markup)."""
        lines = [f"Debrief for {self.annotator}", ""]
        if not self.shown:
            lines.append("No AI suggestion was shown to you in this session. Thank you for your judgments.")
            return "\n".join(lines)
        lines += [
            "Thank you. Some items showed a suggestion from an AI judge. To measure how much such suggestions",
            "sway expert judgments, a few of them were deliberately wrong (planted) on items whose right answer",
            "is known. This is not a test of you: everyone tends to follow suggestions, and knowing how much",
            "helps us decide when and how to show them.",
            "",
            f"Suggestions you saw: {self.shown} (of {plural(self.judged, 'judgment')}).",
        ]
        if self.planted_shown:
            lines.append(f"Planted wrong suggestions you saw: {self.planted_shown}; you went along with"
                         f" {self.planted_accepted} ({_pct(self.planted_accepted, self.planted_shown)}).")
        if self.wrong_shown:
            lines.append(f"All wrong suggestions you saw (planted or the AI's own mistakes): {self.wrong_shown};"
                         f" you went along with {self.wrong_accepted} ({_pct(self.wrong_accepted, self.wrong_shown)}).")
        if self.right_shown:
            lines.append(f"Right suggestions you saw: {self.right_shown}; you disagreed with {self.right_rejected}"
                         f" ({_pct(self.right_rejected, self.right_shown)}).")
        lines += ["", "Your labels made under planted suggestions are kept apart and are not used as data."]
        return "\n".join(lines)


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.0f} %" if n else "–"


def debrief(frame: pd.DataFrame, annotator: str) -> Debrief:
    """The debrief of `annotator` from an anchoring frame (see `annotate.store.suggestion_frames`)."""
    mine = frame[frame["annotator"] == annotator]
    shown = mine[mine["shown"].fillna(False).astype(bool) & mine["suggestion"].notna()]
    agree = shown["suggestion"].astype(str) == shown["final_label"].astype(str)
    known = shown["suggestion_correct"].notna()
    correct = shown["suggestion_correct"].where(known, False).astype(bool)
    wrong = known & ~correct
    right = known & correct
    planted = shown["planted"].astype(bool)
    return Debrief(
        annotator=annotator, judged=len(mine), shown=len(shown), planted_shown=int(planted.sum()),
        planted_accepted=int((planted & agree).sum()), wrong_shown=int(wrong.sum()),
        wrong_accepted=int((wrong & agree).sum()), right_shown=int(right.sum()),
        right_rejected=int((right & ~agree).sum()),
    )
