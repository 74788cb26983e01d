"""Domain types: what an item, a judgment, an event or an imported label is.

Everything here is a frozen dataclass with no behaviour beyond small derived properties, so
the store, the importers, the planner, the analysis and the app can pass them around freely.

Pairwise labels live in *slot space* (`A`, `B`, `tie`, `both_bad`): A and B are the item's
response slots, never screen sides. The screen shows Left/Right and an assignment's `swapped`
flag maps one onto the other (`side_to_slot`, `slot_to_side`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

TaskKind = Literal["pairwise", "single", "rubric", "ranking"]
ItemKind = Literal["pairwise", "single", "ranking"]
Cohort = Literal["expert", "crowd", "author", "llm"]

TASK_KINDS: tuple[str, ...] = ("pairwise", "single", "rubric", "ranking")
COHORTS: tuple[str, ...] = ("expert", "crowd", "author", "llm")
"""Rater cohorts. Every cohort but `llm` is people; `author` is the people who wrote a benchmark
(MT-Bench's `author_N`), kept apart from its expert annotators."""
HUMAN_COHORTS: tuple[str, ...] = ("expert", "crowd", "author")
LLM_COHORTS: tuple[str, ...] = ("llm",)
SLOTS: tuple[str, ...] = ("A", "B")
PAIRWISE_LABELS: tuple[str, ...] = ("A", "B", "tie", "both_bad")
INVALID_LABEL = "invalid"
"""An imported label that says the rater gave no usable answer (`labels import --label-map X=invalid`):
stored, counted apart, never a vote."""
ROLES: tuple[str, ...] = ("system", "user", "assistant")



@dataclass(frozen=True)
class Message:
    """One turn of a conversation."""

    role: str
    """`system`, `user` or `assistant`."""
    content: str


@dataclass(frozen=True)
class Response:
    """The answer in one slot of an item."""

    slot: str
    """`A` or `B` (single-response items use `A` only; ranking items A, B, C, ... up to F)."""
    text: str
    """The final assistant message being judged."""
    model: str | None = None
    """The model that wrote it; never shown to annotators."""
    history: tuple[Message, ...] = ()
    """Earlier turns specific to this side (e.g. the model's own answer to turn 1 when turn 2 is
    judged, as in MT-Bench and Arena); shown above `text` in this side's pane."""


@dataclass(frozen=True)
class Item:
    """A thing to judge: a prompt or conversation and one, two or (ranking) k responses."""

    id: str
    kind: ItemKind
    conversation: tuple[Message, ...]
    """Context shared by both sides; its last message is normally the user turn answered."""
    responses: tuple[Response, ...]
    category: str | None = None
    gold: str | None = None
    """Known right answer in label space (slot space for pairwise), or None."""
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def prompt(self) -> str:
        """The last user message: the request the responses answer."""
        for message in reversed(self.conversation):
            if message.role == "user":
                return message.content
        return ""

    def response(self, slot: str) -> Response:
        """The response in `slot`; KeyError when the item has none there."""
        for response in self.responses:
            if response.slot == slot:
                return response
        raise KeyError(f"item {self.id!r} has no response in slot {slot!r}")

    @property
    def models(self) -> tuple[str | None, ...]:
        return tuple(r.model for r in self.responses)


@dataclass(frozen=True)
class Annotator:
    """A person or rater; LLM judges and crowd voters are annotators of their cohort."""

    id: int
    name: str
    cohort: str = "expert"


@dataclass(frozen=True)
class Assignment:
    """One item in one annotator's queue, with the side mapping and the condition."""

    id: int
    annotator: str
    item_id: str
    position: int
    """Zero-based place in the annotator's queue."""
    swapped: bool = False
    """False: slot A on the left. True: slot B on the left."""
    condition: str = "none"
    """Suggestion display mode (DESIGN.md section 6); `none` when no experiment runs."""
    purpose: str = "main"
    """`main`, `gold`, `attention` or `repeat` (planning adds the quality items)."""
    suggestion_id: int | None = None
    seed: int | None = None
    order: tuple[str, ...] = ()
    """Ranking items: the slots at display positions 1, 2, ... (`("C", "A", "D", "B")`: slot C shown
    first); empty for pairs (`swapped` says their order) and single responses."""


@dataclass(frozen=True)
class Timings:
    """How long a judgment took, from a monotonic clock; milliseconds unless named otherwise."""

    shown_at: str
    """UTC ISO-8601 time the item was painted."""
    first_input_ms: int | None
    submit_ms: int
    """Time from shown to submit."""
    active_ms: int
    """Time from shown to submit with idle gaps over 30 s removed."""
    pane_view_ms: Mapping[str, int] = field(default_factory=dict)
    """Per slot (`A`/`B`), time that slot's pane was in view."""
    pane_max_scroll: Mapping[str, float] = field(default_factory=dict)
    """Per slot, the deepest scroll position reached, 0..1 of the scrollable height."""
    guideline_ms: int = 0
    """Time the guideline panel was open."""
    suggestion_ms: int | None = None
    """Time a suggestion was on screen, when one was shown."""


@dataclass(frozen=True)
class Span:
    """An error an annotator marked in one response: a stretch of its text, a category and a severity.

    Offsets index the response's original text as stored (`Response.text`), never the rendered or
    sanitised text on screen: `text[start:end]` is the stretch, in Python str indices (code points),
    0 <= start < end <= len(text). A span belongs to a response slot (`A`, `B`), never a screen side.
    """

    slot: str
    start: int
    end: int
    category: str
    """A category of the session's error taxonomy (annotate.design.spans)."""
    severity: str
    """One of the taxonomy's severities (`minor`, `major` by default)."""
    note: str = ""
    """The annotator's optional note on this error."""


@dataclass(frozen=True)
class Judgment:
    """A submitted answer (or skip) for one assignment."""

    assignment_id: int
    label: str | None
    """Slot-space label for pairwise (A/B/tie/both_bad, or a signed strength `+2`..`-2` on a graded
    scale; for aspects the primary aspect's), the grade as text for single; None for a skip or a
    rubric."""
    timings: Timings
    scores: Mapping[str, int | str] = field(default_factory=dict)
    """Rubric: criterion -> score (int). Aspects: aspect -> slot-space value (text). Else empty
    (annotate.design.LabelSchema.encode says which)."""
    initial_label: str | None = None
    """Two-stage designs: the label committed before a suggestion was shown."""
    rationale: str = ""
    confidence: int | None = None
    """1 (guess) to 5 (certain), or None when not given."""
    guideline_id: str | None = None
    guideline_version: str | None = None
    skip_reason: str | None = None
    """Set for a skip; then `label` is None."""
    uid: str = ""
    """Globally unique id, so copies of a session can be merged idempotently."""
    id: int | None = None
    superseded_by: int | None = None
    spans: tuple[Span, ...] = ()
    """Errors marked in the responses (sessions whose schema has spans), in slot space."""

    @property
    def skipped(self) -> bool:
        return self.skip_reason is not None


@dataclass(frozen=True)
class Event:
    """Something that happened while annotating: a key action, a scroll, a reveal."""

    kind: str
    mono_ns: int
    """time.monotonic_ns() when it happened."""
    wall_time: str
    """UTC ISO-8601."""
    payload: Mapping[str, Any] = field(default_factory=dict)
    assignment_id: int | None = None
    annotator: str | None = None
    uid: str = ""


@dataclass(frozen=True)
class ExternalLabel:
    """A vote made elsewhere: a crowd vote, an expert's spreadsheet, an LLM judge's verdict."""

    source: str
    """Where it came from: file name or format (`arena`, `mtbench`, ...)."""
    rater: str
    cohort: str
    item_id: str
    label: str
    raw: str = ""
    """The original value before mapping, for audit."""
    shown_first: str | None = None
    """The slot (`A` or `B`) the rater saw first, when the source says; None when unknown. With it,
    the report measures the rater's position bias (first shown against second shown)."""


@dataclass(frozen=True)
class Suggestion:
    """An LLM's label for an item, shown to annotators under an experiment's conditions."""

    item_id: str
    source_model: str
    label: str
    rationale: str = ""
    swapped_label: str | None = None
    """The verdict when asked with the responses in the other order (position consistency)."""
    planted: bool = False
    prompt_hash: str = ""
    raw: str = ""
    id: int | None = None


def side_to_slot(side: str, swapped: bool) -> str:
    """Map a screen side (`left`/`right`) or a side-space label to slot space.

    `tie` and `both_bad` pass through unchanged.
    """
    if side in ("tie", "both_bad"):
        return side
    left = "B" if swapped else "A"
    right = "A" if swapped else "B"
    if side == "left":
        return left
    if side == "right":
        return right
    raise ValueError(f"unknown side {side!r}: expected left, right, tie or both_bad")


SIDE_TEXT = {"left": "Left better", "right": "Right better", "tie": "Tie", "both_bad": "Both bad"}
"""A side-space outcome as the screen words it (what an annotator, adjudicator or trainee saw)."""


def slot_to_side(slot: str, swapped: bool) -> str:
    """Map a slot (`A`/`B`) or slot-space label to the screen side it is shown on."""
    if slot in ("tie", "both_bad"):
        return slot
    if slot not in SLOTS:
        raise ValueError(f"unknown slot {slot!r}: expected A, B, tie or both_bad")
    return "left" if (slot == "A") != swapped else "right"
