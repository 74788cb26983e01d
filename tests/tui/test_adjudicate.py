"""Pilot tests of the adjudication screen: the votes it shows and what it stores."""

from __future__ import annotations

from pathlib import Path

from annotate.adjudication import ADJUDICATION, adjudicated_labels
from annotate.model import Judgment, Timings, side_to_slot
from annotate.plan import Rates, apply_plan
from annotate.store.frames import votes_frame
from annotate.tui.screens.adjudicate import (
    AdjudicateGradeScreen,
    AdjudicatePairwiseScreen,
    VotesPanel,
    make_adjudication_app,
)
from tests.tui.conftest import MODELS, make_session, pairwise_item, screen_render

SIZE = (160, 48)


def timings() -> Timings:
    return Timings(shown_at="2025-01-01T00:00:00+00:00", first_input_ms=10, submit_ms=500, active_ms=400)


def answer(store, annotator: str, item_id: str, label: str, rationale: str = "") -> None:
    (a,) = [x for x in store.assignments(annotator) if x.item_id == item_id]
    store.submit(Judgment(a.id, label, timings(), rationale=rationale, confidence=3))


def disputed_session(tmp_path: Path, kind: str = "pairwise"):
    spec, store = make_session(tmp_path, kind=kind)
    apply_plan(store, spec, ["alice", "bob"], 2, Rates(), 11)
    ids = store.item_ids()
    if kind == "pairwise":
        for item_id in ids:
            answer(store, "alice", item_id, "A", rationale="A is [bold]clearer[/bold] \x1b[2J")
        answer(store, "bob", ids[0], "B", rationale="B is correct")
        answer(store, "bob", ids[1], "tie")
        answer(store, "bob", ids[2], "A")
    else:
        for item_id in ids:
            answer(store, "alice", item_id, "7")
        answer(store, "bob", ids[0], "3")
    return spec, store, ids


async def test_adjudicator_sees_votes_in_their_sides_and_their_answer_becomes_gold(tmp_path: Path) -> None:
    spec, store, ids = disputed_session(tmp_path)
    app = make_adjudication_app(spec, store, "carol")
    assert [a.item_id for a in app.queue.assignments] == ids[:2]
    expected = {}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for step in range(2):
            screen = app.screen
            assert isinstance(screen, AdjudicatePairwiseScreen)
            assignment = screen.assignment
            assert assignment is not None and assignment.purpose == ADJUDICATION
            panel = screen.query_one(VotesPanel)
            shown = {annotator: text for annotator, text, _conf, _note in panel.lines}
            alice_side = "Left better" if not assignment.swapped else "Right better"
            assert shown["alice"] == alice_side
            if step == 0:
                assert shown["bob"] == ("Right better" if not assignment.swapped else "Left better")
                text, raw = screen_render(app)
                assert "alice" in text and "bob" in text and "B is correct" in text
                assert "[bold]clearer[/bold]" in text and "\x1b[2J" not in raw
                assert not any(model in text for model in MODELS)
                assert "secret-category-x" not in text
            else:
                assert shown["bob"] == "Tie"
            key, side = ("2", "right") if step == 0 else ("3", "tie")
            expected[assignment.item_id] = side_to_slot(side, assignment.swapped)
            await pilot.press(key, "enter")
            await pilot.pause()
        await pilot.pause()
    assert app.runner.pending == 0
    assert adjudicated_labels(store) == expected
    carol = [a for a in store.assignments("carol")]
    assert {a.purpose for a in carol} == {ADJUDICATION}
    events = store.events(carol[0].id)
    assert any(e.kind == "adjudicate.votes_shown" and set(e.payload["annotators"]) == {"alice", "bob"}
               for e in events)
    votes = votes_frame(store)
    assert set(votes.loc[votes["purpose"] == ADJUDICATION, "item"]) == set(expected)
    store.close()


async def test_adjudication_of_grades(tmp_path: Path) -> None:
    spec, store, ids = disputed_session(tmp_path, kind="single")
    app = make_adjudication_app(spec, store, "carol")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AdjudicateGradeScreen)
        shown = {annotator: text for annotator, text, _c, _n in screen.query_one(VotesPanel).lines}
        assert shown == {"alice": "grade 7", "bob": "grade 3"}
        await pilot.press("5", "enter")
        await pilot.pause()
    assert adjudicated_labels(store) == {ids[0]: "5"}
    store.close()


async def test_nothing_to_adjudicate_gives_an_empty_queue(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(3)])
    apply_plan(store, spec, ["alice", "bob"], 2, Rates(), 11)
    app = make_adjudication_app(spec, store, "carol")
    assert len(app.queue.assignments) == 0
    store.close()


async def test_ranking_adjudication_shows_votes_over_the_adjudicators_positions(tmp_path: Path) -> None:
    from annotate.model import Assignment
    from annotate.tui.screens.adjudicate import AdjudicateRankingScreen
    from tests.tui.test_ranking import ranking_session

    spec, store = ranking_session(tmp_path, n=2)
    for rater, order, label in (("alice", "ABCD", "A>B>C>D"), ("bob", "DCBA", "B>A=C>D")):
        [a] = store.add_assignments([Assignment(0, rater, "rank-000", 0, order=tuple(order))])
        store.submit(Judgment(a.id, label, timings()))
    app = make_adjudication_app(spec, store, "carol")
    (assignment,) = app.queue.assignments
    assert sorted(assignment.order) == list("ABCD") and assignment.purpose == ADJUDICATION
    order = assignment.order
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AdjudicateRankingScreen)
        shown = {annotator: text for annotator, text, _conf, _note in screen.query_one(VotesPanel).lines}
        position = {slot: str(order.index(slot) + 1) for slot in "ABCD"}
        assert shown["alice"] == " > ".join(position[s] for s in "ABCD")
        tie = " = ".join(sorted((position["A"], position["C"])))
        assert shown["bob"] == f"{position['B']} > {tie} > {position['D']}"
        # carol ranks what she sees as position 1 first, then 2, 3, 4: stored through her order
        await pilot.press("1", "2", "3", "4", "enter")
        await pilot.pause()
    assert adjudicated_labels(store) == {"rank-000": ">".join(order)}
    store.close()
