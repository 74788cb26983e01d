"""ItemClock with synthetic monotonic clocks: no app, no sleeping."""

from __future__ import annotations

from annotate.timing import IDLE_GAP_NS, ItemClock

S = 1_000_000_000
MS = 1_000_000


def test_first_input_submit_and_active_time() -> None:
    clock = ItemClock(shown_ns=10 * S, shown_at="2024-01-01T00:00:00.000+00:00")
    clock.input(12 * S)
    clock.input(15 * S)
    t = clock.finish(20 * S)
    assert t.first_input_ms == 2000
    assert t.submit_ms == 10_000
    assert t.active_ms == 10_000
    assert t.shown_at == "2024-01-01T00:00:00.000+00:00"


def test_no_input_before_submit() -> None:
    clock = ItemClock(0, "x")
    t = clock.finish(5 * S)
    assert t.first_input_ms is None
    assert t.active_ms == 5000


def test_idle_gaps_over_30s_are_removed() -> None:
    clock = ItemClock(0, "x")
    clock.input(10 * S)  # 10 s active
    clock.input(10 * S + IDLE_GAP_NS + 1)  # idle gap: removed whole
    clock.input(10 * S + IDLE_GAP_NS + 1 + 30 * S)  # exactly 30 s: kept
    t = clock.finish(10 * S + IDLE_GAP_NS + 1 + 35 * S)
    assert t.active_ms == 10_000 + 30_000 + 5_000
    assert t.submit_ms == (10 * S + IDLE_GAP_NS + 1 + 35 * S) // MS


def test_idle_before_submit_is_removed() -> None:
    clock = ItemClock(0, "x")
    clock.input(3 * S)
    t = clock.finish(3 * S + 120 * S)
    assert t.active_ms == 3000


def test_pane_view_time_and_scroll_depth() -> None:
    clock = ItemClock(0, "x")
    clock.pane_visible("A", True, 0)
    clock.pane_visible("B", True, 0)
    clock.pane_visible("B", False, 4 * S)  # A maximised
    clock.pane_visible("B", True, 6 * S)
    clock.pane_visible("B", True, 7 * S)  # repeated enter changes nothing
    clock.scrolled("A", 0.5)
    clock.scrolled("A", 0.25)
    clock.scrolled("B", 1.7)
    t = clock.finish(10 * S)
    assert t.pane_view_ms == {"A": 10_000, "B": 8_000}
    assert t.pane_max_scroll == {"A": 0.5, "B": 1.0}


def test_guideline_time() -> None:
    clock = ItemClock(0, "x")
    clock.guideline(True, 0)
    clock.guideline(False, 3 * S)
    clock.guideline(True, 5 * S)
    t = clock.finish(6 * S)
    assert t.guideline_ms == 4000
    clock.guideline(False, 8 * S)
    assert clock.finish(9 * S).guideline_ms == 6000


def test_painted_moves_shown_before_input_only() -> None:
    clock = ItemClock(0, "early")
    clock.guideline(True, 0)
    clock.painted(2 * S, "painted")
    clock.input(3 * S)
    clock.painted(4 * S, "late")  # ignored after input
    t = clock.finish(5 * S)
    assert t.shown_at == "painted"
    assert (t.first_input_ms, t.submit_ms, t.active_ms, t.guideline_ms) == (1000, 3000, 3000, 3000)
