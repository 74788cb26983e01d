"""The ranking screen: what is stored, in slot space, for every display order; ties, undo, moving a
response; the events that say what was shown where; other responses one key away; blind."""

from __future__ import annotations

from pathlib import Path

from annotate.design import RANK_SLOTS
from annotate.model import Assignment, Item, Message, Response
from annotate.session import create_session, open_store
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.tui import make_app
from annotate.tui.screens.ranking import RankingScreen
from tests.tui.conftest import screen_render

SECRET = "orca-hidden-13b"


def ranking_item(i: int, k: int = 4) -> Item:
    return Item(
        id=f"rank-{i:03d}", kind="ranking", conversation=(Message("user", f"Question {i}: name a prime."),),
        responses=tuple(Response(s, f"Answer {s}{i}: seven.", f"{SECRET}-{s}") for s in RANK_SLOTS[:k]),
        category="secret-category",
    )


def ranking_session(tmp_path: Path, k: int = 4, ties: bool = True, orders: list[str] | None = None,
                    n: int = 4) -> tuple[SessionSpec, Store]:
    spec = create_session("r", "ranking", seed=11, folder=tmp_path / "sessions")
    if k != 4 or not ties:
        text = spec.path.read_text(encoding="utf-8").replace("k = 4", f"k = {k}")
        spec.path.write_text(text.replace("ties = true", f"ties = {str(ties).lower()}"), encoding="utf-8")
        from annotate.spec import load_spec

        spec = load_spec(spec.path)
    store = open_store(spec)
    store.add_items([ranking_item(i, k) for i in range(n)])
    if orders is not None:
        store.add_assignments([Assignment(0, "ann", f"rank-{i:03d}", i, order=tuple(o))
                               for i, o in enumerate(orders)])
    return spec, store


def _screen(app: object) -> RankingScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, RankingScreen)
    return screen


async def test_the_same_keys_store_the_slots_shown_at_those_positions(tmp_path: Path) -> None:
    orders = ["ABCD", "DBAC", "CDAB", "BADC"]
    spec, store = ranking_session(tmp_path, orders=orders)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for _ in orders:
            await pilot.press("3", "1", "equals_sign", "4", "2", "enter")
            await pilot.pause()
    judgments = {store.assignment(j.assignment_id).item_id: j for j in store.judgments("ann")}
    # positions 3 > 1 = 4 > 2, through each order: position p shows order[p - 1]
    expected = {}
    for i, o in enumerate(orders):
        first, tied, last = o[2], sorted([o[0], o[3]]), o[1]
        expected[f"rank-{i:03d}"] = f"{first}>{'='.join(tied)}>{last}"
    assert {k: j.label for k, j in judgments.items()} == expected
    assert judgments["rank-000"].label == "C>A=D>B"  # the display order A, B, C, D: positions are the slots
    assert judgments["rank-001"].label == "A>C=D>B"  # D, B, A, C: position 3 showed slot A
    assert all(dict(j.scores) == {} for j in judgments.values())
    # the events say what was shown where and what each key placed
    first = store.assignments("ann")[1]
    events = store.events(first.id)
    shown = [e for e in events if e.kind == "ranking.shown"]
    assert shown and shown[0].payload["positions"] == {"1": "D", "2": "B", "3": "A", "4": "C"}
    keys = [(e.payload["position"], e.payload["slot"], e.payload["tie"]) for e in events if e.kind == "key.rank"]
    assert keys == [(3, "A", False), (1, "D", False), (4, "C", True), (2, "B", False)]
    store.close()


async def test_moving_undo_clear_and_submit_only_when_complete(tmp_path: Path) -> None:
    spec, store = ranking_session(tmp_path, orders=["BCDA", "ABCD"])
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("1", "2", "3")
        assert not screen.has_answer()
        await pilot.press("enter")  # not every response placed: nothing happens
        await pilot.pause()
        assert screen.index == 0 and not store.judgments("ann")
        await pilot.press("1")  # placed again: moves to the end
        assert screen.places == [[2], [3], [1]]
        await pilot.press("u", "x", "4", "equals_sign", "2", "equals_sign", "1", "3")
        assert screen.places == [[1, 2, 4], [3]]
        text, _ = screen_render(app)
        assert "1 = 2 = 4 > 3" in text and "=1st" in text
        await pilot.press("enter")
        await pilot.pause()
    (judgment,) = store.judgments("ann")
    assert judgment.label == "A=B=C>D"  # positions 1, 2, 4 show B, C, A; position 3 shows D
    store.close()


async def test_ties_refused_when_the_session_has_none(tmp_path: Path) -> None:
    spec, store = ranking_session(tmp_path, k=3, ties=False, orders=["CAB"], n=1)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("1", "equals_sign", "2", "3")
        screen = _screen(app)
        assert screen.places == [[1], [2], [3]]
        await pilot.press("enter")
        await pilot.pause()
    assert [j.label for j in store.judgments("ann")] == ["C>A>B"]
    store.close()


async def test_other_responses_are_one_key_away_and_timed(tmp_path: Path) -> None:
    spec, store = ranking_session(tmp_path, k=5, orders=["EDCBA"], n=1)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        left, right = screen.query_one("#view-1"), screen.query_one("#view-2")
        assert (left.slot, right.slot) == ("E", "D")
        await pilot.press("right_square_bracket")  # the left pane skips position 2 (on the right)
        assert screen.view == [3, 2] and left.slot == "C"
        await pilot.press("v", "5")
        assert screen.view == [5, 2] and left.slot == "A"
        await pilot.press("tab", "v", "5")  # the right pane now; position 5 moves over, 2 takes its place
        assert screen.view == [2, 5] and (left.slot, right.slot) == ("D", "A")
        text, _ = screen_render(app)
        assert "Response 2" in text and "Response 5" in text and "[2]" in text and "[5]" in text
        await pilot.press("5", "4", "3", "2", "1", "enter")
        await pilot.pause()
    (judgment,) = store.judgments("ann")
    assert judgment.label == "A>B>C>D>E"
    assert set(judgment.timings.pane_view_ms) == {"A", "C", "D", "E"}  # B (position 4) was never shown
    views = [e.payload for e in store.events() if e.kind == "ranking.view"]
    assert [(v["pane"], v["position"], v["slot"]) for v in views] == [(1, 3, "C"), (1, 5, "A"), (2, 5, "A")]
    store.close()


async def test_narrow_terminals_show_one_response_and_reach_every_other(tmp_path: Path) -> None:
    spec, store = ranking_session(tmp_path, k=6, orders=["FEDCBA"], n=1)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        assert [p.id for p in screen.response_panes()] == ["view-1"]
        seen = []
        for _ in range(6):
            seen.append(screen.query_one("#view-1").slot)
            await pilot.press("full_stop")
        assert seen == ["F", "E", "D", "C", "B", "A"]
        text, _ = screen_render(app)
        for position in range(1, 7):
            assert f" {position} " in text or f"[{position}]" in text
    store.close()


async def test_revising_shows_the_stored_order_by_position(tmp_path: Path) -> None:
    spec, store = ranking_session(tmp_path, orders=["DCBA", "ABCD"])
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("2", "1", "4", "3", "enter")
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        screen = _screen(app)
        assert screen.places == [[2], [1], [4], [3]]
        await pilot.press("enter")  # unchanged: nothing new written
        await pilot.pause()
    (judgment,) = store.judgments("ann", include_superseded=True)
    assert judgment.label == "C>D>A>B"
    store.close()


async def test_blind_no_model_slot_or_item_id_on_screen(tmp_path: Path) -> None:
    spec, store = ranking_session(tmp_path, k=4, orders=["BDAC"], n=1)
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        help_text, _ = screen_render(app)
        assert "place the response at that position next" in help_text and "Next response" in help_text
        await pilot.press("escape", "1", "2", "v", "4")
        await pilot.pause()
        text, raw = screen_render(app)
    for secret in (SECRET, "rank-000", "secret-category", "slot"):
        assert secret not in text and secret not in raw
    # the left pane now shows position 4 (slot C), the right position 2 (slot D), titled by position only
    assert "Answer C0" in text and "Answer D0" in text and "Response 4" in text and "Response 2 · 2nd" in text
    store.close()


async def test_flag_search_items_and_earlier_turns_work_on_the_ranking_screen(tmp_path: Path) -> None:
    from annotate.store.flags import flags

    spec, store = ranking_session(tmp_path, orders=["ABCD", "DBAC", "CDAB", "BADC"])
    turn_two = Item("rank-mt", "ranking", (Message("user", "Turn one: name a prime."),
                                           Message("assistant", "EARLIER-ANSWER seven."),
                                           Message("user", "Now name an even prime. FOLLOW-END")),
                    tuple(Response(s, f"Two, says {s}.", f"{SECRET}-{s}") for s in RANK_SLOTS[:4]))
    store.add_items([turn_two])
    store.add_assignments([Assignment(0, "ann", "rank-mt", 4, order=tuple("ABCD"))])
    app = make_app(spec, store, "ann", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("f", "3", "enter")  # offensive, no note
        await pilot.pause()
        assert "flagged: offensive" in screen_render(app)[0]
        await pilot.press("slash", *"seven", "enter")
        await pilot.pause()
        assert len(_screen(app).matches) == 1 and "match 1 of 1" in screen_render(app)[0]  # the response in view
        await pilot.press("i", "5", "enter")
        await pilot.pause()
        screen = _screen(app)
        assert screen.index == 4 and not screen.matches  # another item: the matches are forgotten
        text = screen_render(app)[0]
        assert "FOLLOW-END" in text and "EARLIER-ANSWER" not in text
        await pilot.press("e")
        await pilot.pause()
        assert "EARLIER-ANSWER" in screen_render(app)[0] and "FOLLOW-END" in screen_render(app)[0]
        await pilot.press("q")
        await pilot.pause()
    (flag,) = flags(store)
    assert flag.kind == "offensive" and flag.item_id == "rank-000"
    store.close()
