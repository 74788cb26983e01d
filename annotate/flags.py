"""Flags: an annotator's word to the lead that an item has a problem, apart from their answer.

A skip says "I did not judge this"; a flag says "something is wrong with this item" and may come
with an answer or a skip. Each flag belongs to one assignment (annotator and item), has a kind and
a note, and stays until the lead clears it (or the annotator withdraws it); a cleared flag is kept
with who cleared it and when.
"""

from __future__ import annotations

from dataclasses import dataclass

FLAG_KINDS: tuple[tuple[str, str], ...] = (
    ("broken", "broken item"),
    ("identity_leak", "identity leak"),
    ("offensive", "offensive"),
    ("guideline_unclear", "guideline unclear"),
    ("other", "other"),
)
"""(kind, what the screen and the reports call it), in the order the flag dialog lists them."""
KIND_TEXT = dict(FLAG_KINDS)
NOTE_REQUIRED = ("other",)
"""Kinds that need a note (what else is there to go on)."""
MAX_NOTE_CHARS = 2000


@dataclass(frozen=True)
class Flag:
    """One flag on one assignment."""

    assignment_id: int
    kind: str
    """One of FLAG_KINDS."""
    note: str = ""
    created: str = ""
    """UTC ISO-8601."""
    uid: str = ""
    """Globally unique, so copies of a session merge without doubling flags."""
    id: int | None = None
    item_id: str = ""
    annotator: str = ""
    cleared: str | None = None
    """When it was cleared (UTC ISO-8601), or None while it is open."""
    cleared_by: str | None = None
    """Who cleared it: the lead's name, or the annotator who withdrew it."""
    clear_note: str = ""

    @property
    def text(self) -> str:
        """`identity leak`, `other: the prompt is cut off`."""
        name = KIND_TEXT.get(self.kind, self.kind)
        return f"{name}: {self.note}" if self.note else name


def check_flag(kind: str, note: str) -> str:
    """The note, trimmed, for a valid flag; ValueError naming what is wrong otherwise."""
    if kind not in KIND_TEXT:
        raise ValueError(f"flag kind {kind!r}: expected one of {', '.join(KIND_TEXT)}")
    note = note.strip()
    if kind in NOTE_REQUIRED and not note:
        raise ValueError(f"a flag of kind {kind!r} needs a note saying what is wrong")
    if len(note) > MAX_NOTE_CHARS:
        raise ValueError(f"a flag's note holds at most {MAX_NOTE_CHARS} characters, got {len(note)}")
    return note
