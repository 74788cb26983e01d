"""The ranking question (annotate.design.ranking): text form, slot/side mapping through the display
order, mid-ranks, implied pairs, [labels] errors naming the key."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from annotate.design import LabelSchema, LabelsError, Ranking, parse_labels
from annotate.spec import SpecError, load_spec


def test_text_form_is_canonical() -> None:
    q = Ranking(k=4)
    assert q.parse("C>A=B>D") == "C>A=B>D"
    assert q.parse(" c > b = a > d ") == "C>A=B>D"  # case, spaces and the order inside a tie do not matter
    assert q.parse("A=B=C=D") == "A=B=C=D"
    for bad in ("C>A>B", "C>A>B>D>A", "A>B>C>E", "A>>B>C>D", "", "A,B,C,D", None, 3):
        assert q.parse(bad) is None, bad
    assert Ranking(k=4, ties=False).parse("C>A=B>D") is None
    assert "C>A=B>D" in q.values and len(q.values) == 75  # the ordered set partitions of 4 (Fubini number)
    assert [len(Ranking(k=k).values) for k in (3, 4, 5, 6)] == [13, 75, 541, 4683]
    assert [len(Ranking(k=k, ties=False).values) for k in (3, 4, 5, 6)] == [6, 24, 120, 720]


@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_every_ranking_round_trips_through_every_display_order(k: int) -> None:
    q = Ranking(k=k)
    rankings = q.values[:: max(1, len(q.values) // 40)]
    for order in itertools.islice(itertools.permutations(q.slots), 0, None, 7):
        for stored in rankings:
            side = q.to_side(stored, order)
            assert q.parse_side(side) == side
            assert q.to_slot(side, order) == stored


def test_side_answer_maps_through_the_order() -> None:
    q = Ranking(k=4)
    order = ("B", "D", "C", "A")  # position 1 shows slot B, 2 D, 3 C, 4 A
    assert q.to_slot("3>1=2>4", order) == "C>B=D>A"
    assert q.to_side("C>B=D>A", order) == "3>1=2>4"
    # unswapped order: positions are the slots' letters in order
    assert q.to_slot("3>1=2>4", ("A", "B", "C", "D")) == "C>A=B>D"
    with pytest.raises(ValueError, match="display order"):
        q.to_slot("3>1=2>4", ("A", "B"))
    with pytest.raises(ValueError, match="unknown answer"):
        q.to_slot("3>1=2", order)


def test_mid_ranks_and_implied_pairs() -> None:
    q = Ranking(k=4)
    assert q.ranks("C>A=B>D") == {"C": 1.0, "A": 2.5, "B": 2.5, "D": 4.0}
    assert q.ranks("A=B=C=D") == {s: 2.5 for s in "ABCD"}
    assert sum(q.ranks("B>D>A>C").values()) == 10  # 1 + 2 + 3 + 4
    assert q.pairs("C>A=B>D") == [("A", "B", "tie"), ("A", "C", "B"), ("A", "D", "A"), ("B", "C", "B"),
                                  ("B", "D", "A"), ("C", "D", "A")]
    assert q.ranks("nonsense") == {} and q.pairs("nonsense") == []
    assert q.preference("C>A=B>D") is None  # a ranking is many pairs, not one


def test_schema_of_a_ranking() -> None:
    schema = parse_labels("ranking", {"k": 5, "ties": False})
    assert schema.kind == "ranking" and schema.shape == "ranking" and schema.level == "ordinal"
    assert schema.n_responses == 5 and schema.slots == ("A", "B", "C", "D", "E")
    assert schema.sided and schema.ranked is not None and schema.ranked.k == 5
    assert schema.gold_labels == schema.ranked.values  # no pairwise preferences for a ranking
    label, scores = schema.encode({"ranking": "E>D>C>B>A"})
    assert (label, scores) == ("E>D>C>B>A", {})
    assert schema.decode(label, scores) == {"ranking": "E>D>C>B>A"}
    identity = schema.identity()
    assert identity["questions"] == [{"name": "ranking", "shape": "ranking", "k": 5, "ties": False,
                                      "description": ""}]
    assert parse_labels("ranking", {"k": 4}).identity() != parse_labels("ranking", {"k": 5}).identity()
    assert LabelSchema.pairwise().n_responses == 2 and LabelSchema.single().slots == ("A",)


@pytest.mark.parametrize(("table", "key", "words"), [
    ({}, "labels.k", "required"),
    ({"k": 7}, "labels.k", "not 7"),
    ({"k": 2}, "labels.k", "pairwise"),
    ({"k": "4"}, "labels.k", "not '4'"),
    ({"k": True}, "labels.k", "not True"),
    ({"k": 4, "ties": "yes"}, "labels.ties", "true or false"),
    ({"k": 4, "scale": "graded-5"}, "labels.scale", "no scale"),
    ({"k": 4, "aspects": []}, "labels.aspects", "pairwise"),
    ({"k": 4, "kk": 3}, "labels.kk", "did you mean 'k'"),
])
def test_bad_ranking_tables_name_the_key(table: dict, key: str, words: str) -> None:
    with pytest.raises(LabelsError) as caught:
        parse_labels("ranking", table)
    assert caught.value.key == key and words in str(caught.value)


def test_k_is_refused_outside_ranking_sessions() -> None:
    with pytest.raises(LabelsError, match=r"\[labels.k\] k is the number of responses of a ranking session"):
        parse_labels("pairwise", {"k": 3})


def test_spec_error_names_file_and_key(tmp_path: Path) -> None:
    path = tmp_path / "r.toml"
    path.write_text('[session]\nname = "r"\nkind = "ranking"\n[labels]\nk = 9\n', encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert str(caught.value) == (f"{path}: [labels.k] an integer from 3 to 6: how many responses each item has to "
                                 "rank, not 9")
    path.write_text('[session]\nname = "r"\nkind = "ranking"\n[labels]\nk = 3\n', encoding="utf-8")
    spec = load_spec(path)
    assert spec.kind == "ranking" and spec.schema.n_responses == 3 and spec.guideline == "ranking-responses"
