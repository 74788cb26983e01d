"""Frames for analysis: votes from judgments and imported labels in one slot-space table."""

from __future__ import annotations

from conftest import make_item

from annotate.model import Assignment, ExternalLabel, Judgment, Timings
from annotate.store import Store
from annotate.store.frames import VOTE_COLUMNS, items_frame, scores_frame, votes_frame

T = Timings("2026-11-30T10:00:00+00:00", 100, 2000, 1900)


def test_votes_frame_joins_judgments_and_external_labels(store: Store) -> None:
    store.add_items([make_item("i1", a="short", b="much longer text"), make_item("i2")])
    a1, a2, a3 = store.add_assignments([
        Assignment(0, "alice", "i1", 0, swapped=True), Assignment(0, "alice", "i2", 1, swapped=False),
        Assignment(0, "bob", "i1", 0, swapped=False),
    ])
    store.submit(Judgment(a1.id, "A", T, confidence=3))
    store.submit(Judgment(a2.id, None, T, skip_reason="unsure"))
    store.submit(Judgment(a3.id, "tie", T))
    store.add_external_labels([ExternalLabel("arena", "v1", "crowd", "i1", "both_bad", "tie (bothbad)")])
    votes = votes_frame(store)
    assert tuple(votes.columns) == VOTE_COLUMNS
    assert len(votes) == 3
    alice = votes[votes["rater"] == "alice"].iloc[0]
    assert (alice["label"], alice["label_side"], alice["swapped"]) == ("A", "right", True)
    assert (alice["len_a"], alice["len_b"], alice["model_a"]) == (5, 16, "m-a")
    crowd = votes[votes["source"] == "arena"].iloc[0]
    assert (crowd["cohort"], crowd["label"], crowd["raw"]) == ("crowd", "both_bad", "tie (bothbad)")
    assert len(votes_frame(store, include_skips=True)) == 4
    assert list(items_frame(store)["item"]) == ["i1", "i2"]


def test_scores_frame_explodes_rubric_scores(store: Store) -> None:
    store.add_items([make_item("i1")])
    [a] = store.add_assignments([Assignment(0, "alice", "i1", 0)])
    store.submit(Judgment(a.id, None, T, scores={"helpfulness": 3, "verbosity": 1}))
    scores = scores_frame(store)
    assert sorted(zip(scores["criterion"], scores["score"], strict=True)) == [("helpfulness", 3), ("verbosity", 1)]


def test_empty_responses_frame_finds_what_the_importers_count(store: Store) -> None:
    from annotate.formats.importing import empty_responses
    from annotate.store.response_frames import empty_responses_frame

    texts = {"e1": ("", "ok"), "e2": ("ok", " \n\t"), "e3": ("\u00a0\u3000", "\u2028"), "e4": ("x", "\u200b"),
             "e5": ("ok", "fine")}
    items = [make_item(item_id, a=a, b=b) for item_id, (a, b) in texts.items()]
    store.add_items(items)
    frame = empty_responses_frame(store)
    assert list(zip(frame["item"], frame["slot"], strict=True)) == empty_responses(items)
    assert empty_responses(items) == [("e1", "A"), ("e2", "B"), ("e3", "A"), ("e3", "B")]
    store.add_external_labels([ExternalLabel("j", "gpt", "llm", "e1", "A", shown_first="B")])
    assert votes_frame(store)["shown_first"].tolist() == ["B"]


def test_coded_frame_types_its_columns_as_the_plain_frame_does(store: Store) -> None:
    """Read in chunks of two rows, with text coded and a key looked up: the same frame, dtypes included."""
    import pandas as pd

    from annotate.store.frames import coded_frame

    store.db.execute("CREATE TABLE t (k INTEGER, whole INTEGER, gaps INTEGER, part REAL, none INTEGER, word TEXT,"
                     " blank TEXT, who INTEGER)")
    rows = [(1, 10, None, 0.5, None, "x", None, 2), (2, 20, 3, 1.0, None, None, None, 1),
            (3, 30, 4, 2.0, None, "y", None, 2), (4, 40, 5, 3.0, None, "x", None, 1),
            (5, 50, 6, 4.0, None, "z", None, 2)]
    store.db.conn.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    store.db.execute("CREATE TABLE people (id INTEGER, name TEXT, team TEXT)")
    store.db.conn.executemany("INSERT INTO people VALUES (?, ?, ?)", [(1, "ann", "red"), (2, "bo", "blue")])
    sql = "SELECT k, whole, gaps, part, none, word, blank, who FROM t ORDER BY k"
    plain = store.frame(sql.replace("who FROM t", "p.name AS who, p.team FROM t JOIN people p ON p.id = t.who"))
    coded = coded_frame(store, sql, text=("word", "blank"), lookup={"who": ("name", "team")},
                        lookup_sql="SELECT id, name, team FROM people", chunk=2)
    pd.testing.assert_frame_equal(coded, plain)
    assert str(coded["whole"].dtype) == "int64" and str(coded["gaps"].dtype) == "float64"
    empty = coded_frame(store, sql + " LIMIT 0", text=("word",))
    pd.testing.assert_frame_equal(empty, store.frame(sql + " LIMIT 0"))


def test_has_experiment_needs_a_current_counted_judgment_under_a_condition(store: Store) -> None:
    """A condition counts only on an assignment of a counted purpose with a current judgment that is no skip."""
    from annotate.store.suggestion_frames import has_experiment

    store.add_items([make_item("i1"), make_item("i2"), make_item("i3")])
    plain, skipped, attention, shown = store.add_assignments([
        Assignment(0, "alice", "i1", 0), Assignment(0, "alice", "i2", 1, condition="always"),
        Assignment(0, "alice", "i3", 2, condition="always", purpose="attention"),
        Assignment(0, "bob", "i1", 0, condition="always"),
    ])
    store.submit(Judgment(plain.id, "A", T))
    store.submit(Judgment(skipped.id, None, T, skip_reason="unsure"))
    store.submit(Judgment(attention.id, "A", T))
    assert not has_experiment(store)
    store.submit(Judgment(shown.id, "B", T))
    assert has_experiment(store)


def test_unique_votes_keep_a_raters_main_vote_before_an_earlier_repeat() -> None:
    import pandas as pd

    from annotate.report.context import unique_votes

    votes = pd.DataFrame({"item": ["i1", "i1", "i2", "i1", "i2"], "rater": ["a", "a", "a", "b", "a"],
                          "purpose": ["repeat", "main", "attention", "main", "gold"], "n": [0, 1, 2, 3, 4]})
    assert unique_votes(votes)["n"].tolist() == [1, 3, 4]
