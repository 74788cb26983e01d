"""SpanMarking: error spans on an item screen, in any session kind whose schema has `[labels.spans]`.

A mixin of ItemScreen (it uses the screen's panes, item and event log). `m` puts the active response
pane in *span mode*: the pane shows the judged response as plain sanitised text (`plain_lines`),
a cursor moves over it by character, word and line, Space anchors a selection and Enter marks it
(without an anchor, the word under the cursor) in a dialog that asks the category and severity
from the session's taxonomy and an optional note. A mouse drag over the plain text does the same.
Every selection is turned into offsets of the original response text through `annotate.text_map`,
so what is stored never depends on how the text was rendered or sanitised; spans are kept per
response slot, never per screen side.

A pane whose response has marked errors (the annotator's own when revising, other annotators' in
adjudication) shows the plain text with them highlighted; `v` switches a pane between the plain
text and the Markdown view. The spans are part of the answer: submitted with it in one judgment,
and a revision that changes only spans is a new answer.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from functools import partial
from typing import TYPE_CHECKING

from textual import events
from textual.binding import ActiveBinding

from annotate.design.spans import Taxonomy
from annotate.model import Item, Judgment, Span
from annotate.text_map import TextMap
from annotate.tui.plain_lines import Mark, severity_kind
from annotate.tui.screens.span_dialog import SpanDialog
from annotate.tui.widgets.key_bar import KeyBar
from annotate.tui.widgets.response_pane import ResponsePane
from annotate.tui.widgets.span_strip import SpanRow, SpanStrip, StripState

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object

KEPT_MAPS = 8
"""Offset maps kept (one per response): the last four items of a pair, enough to go back a few items."""

MOVES = frozenset({"left", "right", "up", "down", "word", "word_back", "word_end", "line_start", "line_end",
                   "page_up", "page_down"})


class SpanMarking(_Base):
    """Error spans: state, keys, mouse and marks of an ItemScreen (module docstring)."""

    def init_spans(self) -> None:
        self.spans: list[Span] = []
        """The errors marked in the answer on screen, slot space, in the order they were marked."""
        self.other_spans: list[tuple[str, Span]] = []
        """(annotator, span) of other annotators' answers shown on this item (adjudication)."""
        self.span_slot: str | None = None
        """The slot of the pane in span mode, or None outside span mode."""
        self.cursor = 0
        """Span mode: the cursor, a stop of the pane's text map."""
        self.anchor: int | None = None
        """Span mode: where the selection started (a stop), or None."""
        self.current_span: Span | None = None
        """The span last jumped to, added or changed (highlighted; `x` deletes it)."""
        self._plain_choice: dict[str, bool] = {}
        """Slot -> the view chosen with `v` on this item (True: plain text)."""
        self._maps: OrderedDict[tuple[str, str], TextMap] = OrderedDict()
        """(item id, slot) -> the response's offset map, with its layouts, for the last few items."""
        self._prepared: Item | None = None
        """The item `prepare_spans` last ran for."""

    # -- what the session allows ---------------------------------------------------------------

    @property
    def taxonomy(self) -> Taxonomy | None:
        """The session's error taxonomy, or None when spans are not part of its answers."""
        return self.annotate_app.taxonomy

    def span_action_state(self, action: str) -> bool | None:
        """check_action for `mark_errors` and `plain_view`: hidden unless spans are on."""
        if self.taxonomy is None:
            return False
        return True if any(p.slot is not None for p in self.response_panes()) else None

    # -- per item ------------------------------------------------------------------------------

    def spans_shown(self, item: Item, stored: Judgment | None) -> None:
        """A new item is on screen: its stored spans (revising), others' (adjudication), plain views."""
        if self.taxonomy is not None:
            self.span_dialog().abandon()  # a dialog about the item that left (the queue was read again)
        self._leave_span_mode(record=False)
        self.spans = list(stored.spans) if stored is not None and not stored.skipped else []
        self.other_spans = self.other_spans_for(item)
        self.current_span = None
        self._plain_choice = {}
        if self.taxonomy is not None:
            self.refresh_spans()

    def other_spans_for(self, item: Item) -> list[tuple[str, Span]]:
        """Spans of other annotators shown on this item (the adjudication screens say which)."""
        return []

    def answer_spans(self) -> tuple[Span, ...]:
        """The spans of the answer, in text order, for the Judgment."""
        return tuple(sorted(self.spans, key=lambda s: (s.slot, s.start, s.end, s.category, s.severity, s.note)))

    def text_map(self, slot: str) -> TextMap:
        """The map of the judged response in `slot`, built once per item and kept for the last few
        items (KEPT_MAPS), so that going back to revise one lays its plain text out again for nothing."""
        assert self.item is not None
        text, key = self.item.response(slot).text, (self.item.id, slot)
        found = self._maps.get(key)
        if found is None or found.original != text:
            found = self._maps[key] = TextMap(text)
            while len(self._maps) > KEPT_MAPS:
                self._maps.popitem(last=False)
        self._maps.move_to_end(key)
        return found

    def prepare_spans(self) -> None:
        """Build the offset maps and plain layouts of the responses on screen while the annotator
        reads (after the item is painted), so that `m` and the first cursor keys only paint."""
        if self.taxonomy is None or self.item is None:
            return
        for pane in self.response_panes():
            if pane.slot is not None and pane.render_width > 0:
                text = self.text_map(pane.slot)
                text.prepare(pane.render_width)
                pane.prepare_plain(text)
        self._prepared = self.item

    def spans_prepared(self) -> bool:
        """Whether `prepare_spans` has run for the item on screen (benchmarks wait for it)."""
        if self.taxonomy is None or self.item is None:
            return True
        return self._prepared is self.item

    def _pane_of(self, slot: str | None) -> ResponsePane | None:
        return next((p for p in self.response_panes() if p.slot == slot and slot is not None), None)

    # -- keys outside span mode ----------------------------------------------------------------

    def action_mark_errors(self) -> None:
        if self.taxonomy is None:
            return
        targets = self.scroll_targets()
        view = targets[min(self.active, len(targets) - 1)]
        pane = view if isinstance(view, ResponsePane) and view.slot is not None else None
        if pane is None:
            pane = next((p for p in self.response_panes() if p.slot is not None), None)
        if pane is None:
            return
        self._enter_span_mode(pane)

    def action_plain_view(self) -> None:
        if self.taxonomy is None:
            return
        targets = self.scroll_targets()
        view = targets[min(self.active, len(targets) - 1)]
        if not isinstance(view, ResponsePane) or view.slot is None or view.slot == self.span_slot:
            return
        plain = view.plain is None
        self._plain_choice[view.slot] = plain
        self.record("span.view", pane=view.slot, plain=plain)
        self.refresh_spans()

    def _enter_span_mode(self, pane: ResponsePane, at: int | None = None) -> None:
        assert pane.slot is not None
        text = self.text_map(pane.slot)
        if not text.stops:
            self.show_notice("nothing to mark: this response is empty")
            return
        if self.span_slot is not None and self.span_slot != pane.slot:
            self._leave_span_mode(record=False)
        self.span_slot = pane.slot
        self.anchor = None
        targets = self.scroll_targets()
        if pane in targets:
            self.active = targets.index(pane)
            self._mark_active()
        pane.show_plain(text)  # the plain text, laid out: where the cursor starts
        lines = pane.plain_lines
        if at is not None:
            self.cursor = text.stop_at(at)
        elif lines is not None:
            top = min(round(pane.scroll_y), len(lines.layout) - 1)
            self.cursor = text.stop_at(lines.layout.line(top).start)
        else:
            self.cursor = text.stops[0]
        pane.span_key = self._span_key
        pane.can_focus = True
        pane.focus()
        self.record("span.mode", on=True, pane=pane.slot)
        self.refresh_spans()
        self.query_one(KeyBar).refresh()  # span mode's keys, once the pane has the focus

    def _leave_span_mode(self, record: bool = True) -> None:
        pane = self._pane_of(self.span_slot)
        slot = self.span_slot
        self.span_slot = None
        self.anchor = None
        if pane is not None:
            pane.span_key = None
            pane.can_focus = False
            if pane.has_focus:
                self.set_focus(None)
        if record and slot is not None:
            self.record("span.mode", on=False, pane=slot)
            self.refresh_spans()
            self.query_one(KeyBar).refresh()  # the screen's keys again

    # -- span mode -----------------------------------------------------------------------------

    def _span_key(self, what: str) -> None:
        pane = self._pane_of(self.span_slot)
        if pane is None or pane.plain_lines is None:
            return
        text, layout = self.text_map(pane.slot or ""), pane.plain_lines.layout
        if what in MOVES:
            rows = max(1, pane.scrollable_content_region.height - 1)
            moves = {
                "left": lambda c: text.step(c, -1), "right": lambda c: text.step(c, 1),
                "up": lambda c: layout.vertical(c, -1), "down": lambda c: layout.vertical(c, 1),
                "word": text.next_word, "word_back": text.previous_word, "word_end": text.word_end,
                "line_start": lambda c: layout.line_edge(c, end=False),
                "line_end": lambda c: layout.line_edge(c, end=True),
                "page_up": lambda c: layout.vertical(c, -rows), "page_down": lambda c: layout.vertical(c, rows),
            }
            if self.anchor is not None and self.cursor >= self.anchor and what in ("word", "word_back"):
                # extending a selection forwards: by whole words, to their last character
                moves["word"] = text.word_end
                moves["word_back"] = lambda c: max(text.previous_word_end(c), self.anchor or 0)
            self.cursor = moves[what](self.cursor)
            pane.scroll_to_line(layout.line_of(self.cursor))
            self.record("key.span_cursor", how=what, offset=text.starts[self.cursor])
        elif what == "anchor":
            self.anchor = None if self.anchor is not None else self.cursor
            self.record("key.span_anchor", on=self.anchor is not None, offset=text.starts[self.cursor])
        elif what == "confirm":
            self._confirm(pane, text)
            return
        elif what in ("next", "previous"):
            self._jump(pane, text, 1 if what == "next" else -1)
        elif what == "delete":
            self._delete(pane.slot or "")
        elif what in ("pane", "pane_back"):
            others = [p for p in self.response_panes() if p.slot is not None and p is not pane]
            if others:
                self._enter_span_mode(others[0])
            return
        elif what == "escape":
            if self.anchor is not None:
                self.anchor = None
                self.record("key.span_anchor", on=False, offset=text.starts[self.cursor])
            else:
                self._leave_span_mode()
                return
        self.refresh_spans()

    def _span_mouse(self, pane: ResponsePane, kind: str, line: int, column: int) -> None:
        """A press, drag or release in a pane showing plain text (span mode starts on a press)."""
        if pane.plain_lines is None or pane.slot is None:
            return
        layout = pane.plain_lines.layout
        stop = layout.stop_at_cell(line, column)
        if kind == "down":
            if self.span_slot != pane.slot:
                self._enter_span_mode(pane, at=stop)
            self.cursor = stop
            self.anchor = stop
        elif kind == "drag":
            self.cursor = stop
        elif kind == "up":
            self.cursor = stop
            if self.anchor is not None and self.anchor != stop:
                self.record("mouse.span_select", pane=pane.slot)
                self._confirm(pane, self.text_map(pane.slot))
                return
            self.anchor = None
        self.refresh_spans()

    def _own_on(self, slot: str) -> list[Span]:
        return sorted((s for s in self.spans if s.slot == slot), key=lambda s: (s.start, s.end))

    def _span_under(self, slot: str, text: TextMap, stop: int) -> Span | None:
        offset = text.starts[stop] if stop < len(text) else len(text.original)
        found = [s for s in self._own_on(slot) if s.start <= offset < s.end]
        if self.current_span in found:
            return self.current_span
        return found[0] if found else None

    def span_dialog(self) -> SpanDialog:
        """The screen's dialog for the category, severity and note of an error (hidden when closed)."""
        return self.query_one("#span-dialog", SpanDialog)

    def _routing_dialog(self) -> SpanDialog | None:
        """The span dialog while it is open and the focus is outside it (keys are routed to it)."""
        if self.taxonomy is None:
            return None
        dialog = self.span_dialog()
        if not dialog.is_open or dialog.has_focus_within:
            return None
        return dialog

    def on_key(self, event: events.Key) -> None:
        """While the span dialog is open, the keys the focused pane (or the screen) gets go to the box,
        before any binding (the focus stays on the pane: see span_dialog)."""
        dialog = self._routing_dialog()
        if dialog is not None:
            event.stop()
            event.prevent_default()
            dialog.press(event.key)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """While the span dialog is open no key reaches the app's bindings, as when the box had the focus."""
        return self.taxonomy is not None and self.span_dialog().is_open

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """The span dialog's bindings while keys are routed to it (the key bar shows them)."""
        dialog = self._routing_dialog()
        if dialog is not None:
            return dialog.routed_bindings()
        return super().active_bindings  # type: ignore[misc]

    def _forward_event(self, event: events.Event) -> None:
        """While the span dialog is open, mouse events outside it go nowhere (it is modal)."""
        if isinstance(event, events.MouseEvent) and self.taxonomy is not None:
            dialog = self.span_dialog()
            if dialog.is_open:
                try:
                    widget, _region = self.get_widget_at(event.x, event.y)
                except Exception:
                    return
                if widget is not dialog and dialog not in widget.ancestors:
                    return
        super()._forward_event(event)  # type: ignore[misc]

    def _confirm(self, pane: ResponsePane, text: TextMap) -> None:
        from annotate.tui.screens.span_dialog import SpanChoice

        slot = pane.slot or ""
        editing: Span | None = None
        if self.anchor is not None:
            start, end = text.trimmed(*text.original_span(self.anchor, self.cursor))
        else:
            editing = self._span_under(slot, text, self.cursor)
            if editing is not None:
                start, end = editing.start, editing.end
            else:
                first, last = text.word_at(self.cursor)
                start, end = text.original_span(first, last)
        taxonomy = self.taxonomy
        assert taxonomy is not None
        self.record("span.dialog", pane=slot, start=start, end=end, editing=editing is not None)
        initial = SpanChoice(editing.category, editing.severity, editing.note) if editing is not None else None

        def done(choice: SpanChoice | None) -> None:
            self.query_one(KeyBar).refresh()  # span mode's keys again
            if choice is None:
                self.record("span.cancel", pane=slot)
                self.refresh_spans()
                return
            span = Span(slot, start, end, choice.category, choice.severity, choice.note)
            if editing is not None:
                self.spans = [span if s is editing else s for s in self.spans]
                self.record("span.change", pane=slot, start=start, end=end, category=span.category,
                            severity=span.severity, note_chars=len(span.note))
            else:
                self.spans.append(span)
                self.record("span.add", pane=slot, start=start, end=end, category=span.category,
                            severity=span.severity, note_chars=len(span.note))
            self.current_span = span
            self.anchor = None
            self.refresh_spans()
            self.refresh_answer()

        self.span_dialog().open(pane.title, text.original[start:end], initial, done)
        self.query_one(KeyBar).refresh()  # the dialog's keys

    def _jump(self, pane: ResponsePane, text: TextMap, step: int) -> None:
        spans = self._own_on(pane.slot or "")
        if not spans:
            self.app.bell()
            return
        starts = [s.start for s in spans]
        here = text.starts[self.cursor]
        if step > 0:
            k = bisect.bisect_right(starts, here) % len(spans)
        else:
            k = (bisect.bisect_left(starts, here) - 1) % len(spans)
        self.current_span = spans[k]
        self.cursor = text.stop_of_offset(spans[k].start)
        self.anchor = None
        layout = pane.plain_lines.layout if pane.plain_lines is not None else None
        if layout is not None:
            pane.scroll_to_line(layout.line_of(self.cursor))
        self.record("key.span_jump", pane=pane.slot, start=spans[k].start)

    def _delete(self, slot: str) -> None:
        text = self.text_map(slot)
        span = self._span_under(slot, text, self.cursor) or (
            self.current_span if self.current_span is not None and self.current_span.slot == slot else None)
        if span is None:
            self.app.bell()
            return
        self.spans = [s for s in self.spans if s is not span]
        self.current_span = None
        self.record("span.delete", pane=slot, start=span.start, end=span.end, category=span.category)
        self.refresh_answer()

    # -- painting ------------------------------------------------------------------------------

    def refresh_spans(self) -> None:
        """Put every response pane in the view it needs (plain text where errors are marked, in
        span mode, or where `v` chose it) with its marks, and update the strip."""
        taxonomy = self.taxonomy
        if taxonomy is None or self.item is None:
            return
        for pane in self.response_panes():
            slot = pane.slot
            if slot is None:
                continue
            own = self._own_on(slot)
            theirs = [s for _who, s in self.other_spans if s.slot == slot]
            plain = slot == self.span_slot or self._plain_choice.get(slot, bool(own or theirs))
            if not plain:
                pane.show_plain(None)
                continue
            text = self.text_map(slot)
            pane.show_plain(text)
            pane.span_mouse = partial(self._span_mouse, pane)
            marks = [Mark(*text.shown_range(s.start, s.end), "other") for s in theirs]
            marks += [Mark(*text.shown_range(s.start, s.end), severity_kind(s.severity, taxonomy.severities))
                      for s in own]
            if self.current_span is not None and self.current_span.slot == slot:
                marks.append(Mark(*text.shown_range(self.current_span.start, self.current_span.end), "current"))
            if slot == self.span_slot and text.stops:
                if self.anchor is not None:
                    first, last = min(self.anchor, self.cursor), max(self.anchor, self.cursor)
                    marks.append(Mark(first, text.unit_end(last), "selection"))
                marks.append(Mark(self.cursor, text.unit_end(self.cursor), "cursor"))
            pane.set_marks(marks)
            count = f"{len(own)} error{'s' if len(own) != 1 else ''} marked" if own else "no errors marked"
            pane.set_subtitle(f"plain text · {count}" + (" · span mode" if slot == self.span_slot else ""))
        self._refresh_strip(taxonomy)
        self.query_one(KeyBar).refresh_if_changed()

    def _refresh_strip(self, taxonomy: Taxonomy) -> None:
        strips = self.query(SpanStrip)
        if not strips:
            return
        severe = taxonomy.severities[-1] if len(taxonomy.severities) > 1 else ""
        counts = []
        for pane in self.response_panes():
            if pane.slot is None:
                continue
            own = self._own_on(pane.slot)
            counts.append((pane.title, len(own), sum(1 for s in own if severe and s.severity == severe)))
        rows = tuple(SpanRow(s.category, s.severity, self.text_map(pane.slot).original[s.start:s.end], s.note,
                             current=s is self.current_span, where=pane.title)
                     for pane in self.response_panes() if pane.slot is not None for s in self._own_on(pane.slot))
        state = StripState(tuple(counts), rows=rows, others=len(self.other_spans), severe_word=severe or "major")
        pane = self._pane_of(self.span_slot)
        if pane is not None and pane.slot is not None:
            text = self.text_map(pane.slot)
            anchored = 0
            if self.anchor is not None:
                start, end = text.original_span(self.anchor, self.cursor)
                anchored = end - start
            rows = tuple(SpanRow(s.category, s.severity, text.original[s.start:s.end], s.note,
                                 current=s is self.current_span) for s in self._own_on(pane.slot))
            state = StripState(state.counts, pane.title, anchored, rows, state.others, state.severe_word)
        strips.first().state = state
