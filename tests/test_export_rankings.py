"""Exports of ranking sessions: judgments and answers carry the slot-space ranking, the display order
and the ranking as the screen showed it (over display positions); preferences are the pairs the
rankings imply; items as CSV carry every slot and import back."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.formats import import_items
from annotate.formats.export import export_rows
from annotate.model import Assignment, Item, Judgment, Message, Response, Timings
from annotate.session import create_session, open_store

T = Timings("2024-01-01T00:00:00+00:00", 100, 5000, 5000)
MODELS = {"A": "m-a", "B": "m-b", "C": "m-c"}
# (rater, item, display order, stored ranking in slot space, the same ranking over display positions)
JUDGED = [
    ("alice", "r1", ("A", "B", "C"), "B>A>C", "2>1>3"),  # identity order: positions are slots
    ("bob", "r1", ("C", "A", "B"), "B>A>C", "3>2>1"),  # C at 1, A at 2, B at 3
    ("carol", "r1", ("B", "C", "A"), "A=B>C", "1=3>2"),
    ("alice", "r2", ("C", "B", "A"), "C>B>A", "1>2>3"),
    ("bob", "r2", ("A", "B", "C"), "A>B=C", "1>2=3"),
]


def _item(item_id: str, gold: str | None = None) -> Item:
    return Item(item_id, "ranking", (Message("user", f"Question {item_id}?"),),
                tuple(Response(s, f"Answer {s} to {item_id}.", MODELS[s]) for s in "ABC"), gold=gold)


@pytest.fixture
def ranked(tmp_path: Path):
    spec = create_session("rk", "ranking", seed=3, folder=tmp_path / "sessions")
    spec_text = spec.path.read_text().replace("k = 4 ", "k = 3 ")
    spec.path.write_text(spec_text)
    from annotate.spec import load_spec

    spec = load_spec(spec.path)
    store = open_store(spec)
    store.add_items([_item("r1"), _item("r2"), _item("r3", gold="C>A>B")])
    for n, (rater, item, order, ranking, _) in enumerate(JUDGED):
        [a] = store.add_assignments([Assignment(0, rater, item, n, order=order)])
        store.submit(Judgment(a.id, ranking, T))
    yield spec, store
    store.close()


def test_judgments_carry_the_ranking_in_slot_space_and_as_shown(ranked) -> None:
    spec, store = ranked
    _, rows = export_rows(store, "judgments", schema=spec.schema)
    got = [(r["annotator"], r["item"], r["display_order"], r["label"], r["label_side"]) for r in rows]
    assert got == [(rater, item, "".join(order), ranking, side) for rater, item, order, ranking, side in JUDGED]


def test_answers_long_and_wide(ranked) -> None:
    spec, store = ranked
    columns, rows = export_rows(store, "answers", schema=spec.schema, layout="long")
    long = list(rows)
    assert "display_order" in columns
    assert [(r["value"], r["value_side"], r["display_order"]) for r in long] == [
        (ranking, side, "".join(order)) for _, _, order, ranking, side in JUDGED]
    assert all(r["preference"] is None and r["question"] == "ranking" for r in long)
    columns, rows = export_rows(store, "answers", schema=spec.schema, layout="wide")
    assert columns[-2:] == ("ranking", "ranking_side")
    assert [(r["ranking"], r["ranking_side"]) for r in rows] == [(j[3], j[4]) for j in JUDGED]


def test_preferences_are_the_implied_pairs(ranked) -> None:
    spec, store = ranked
    from annotate.formats import import_labels

    votes = store.path.parent / "dave.csv"
    votes.write_text("item,rater,label\nr3,dave,B>A>C\n")
    import_labels(store, spec.schema, votes, cohort="crowd")
    _, rows = export_rows(store, "preferences", schema=spec.schema)
    got = {(r["item"], r["chosen_slot"], r["rejected_model"]): (r["label_source"], r["n_votes"], r["n_agree"])
           for r in rows}
    # r1: A vs B: B, B, tie -> B by 2 of 3; A vs C: A, A, A; B vs C: B, B, B
    # r2: A vs B: B, A -> tied, no row; A vs C: C, A -> tied; B vs C: C, tie -> tied too (a tie is a class)
    # r3: its gold C>A>B gives every pair, whatever dave's B>A>C says
    assert got == {
        ("r1", "B", "m-a"): ("majority", 3, 2), ("r1", "A", "m-c"): ("majority", 3, 3),
        ("r1", "B", "m-c"): ("majority", 3, 3),
        ("r3", "A", "m-b"): ("gold", 1, 0), ("r3", "C", "m-a"): ("gold", 1, 0), ("r3", "C", "m-b"): ("gold", 1, 0),
    }
    chosen = next(r for r in export_rows(store, "preferences", schema=spec.schema)[1] if r["item"] == "r1")
    assert chosen["chosen"] == "Answer B to r1." and chosen["rejected"] == "Answer A to r1."


def test_items_csv_carries_every_slot_and_imports_back(ranked, tmp_path: Path) -> None:
    spec, store = ranked
    from annotate.formats.export import export

    out = tmp_path / "items.csv"
    export(store, "items", "csv", output=out, raw_csv=True, schema=spec.schema)
    header = out.read_text().splitlines()[0].split(",")
    start = header.index("A")  # after id, ref, kind, category, gold, prompt, conversation
    assert header[start:start + 9] == [
        "A", "model_A", "history_A", "B", "model_B", "history_B", "C", "model_C", "history_C"]
    again = create_session("back", "ranking", seed=3, folder=tmp_path / "other")
    again.path.write_text(again.path.read_text().replace("k = 4 ", "k = 3 "))
    from annotate.spec import load_spec

    again = load_spec(again.path)
    with open_store(again) as other:
        import_items(other, again.schema, out)
        assert [i.responses for i in other.items()] == [i.responses for i in store.items()]
        assert other.item("r3").gold == "C>A>B"
