"""AnswerKeys: the keys that make an answer on an item screen (digits, confidence, rationale, submit),
and the rule that an answer key does not answer while the guideline covers a response.

A mixin of ItemScreen; what a digit means is the subclass's `on_digit`. A click on an answer
(`pick`) does what its digit does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object

CONFIDENCE_KEYS = "12345"

GUIDELINE_CLOSED_NOTICE = "guideline closed: read both responses, then answer"
"""The notice when an answer key closed the guideline that covered a response."""


class AnswerKeys(_Base):
    """Digits, confidence, rationale and submit for an ItemScreen."""

    def answer_blocked(self, key: str) -> bool:
        """An answer key while the guideline covers a response: close the guideline instead of
        recording an answer given unseen, say so, and return True (the key is not used)."""
        if not self.guideline_covers_panes():
            return False
        self.record("key.blocked_by_guideline", key=key)
        self.action_guideline()
        self.show_notice(GUIDELINE_CLOSED_NOTICE)
        return True

    def action_digit(self, digit: str) -> None:
        digit = str(digit)
        if self.answer_blocked(digit):
            return
        if self.mode == "confidence":
            if digit == "0":
                self.confidence = None
            elif digit in CONFIDENCE_KEYS:
                self.confidence = int(digit)
            else:
                self.app.bell()
                return
            self.mode = ""
            self.record("key.confidence", value=self.confidence)
            self.refresh_answer()
            return
        self.on_digit(digit)
        self.refresh_answer()

    def action_pick(self, digit: str) -> None:
        """A click on an answer: what its digit key does. A pending confidence prompt is closed first,
        so that a click on an answer chooses that answer, never a confidence."""
        if self.mode == "confidence" and not self.guideline_covers_panes():
            self.mode = ""
        self.action_digit(str(digit))

    def action_confidence(self) -> None:
        self.mode = "" if self.mode == "confidence" else "confidence"
        self.record("key.confidence_prompt", open=self.mode == "confidence")
        self.refresh_answer()

    def action_rationale(self) -> None:
        box = self.query_one("#rationale", Input)
        box.value = self.rationale
        box.display = True
        box.disabled = False
        box.focus()
        self.record("rationale.open")

    def _close_rationale(self, keep: bool) -> None:
        box = self.query_one("#rationale", Input)
        if keep:
            self.rationale = box.value.strip()
        box.display = False
        box.disabled = True
        self.set_focus(None)
        self.record("rationale.close", kept=keep, length=len(self.rationale))
        self.refresh_answer()

    def action_submit(self) -> None:
        if not self.has_answer() or self.assignment is None:
            return
        if self.suggestion.intercept_submit(self.answer_fields()["label"]):  # `after`: first answer kept
            self.refresh_answer()
            return
        self.commit(skip_reason=None)
