"""The label schema (annotate.design): parsing [labels], slot/side mapping, collapse, identity."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from annotate.design import Grade, Graded, LabelSchema, LabelsError, Outcomes, order_of, parse_labels
from annotate.spec import SpecError, load_spec

AB, BA = order_of(False), order_of(True)


def test_default_identities_are_what_older_files_recorded() -> None:
    # The session file of an older annotate stored asdict(LabelSchema): these exact objects.
    assert LabelSchema.default("pairwise").identity() == {"kind": "pairwise", "scale": [1, 10], "criteria": []}
    assert LabelSchema.single(1, 7).identity() == {"kind": "single", "scale": [1, 7], "criteria": []}
    rubric = LabelSchema.default("rubric").identity()
    assert rubric["kind"] == "rubric" and rubric["scale"] == [1, 10]
    assert rubric["criteria"][0] == {"name": "helpfulness", "low": 0, "high": 4, "description": ""}
    assert set(rubric) == {"kind", "scale", "criteria"}


def test_new_shapes_record_their_questions() -> None:
    graded = parse_labels("pairwise", {"scale": "graded-5", "both_bad": True}).identity()
    assert graded["questions"] == [{"name": "preference", "shape": "graded", "points": 5, "both_bad": True,
                                    "description": ""}]
    five = parse_labels("pairwise", {"scale": "graded-5"}).identity()
    assert five != graded and json.dumps(five, sort_keys=True) != json.dumps(graded, sort_keys=True)


@pytest.mark.parametrize("points", [5, 7])
@pytest.mark.parametrize("both_bad", [False, True])
def test_graded_slot_side_round_trip_and_flip(points: int, both_bad: bool) -> None:
    q = Graded(points=points, both_bad=both_bad)
    top = points // 2
    assert q.values[0] == f"+{top}" and q.values[top] == "0" and q.values[2 * top] == f"-{top}"
    assert ("both_bad" in q.values) is both_bad
    for choice in q.choices():
        for order in (AB, BA):
            stored = q.to_slot(choice.value, order)
            assert stored in q.values
            assert q.to_side(stored, order) == choice.value
        if choice.value != "both_bad":
            assert q.to_slot(choice.value, BA) == _neg(q.to_slot(choice.value, AB))
    # key 1 is the strongest preference for the left
    first = q.choices()[0]
    assert first.key == "1" and first.text == "Left much better" and first.value == f"+{top}"
    assert q.to_slot(first.value, BA) == f"-{top}"  # B on the left: B much better


def _neg(value: str) -> str:
    n = -int(value)
    return f"+{n}" if n > 0 else str(n)


def test_graded_collapse_and_numbers() -> None:
    q = Graded(points=7, both_bad=True)
    assert [q.preference(v) for v in q.values] == ["A", "A", "A", "tie", "B", "B", "B", "both_bad"]
    assert [q.number(v) for v in q.values] == [3.0, 2.0, 1.0, 0.0, -1.0, -2.0, -3.0, None]
    assert q.level == "ordinal" and q.scale == (-3, -2, -1, 0, 1, 2, 3)
    assert "0 (about the same) -> tie" in q.collapse_rule and "both bad" in q.collapse_rule


def test_graded_parse_reads_files() -> None:
    q = Graded(points=5)
    assert [q.parse(v) for v in ("2", "+2", 2, 2.0, "-1.0", "0", " 1 ")] == ["+2", "+2", "+2", "+2", "-1", "0", "+1"]
    assert [q.parse(v) for v in ("3", "-3", "1.5", "A", "", None, True, "both_bad")] == [None] * 8
    assert Graded(points=5, both_bad=True).parse("both_bad") == "both_bad"


def test_outcomes_map_sides_to_slots() -> None:
    q = Outcomes()
    assert [(c.key, c.value) for c in q.choices()] == [("1", "left"), ("2", "right"), ("3", "tie"),
                                                       ("4", "both_bad")]
    assert q.to_slot("left", AB) == "A" and q.to_slot("left", BA) == "B"
    assert q.to_slot("right", BA) == "A" and q.to_slot("tie", BA) == "tie"
    assert q.to_side("A", BA) == "right"
    assert all(q.preference(v) == v for v in q.values)
    subset = Outcomes("safety", ("A", "B", "tie"))
    assert [c.key for c in subset.choices()] == ["1", "2", "3"]
    with pytest.raises(ValueError, match="both_bad"):
        subset.to_slot("both_bad", AB)


def test_grade_has_no_sides() -> None:
    q = Grade("grade", 1, 10)
    assert q.parse("7.0") == "7" and q.parse(11) is None and q.parse("x") is None
    assert q.to_slot("7", BA) == "7" and q.preference("7") is None and q.number("10") == 10.0
    assert [c.key for c in q.choices()][-1] == "0"  # 1..10: 0 is 10


def test_encode_decode_per_shape() -> None:
    aspects = parse_labels("pairwise", {"aspects": [{"name": "correctness"}, {"name": "overall",
                                                                               "scale": "graded-5"}]})
    label, scores = aspects.encode({"correctness": "B", "overall": "-1"})
    assert label == "-1" and scores == {"correctness": "B", "overall": "-1"}
    assert aspects.decode(label, scores) == {"correctness": "B", "overall": "-1"}
    # a judgment stored before the schema had aspects reads as its primary aspect
    assert aspects.decode("+2", {}) == {"overall": "+2"}
    rubric = LabelSchema.default("rubric")
    label, scores = rubric.encode({c.name: "3" for c in rubric.criteria})
    assert label is None and set(scores.values()) == {3}
    assert rubric.decode(None, scores)["helpfulness"] == "3"
    plain = LabelSchema.default("pairwise")
    assert plain.encode({"preference": "A"}) == ("A", {})
    assert plain.decode("tie", {}) == {"preference": "tie"}
    with pytest.raises(ValueError, match="no answer for overall"):
        aspects.encode({"correctness": "A"})


def test_primary_aspect_is_overall_else_first() -> None:
    first = parse_labels("pairwise", {"aspects": [{"name": "b"}, {"name": "a"}]})
    assert first.primary_name == "b" and first.shape == "aspects" and first.sided
    overall = parse_labels("pairwise", {"aspects": [{"name": "a"}, {"name": "overall"}, {"name": "c"}]})
    assert overall.primary_name == "overall"
    assert overall.summary().startswith("3 aspects")


BAD = [
    ("pairwise", {"scale": "graded-6"}, "labels.scale", "one of outcomes, graded-5, graded-7, not 'graded-6'"),
    ("pairwise", {"scale": "graded5"}, "labels.scale", "did you mean 'graded-5'"),
    ("pairwise", {"aspects": [{"name": "safety", "outcomes": []}]}, "labels.aspects[0].outcomes",
     "an aspect without outcomes"),
    ("pairwise", {"aspects": [{"name": "x"}, {"name": "y", "outcomes": ["A", "tie"]}]}, "labels.aspects[1].outcomes",
     "needs both sides"),
    ("pairwise", {"aspects": [{"name": "x", "scale": "graded-5", "outcomes": ["A", "B"]}]},
     "labels.aspects[0].outcomes", "only for scale"),
    ("pairwise", {"aspects": [{"name": "x", "both_bad": True}]}, "labels.aspects[0].both_bad", "only for graded"),
    ("pairwise", {"aspects": []}, "labels.aspects", "non-empty"),
    ("pairwise", {"aspects": [{"name": "x"}, {"name": "x"}]}, "labels.aspects", "distinct"),
    ("pairwise", {"aspects": [{"name": "Bad Name"}]}, "labels.aspects[0].name", "lower-case"),
    ("pairwise", {"aspects": [{"nam": "x"}]}, "labels.aspects[0].nam", "did you mean 'name'"),
    ("pairwise", {"aspects": [{"name": f"a{i}"} for i in range(9)]}, "labels.aspects", "at most 8"),
    ("pairwise", {"scale": "graded-5", "aspects": [{"name": "x"}]}, "labels.scale", "per aspect"),
    ("pairwise", {"scale": "graded-5", "both_bad": "yes"}, "labels.both_bad", "true or false"),
    ("pairwise", {"criteria": []}, "labels.criteria", "rubric"),
    ("single", {"aspects": [{"name": "x"}]}, "labels.aspects", "pairwise"),
    ("rubric", {"scale": [1, 5]}, "labels.scale", "no such key"),
]


@pytest.mark.parametrize(("kind", "table", "key", "expected"), BAD, ids=[f"{b[2]}:{b[3][:20]}" for b in BAD])
def test_bad_labels_name_the_key(kind: str, table: dict, key: str, expected: str) -> None:
    with pytest.raises(LabelsError) as info:
        parse_labels(kind, table)
    assert info.value.key == key
    assert expected in info.value.expected


def test_spec_error_names_file_and_key(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('[session]\nkind = "pairwise"\n[[labels.aspects]]\nname = "safety"\noutcomes = []\n')
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(info.value).startswith(f"{path}: [labels.aspects[0].outcomes]")


def test_every_key_of_every_shape_maps_back() -> None:
    questions = [Outcomes(), Outcomes("s", ("A", "B", "tie")), Graded(points=5), Graded(points=7, both_bad=True)]
    for q, order in itertools.product(questions, (AB, BA)):
        values = [q.to_slot(c.value, order) for c in q.choices()]
        assert sorted(values) == sorted(q.values)  # every stored value has exactly one key
