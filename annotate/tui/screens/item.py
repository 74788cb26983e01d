"""ItemScreen: what every annotation screen shares (one item at a time from the queue).

Subclasses (pairwise, grade, rubric) say which panes they show, what the digit keys mean, and
how their answer becomes a Judgment. Everything else lives here and in the mixins by purpose:
navigation (item_nav: submit and move on, back, next unfinished, skip), the answer keys
(item_answer: digits, rationale, confidence), scrolling and linked scrolling (item_scroll),
reading ahead (item_ahead), copying the text selected with the mouse (item_copy), the progress
line and its notices (item_progress), drawing a new item without waiting for the frame timer
(item_frame); here the layout, showing an item, the guideline panel, the per-item clock and the
event log.

Blind by construction: panes receive `Doc`s built by `annotate.tui.content`, which carry only
conversation and response text; titles are fixed strings; the progress line shows the queue
position, never the item id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.events import Resize
from textual.reactive import Reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input

from annotate.model import Assignment, Event, Item, Judgment
from annotate.store.store import utc_now
from annotate.timing import ItemClock
from annotate.tui.compositor import SpanCompositor
from annotate.tui.content import prompt_doc
from annotate.tui.render import Doc
from annotate.tui.screens.item_ahead import ReadAhead
from annotate.tui.screens.item_answer import AnswerKeys
from annotate.tui.screens.item_context import EarlierTurns
from annotate.tui.screens.item_copy import TextCopy
from annotate.tui.screens.item_flag import Flagging
from annotate.tui.screens.item_frame import FrameAtOnce
from annotate.tui.screens.item_nav import Navigation
from annotate.tui.screens.item_progress import ProgressNotices
from annotate.tui.screens.item_scroll import PaneScrolling
from annotate.tui.screens.item_search import PaneSearch
from annotate.tui.screens.item_spans import SpanMarking
from annotate.tui.screens.span_dialog import SpanDialog
from annotate.tui.widgets.doc_view import DocView
from annotate.tui.widgets.guideline_panel import GuidelinePanel
from annotate.tui.widgets.key_bar import KeyBar
from annotate.tui.widgets.label_bar import LabelBar
from annotate.tui.widgets.progress_line import ProgressLine
from annotate.tui.widgets.prompt_pane import PromptPane
from annotate.tui.widgets.response_pane import ResponsePane
from annotate.tui.widgets.span_strip import SpanStrip
from annotate.tui.widgets.suggestion import SuggestionController, SuggestionLine

if TYPE_CHECKING:
    from annotate.tui.app import AnnotateApp

NARROW_BELOW = 120
"""Terminals narrower than this many columns stack the panes."""

GUIDELINE_SIDE_FROM = 150
"""Terminals at least this wide show the guideline as a column beside the panes; narrower ones
float it over them (and answer keys then close it first: a covered response is not judged)."""


def digit_bindings(described: dict[str, tuple[str, str]]) -> list[BindingType]:
    """Bindings for keys 0-9 to `digit(n)`; `described` maps a key to (description, id)."""
    bindings: list[BindingType] = []
    for key in "1234567890":
        description, binding_id = described.get(key, ("", f"digit-{key}"))
        bindings.append(Binding(key, f"digit({key})", description, show=False, id=binding_id,
                                tooltip=description or "Confidence after c"))
    return bindings


class ItemScreen(SpanMarking, AnswerKeys, Navigation, Flagging, EarlierTurns, PaneSearch, PaneScrolling, ReadAhead,
                 TextCopy, ProgressNotices, FrameAtOnce, Screen[None]):
    """Shows one assignment at a time and records what the annotator does with it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Submit", id="submit", tooltip="Save the answer and go to the next item"),
        Binding("r", "rationale", "Rationale", id="rationale", show=False,
                tooltip="Write an optional rationale (Enter closes)"),
        Binding("c", "confidence", "Confidence", id="confidence", show=False,
                tooltip="Then 1 (guess) to 5 (certain); 0 clears"),
        Binding("s", "skip", "Skip", id="skip", tooltip="Skip this item, giving a reason"),
        Binding("b,backspace", "back", "Back", id="back", tooltip="Previous item, to revise its answer"),
        Binding("n", "next_unfinished", "Next unfinished", id="next-unfinished", show=False,
                tooltip="Jump to the next item without an answer"),
        Binding("i,colon", "items", "Items", id="items", show=False,
                tooltip="Your queue with each item's state; go to an item by number or reference"),
        Binding("g", "guideline", "Guideline", id="guideline", tooltip="Show or hide the guideline"),
        Binding("t", "theme", "Theme", id="theme", show=False, tooltip="Switch between the light and dark theme"),
        Binding("question_mark", "help", "Help", id="help", tooltip="Every key"),
        Binding("q", "quit", "Quit", id="quit", tooltip="Save and quit; starting again resumes here"),
        Binding("tab", "switch_pane(1)", "Switch pane", id="switch-pane", show=False,
                tooltip="Scroll keys act on the next pane"),
        Binding("shift+tab", "switch_pane(-1)", "Previous pane", id="switch-pane-back", show=False,
                tooltip="Scroll keys act on the previous pane"),
        Binding("j,down", "scroll('down')", "Scroll down", id="scroll-down", show=False, tooltip="One line"),
        Binding("k,up", "scroll('up')", "Scroll up", id="scroll-up", show=False, tooltip="One line"),
        Binding("space,pagedown", "scroll('page_down')", "Page down", id="page-down", show=False, tooltip="One page"),
        Binding("pageup", "scroll('page_up')", "Page up", id="page-up", show=False, tooltip="One page"),
        Binding("home", "scroll('home')", "Top", id="scroll-home", show=False, tooltip="Top of the pane"),
        Binding("end", "scroll('end')", "Bottom", id="scroll-end", show=False, tooltip="Bottom of the pane"),
        Binding("z", "zoom", "Zoom pane", id="zoom", show=False,
                tooltip="Show the active pane alone; again to restore"),
        Binding("escape", "escape", "Cancel", id="escape", show=False,
                tooltip="Close the rationale, confidence prompt or guideline"),
        Binding("e", "earlier", "Earlier turns", id="earlier-turns", show=False,
                tooltip="Show or fold the turns before the question answered"),
        Binding("slash", "search", "Search", id="search", show=False,
                tooltip="Find text in the prompt, the responses and the open guideline"),
        Binding("greater_than_sign", "match(1)", "Next match", id="match-next", show=False,
                tooltip="Go to the next match of the search"),
        Binding("less_than_sign", "match(-1)", "Previous match", id="match-previous", show=False,
                tooltip="Go to the previous match of the search"),
        Binding("f", "flag", "Flag", id="flag", show=False,
                tooltip="Tell the lead this item has a problem (broken, identity leak, offensive, ...)"),
        Binding("a", "reveal_suggestion", "Suggestion", id="reveal-suggestion", show=False,
                tooltip="Show the suggestion, where one can be asked for"),
        Binding("m", "mark_errors", "Mark errors", id="mark-errors",
                tooltip="Mark error spans in the active response (sessions with [labels.spans])"),
        Binding("v", "plain_view", "Plain text", id="plain-view", show=False,
                tooltip="Show the active response as plain text (errors highlighted) or as Markdown"),
        Binding("ctrl+c,super+c", "copy_text", "Copy", id="copy", show=False,
                tooltip="Copy the text selected with the mouse (drag; double-click selects a pane)"),
    ]

    ALLOW_IN_MAXIMIZED_VIEW = "#progress, #keys, LabelBar"
    """A zoomed pane keeps the progress line, the answer bar and the key bar."""

    AUTO_FOCUS = None
    """Nothing has focus unless the rationale box is open: the screen owns every key."""

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    """Screen's focused widget, without its repaint of the whole screen on every change: the widgets
    whose look depends on focus are restyled and painted by Textual anyway, and span mode moves
    focus on `m` and Escape, where a whole-screen paint on top of the panes' was ~10 ms of each."""

    HELP_NOTES: ClassVar[tuple[str, ...]] = (
        "c then 1-5 sets your confidence (1 guess .. 5 certain); c then 0 clears it.",
        "The mouse wheel scrolls the pane under the pointer.",
    )
    """Lines the help screen shows above the key table."""

    HELP_GROUPS: ClassVar[tuple[tuple[str, tuple[str, ...]], ...]] = ()
    """Extra (title, binding ids) groups a subclass puts first in the help screen."""

    def __init__(self, start_index: int, open_guideline: bool = False) -> None:
        super().__init__()
        self._compositor = SpanCompositor()  # a new item's frames draw only what they write (compositor.py)
        self.index = start_index
        """Queue index of the item on screen."""
        self.open_guideline_on_start = open_guideline
        self.assignment: Assignment | None = None
        self.item: Item | None = None
        self.clock: ItemClock | None = None
        self.events: list[Event] = []
        """Events of the item on screen, not yet written."""
        self.rationale = ""
        self.confidence: int | None = None
        self.mode = ""
        """`confidence` while waiting for a 1-5 key."""
        self.linked = True
        """Left and right panes scroll together."""
        self.active = 0
        """Index into `scroll_targets()` of the pane the scroll keys act on."""
        self._painted_ns = 0
        self._render_hold = 0
        """Token of the hold on the render thread taken when the item on screen was shown."""
        self._sync_expect: dict[DocView, int] = {}
        self._last_wheel_event: dict[str, int] = {}
        self.suggestion = SuggestionController(self)
        """Shows the item's LLM suggestion as its condition says (widgets/suggestion.py)."""
        self._notice_timer: Timer | None = None
        """Clears the notice on the progress line."""
        self.init_spans()

    @property
    def annotate_app(self) -> AnnotateApp:
        return self.app  # type: ignore[return-value]

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        app = self.annotate_app
        yield ProgressLine(id="progress")
        yield PromptPane(app.lines_for, id="prompt")
        with Container(id="panes"):
            yield from self.compose_panes()
        yield Input(placeholder="Rationale (optional). Enter or Esc closes.", id="rationale", max_length=4000)
        yield Input(placeholder="Search the panes: Enter finds, Esc closes", id="search", max_length=200)
        yield SuggestionLine(id="suggestion")
        if app.taxonomy is not None:
            yield SpanStrip(id="spans")
        yield from self.compose_answer()
        yield KeyBar(id="keys")
        yield GuidelinePanel(app.guideline, app.guideline_error, app.whole_lines_for, id="guideline")
        if app.taxonomy is not None:
            yield SpanDialog(app.taxonomy, id="span-dialog")  # above the guideline on the overlay layer

    def compose_panes(self) -> ComposeResult:
        """The response panes."""
        raise NotImplementedError

    def compose_answer(self) -> ComposeResult:
        """The widgets that show the answer being given (a label bar by default)."""
        yield LabelBar(id="labels")

    def response_panes(self) -> list[ResponsePane]:
        return list(self.query_one("#panes").query(ResponsePane))

    def scroll_targets(self) -> list[DocView]:
        """Panes the scroll keys can act on, in tab order."""
        targets: list[DocView] = [self.query_one("#prompt", ResponsePane), *self.response_panes()]
        guideline = self.query_one(GuidelinePanel)
        if guideline.display:
            targets.append(guideline)
        return targets

    def on_mount(self) -> None:
        self._apply_width(self.app.size.width)
        guideline = self.query_one(GuidelinePanel)
        guideline.display = self.open_guideline_on_start
        self.query_one("#rationale", Input).disabled = True
        self.query_one("#search", Input).disabled = True
        self.active = 1
        self.show_index(self.index)
        if self.open_guideline_on_start:
            self.active = len(self.scroll_targets()) - 1
        self._mark_active()
        self.set_interval(15, self.refresh_progress)

    def on_resize(self, event: Resize) -> None:
        self._apply_width(event.size.width)
        self.call_after_refresh(self._update_visibility)

    def _apply_width(self, width: int) -> None:
        self.set_class(width < NARROW_BELOW, "-narrow")
        side = width >= GUIDELINE_SIDE_FROM
        self.set_class(side, "-guideline-side")
        self.query_one(GuidelinePanel).set_covering(not side)
        # The guideline overlay spans from under the progress line to above the key bar.
        self.query_one(GuidelinePanel).styles.height = max(3, self.app.size.height - 2)

    # -- hooks for subclasses ----------------------------------------------------------------

    def help_groups(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(title, binding ids) groups the help screen puts first."""
        return self.HELP_GROUPS

    def help_answers(self) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
        """(title, (key, meaning) rows) the help screen shows before any binding: answer keys whose
        meaning the label schema gives rather than a binding's description."""
        return ()

    def show_item(self, item: Item, assignment: Assignment) -> None:
        """Put the item's responses in their panes."""
        for pane_id, doc in self.docs_for(item, assignment):
            pane = self.query_one(f"#{pane_id}", ResponsePane)
            pane.slot = doc.key[-1]
            pane.show(doc)

    def docs_for(self, item: Item, assignment: Assignment) -> list[tuple[str, Doc]]:
        """(pane id, document) for each response pane. Pure: called from the read-ahead thread."""
        raise NotImplementedError

    def has_answer(self) -> bool:
        raise NotImplementedError

    def clear_answer(self) -> None:
        raise NotImplementedError

    def load_answer(self, judgment: Judgment) -> None:
        """Preselect a stored answer (revising)."""
        raise NotImplementedError

    def answer_fields(self) -> dict[str, Any]:
        """`label` and `scores` for the Judgment of the answer given."""
        raise NotImplementedError

    def on_digit(self, digit: str) -> None:
        """A digit key outside the confidence prompt."""
        raise NotImplementedError

    def refresh_answer(self) -> None:
        """Update the answer widgets from the state."""
        bar = self.query_one(LabelBar)
        bar.confidence = self.confidence
        bar.rationale = self.rationale
        bar.mode = self.mode
        bar.can_submit = self.has_answer()
        self.query_one(KeyBar).refresh()

    # -- showing items -----------------------------------------------------------------------

    def show_index(self, index: int) -> None:
        """Show the assignment at queue index `index` (its stored answer preselected)."""
        app = self.annotate_app
        try:
            assignment = app.queue.assignments[index]
            self._read(assignment)
            item = app.prefetcher.item(assignment.item_id).result()
        except Exception as exc:  # a damaged or vanished session file: say so, never crash mid-sitting
            self._unreadable(index, exc)
            return
        # The render thread waits until this item is painted (rendering holds the GIL).
        self._render_hold = app.prefetcher.hold()
        self.index = index
        self.assignment, self.item = assignment, item
        self.events = []
        self.mode = ""
        self.clear_matches()
        self.clear_answer()
        self.rationale, self.confidence = "", None
        stored = app.queue.answers.get(assignment.id)
        if stored is not None and not stored.skipped:
            self.load_answer(stored)
            self.rationale, self.confidence = stored.rationale, stored.confidence
        self.query_one("#prompt", ResponsePane).show(prompt_doc(item, self.show_earlier))
        self.show_item(item, assignment)
        self.spans_shown(item, stored)
        self.suggestion.start(assignment, stored)
        now = app.clock()
        self.clock = ItemClock(now, utc_now())
        guideline = self.query_one(GuidelinePanel)
        if guideline.display:
            self.clock.guideline(True, now)
        self.refresh_answer()
        self.refresh_progress()
        self.record("item.shown", by_annotator=False, position=assignment.position,
                    revising=stored is not None)
        self._read_ahead(index)
        self.draw_next_frame_at_once()
        self.call_after_refresh(self._painted)

    def _unreadable(self, index: int, error: Exception) -> None:
        """Item `index` could not be read: stay on the item on screen (or, at start, quit) and say why."""
        from annotate.safe_text import one_line
        from annotate.store.health import error_text

        reason = one_line(error_text(error, self.annotate_app.store.path))
        if self.item is None:
            self.app.exit(return_code=1, message=f"could not read item {index + 1} of your queue: {reason}")
            return
        self.record("item.unreadable", by_annotator=False, index=index, error=reason[:500])
        self.app.notify(f"Could not read item {index + 1}: {reason}", severity="error", timeout=30)
        self.app.bell()

    # -- events and the clock ----------------------------------------------------------------

    def record(self, kind: str, *, by_annotator: bool = True, **payload: Any) -> None:
        """Buffer an event for the item on screen; `by_annotator` marks an input (for the clock)."""
        app = self.annotate_app
        now = app.clock()
        if by_annotator and self.clock is not None:
            self.clock.input(now)
        app.note_activity(now)
        self.events.append(Event(
            kind=kind, mono_ns=now, wall_time=utc_now(), payload=payload,
            assignment_id=self.assignment.id if self.assignment else None, annotator=app.annotator,
        ))

    def flush_events(self) -> None:
        """Write the buffered events that belong to no submit."""
        if self.events:
            self.annotate_app.write_events(self.events, self.assignment)
            self.events = []

    # -- actions -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "submit":
            return True if self.has_answer() else None
        if action == "back":
            return True if self.index > 0 else None
        if action == "earlier":
            return True if self.can_show_earlier() else None
        if action == "match":
            return True if self.matches else None
        if action == "reveal_suggestion":
            return True if self.suggestion.can_reveal else None
        if action in ("mark_errors", "plain_view"):
            return self.span_action_state(action)
        if action == "next_unfinished":
            queue = self.annotate_app.queue
            nxt = queue.first_unfinished(self.index + 1)
            return True if nxt is not None and nxt != self.index else None
        return True

    def guideline_covers_panes(self) -> bool:
        """The guideline panel is open and floats over the responses (not a column beside them, nor
        hidden by a zoomed pane)."""
        return (self.query_one(GuidelinePanel).display and not self.has_class("-guideline-side")
                and self.maximized is None)

    @on(Input.Submitted, "#rationale")
    def _rationale_done(self, event: Input.Submitted) -> None:
        event.stop()
        self._close_rationale(keep=True)

    @on(Input.Submitted, "#search")
    def _search_done(self, event: Input.Submitted) -> None:
        event.stop()
        self.run_search(event.value)

    def action_escape(self) -> None:
        box = self.query_one("#rationale", Input)
        if box.display:
            self._close_rationale(keep=True)
        elif self.query_one("#search", Input).display:
            self.close_search_box()
            self.record("search.close")
        elif self.mode:
            self.mode = ""
            self.record("key.cancel")
            self.refresh_answer()
        elif self.maximized is not None:
            self.action_zoom()
        elif self.query_one(GuidelinePanel).display:
            self.action_guideline()

    def action_reveal_suggestion(self) -> None:
        self.suggestion.reveal()

    @on(SuggestionLine.LabelArrived)
    def _label_arrived(self, message: SuggestionLine.LabelArrived) -> None:
        message.stop()
        self.suggestion.label_arrived(message.future)

    def action_theme(self) -> None:
        from annotate.tui.themes import other_theme

        self.app.theme = other_theme(self.app.current_theme.dark)
        self.record("theme.switch", theme=self.app.theme)

    def action_help(self) -> None:
        from annotate.tui.screens.help import HelpScreen

        self.record("help.open")
        self.app.push_screen(HelpScreen(self))

    def action_quit(self) -> None:
        self.record("app.quit")
        self.flush_events()
        self.annotate_app.quit_after_writes()

    def action_guideline(self) -> None:
        panel = self.query_one(GuidelinePanel)
        panel.display = not panel.display
        now = self.annotate_app.clock()
        self.record("guideline.toggle", open=panel.display)
        if self.clock is not None:
            self.clock.guideline(panel.display, now)
        self.active = len(self.scroll_targets()) - 1 if panel.display else 1
        self._mark_active()
        self.call_after_refresh(self._update_visibility)
