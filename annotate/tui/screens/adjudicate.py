"""Adjudication: the annotation screen for items where annotators disagree, with their answers.

The adjudicator works through their `adjudication` assignments (annotate/adjudication.py) on the
ordinary pairwise or grade screen, with one addition above the answer bar: the other annotators'
current answers and rationales. Pairwise answers are shown in the adjudicator's own side mapping
(an annotator who chose slot A shows as "Left better" when A is on the adjudicator's left), so
the votes match the panes on screen; an annotator's rationale speaks of their own sides, and the
panel says so when they differ. Model names never appear: votes carry annotator names, labels and
rationales only, and every text is sanitised and never read as markup.

`make_adjudication_app` builds the app; `run_adjudication` runs it on a session.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.reactive import reactive
from textual.widget import Widget

from annotate import adjudication
from annotate.adjudication import Vote, vote_text
from annotate.design import LabelSchema
from annotate.guidelines import Guideline, load_guideline
from annotate.model import Assignment, Item, Span, slot_to_side
from annotate.safe_text import sanitize
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.store.sittings import Sitting
from annotate.tui import app as app_module
from annotate.tui.app import AnnotateApp, run_in_sitting, session_guideline
from annotate.tui.queue import Queue
from annotate.tui.screens.annotate import PairwiseScreen
from annotate.tui.screens.grade import GradeScreen
from annotate.tui.screens.ranking import RankingScreen
from annotate.tui.summary import SittingSummary

RATIONALE_CHARS = 600
"""A rationale longer than this is cut (with an ellipsis) in the votes panel."""
SPANS_LISTED = 4
"""Errors named per annotator in the votes panel (all are underlined in the panes)."""


class VotesPanel(Widget):
    """The other annotators' answers on the item on screen, one line (or more) each."""

    lines: reactive[tuple[tuple[str, str, str, str], ...]] = reactive(())
    """(annotator, answer as the adjudicator reads it, confidence text, note) per vote."""

    def render(self) -> Text:
        out = Text(overflow="fold")
        if not self.lines:
            out.append(" No other answers are recorded for this item.", style="dim")
            return out
        out.append(" Annotators' answers", style="bold")
        out.append(" (shown to you as adjudicator; judge the responses yourself)", style="dim")
        for annotator, answer, confidence, note in self.lines:
            out.append("\n ")
            out.append(sanitize(annotator), style="bold")
            out.append(": ")
            out.append(sanitize(answer), style="bold")
            if confidence:
                out.append(f"  {confidence}", style="dim")
            if note:
                out.append("  ")
                out.append(sanitize(note).replace("\n", " "))
        return out

    def show(self, votes: tuple[Vote, ...], kind: str, swapped: bool, schema: LabelSchema | None = None,
             order: tuple[str, ...] = ()) -> None:
        """Show `votes` for an adjudication assignment with side mapping `swapped` or display `order`
        (ranking items), in the words of the session's label `schema`."""
        lines = []
        for vote in votes:
            confidence = f"confidence {vote.confidence}/5" if vote.confidence else ""
            note = ""
            if vote.rationale:
                text = vote.rationale.strip()
                if len(text) > RATIONALE_CHARS:
                    text = text[:RATIONALE_CHARS].rstrip() + "…"
                note = f"“{text}”"
                if kind == "pairwise" and vote.swapped != swapped:
                    note += " (their left and right were the other way round)"
            if vote.spans:
                note = (note + "  " if note else "") + spans_text(vote.spans, kind, swapped)
            lines.append((vote.annotator, vote_text(vote, kind, swapped, schema, order), confidence, note))
        self.lines = tuple(lines)


def spans_text(spans: tuple[Span, ...], kind: str, swapped: bool) -> str:
    """The errors one annotator marked, on the adjudicator's sides: `errors: Right factual/major “…”`."""
    from annotate.design.spans import words

    parts = []
    for span in spans[:SPANS_LISTED]:
        side = slot_to_side(span.slot, swapped).capitalize() if kind == "pairwise" else "Response"
        parts.append(f"{side} {words(span.category)}/{words(span.severity)}")
    more = f" and {len(spans) - SPANS_LISTED} more" if len(spans) > SPANS_LISTED else ""
    return f"errors ({len(spans)}, underlined in the panes): " + "; ".join(parts) + more


class _Adjudicating:
    """What the adjudication screens add to the annotation screens: the votes panel."""

    annotate_app: AdjudicationApp

    HELP_GROUPS: ClassVar[tuple[tuple[str, tuple[str, ...]], ...]]

    def compose_answer(self) -> ComposeResult:
        yield VotesPanel(id="votes")
        yield from super().compose_answer()  # type: ignore[misc]

    def show_item(self, item: Item, assignment: Assignment) -> None:
        super().show_item(item, assignment)  # type: ignore[misc]
        app = self.annotate_app
        votes = app.votes.get(item.id, ())
        self.query_one(VotesPanel).show(  # type: ignore[attr-defined]
            votes, app.spec.kind, assignment.swapped, app.spec.schema, assignment.order)
        self.record(  # type: ignore[attr-defined]
            "adjudicate.votes_shown", by_annotator=False, annotators=[v.annotator for v in votes],
        )

    def other_spans_for(self, item: Item) -> list[tuple[str, Span]]:
        """The errors the annotators marked, underlined in the adjudicator's panes."""
        return [(vote.annotator, span) for vote in self.annotate_app.votes.get(item.id, ()) for span in vote.spans]


class AdjudicatePairwiseScreen(_Adjudicating, PairwiseScreen):
    """The pairwise screen with the annotators' answers above the label bar."""


class AdjudicateGradeScreen(_Adjudicating, GradeScreen):
    """The grade screen with the annotators' grades above the grade bar."""


class AdjudicateRankingScreen(_Adjudicating, RankingScreen):
    """The ranking screen with the annotators' rankings, over this screen's positions, above the order."""


class AdjudicationApp(AnnotateApp):
    """The annotation app on an adjudicator's adjudication assignments."""

    CSS_PATH = str(Path(app_module.__file__).with_name("app.tcss"))
    TITLE = "annotate: adjudication"

    def __init__(self, *args: Any, votes: Mapping[str, tuple[Vote, ...]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.votes = dict(votes)
        """Item id -> the other annotators' current votes (read when the app was built)."""

    def _item_screen(self, index: int) -> PairwiseScreen | GradeScreen | RankingScreen:  # type: ignore[override]
        if self.spec.kind == "single":
            return AdjudicateGradeScreen(index, self.open_guideline)
        if self.spec.kind == "ranking":
            return AdjudicateRankingScreen(index, self.open_guideline)
        return AdjudicatePairwiseScreen(index, self.open_guideline)


def make_adjudication_app(
    spec: SessionSpec, store: Store, adjudicator: str, *, guideline: Guideline | None = None,
    clock: Callable[[], int] = time.monotonic_ns, sitting_clock: Callable[[], float] = time.monotonic,
    open_guideline: bool = False, sitting: Sitting | None = None,
) -> AdjudicationApp:
    """The adjudication app for `adjudicator` on the session in `store` (already open).

    Adds adjudication assignments for items that came into disagreement since the last time
    (see `annotate.adjudication.ensure_adjudication_queue`).
    """
    assignments = adjudication.ensure_adjudication_queue(store, spec, adjudicator)
    votes = adjudication.item_votes(store, {a.item_id for a in assignments})
    guideline, error = session_guideline(spec, guideline)
    return AdjudicationApp(
        spec, store, adjudicator, Queue(store, adjudicator, adjudication=True), guideline, guideline_error=error,
        clock=clock, sitting_clock=sitting_clock, open_guideline=open_guideline, votes=votes, sitting=sitting,
    )


def run_adjudication(spec: SessionSpec, adjudicator: str) -> SittingSummary:
    """Open the session, run the adjudication app until the adjudicator quits, close it; return what
    the queue holds then. A missing or broken guideline is an error before the session file is
    opened, and the adjudicator works in a sitting, as in `run_app`."""
    from annotate.session import check_identity

    guideline = load_guideline(spec.guideline, spec.project_dir)
    with Store.open(spec.db) as store:
        store.require_writable("adjudicating writes to it")
        check_identity(spec, store)
        return run_in_sitting(
            store, adjudicator,
            lambda sitting: make_adjudication_app(spec, store, adjudicator, guideline=guideline, sitting=sitting),
            lambda: (f"nothing to adjudicate for {adjudicator!r} in session {spec.name!r}: no item has annotators"
                     f" who disagree (or {adjudicator!r} judged every such item themselves)"),
        )
