"""A small pairwise session with three expert annotators, imported crowd votes and an LLM judge.

Items i1..i6 (category "code" for i1-i3, "chat" for i4-i6), slot A by model "m-a", slot B by "m-b";
response A is longer than B on every item.  Gold: i1 = A, i2 = B.

Expert labels (slot space) and whether each saw the item swapped (slot B on the left):

    item   alice      bob        carol
    i1     A          A          A
    i2     B          B          A
    i3     A          A          A
    i4     tie        A          tie
    i5     B          B          B
    i6     A          both_bad   A

alice also judges i1 again (purpose repeat, swapped) and says B: one inconsistent repeat.
Crowd (imported): c1 and c2 on i1..i4: c1 = A, B, A, A; c2 = A, B, B, A.
LLM judge (imported): gpt on every item: A, B, A, tie, B, A.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.model import Assignment, ExternalLabel, Item, Judgment, Message, Response, Timings
from annotate.session import create_session, open_store
from annotate.spec import SessionSpec
from annotate.store import Store

EXPERT = {
    "alice": ["A", "B", "A", "tie", "B", "A"],
    "bob": ["A", "B", "A", "A", "B", "both_bad"],
    "carol": ["A", "A", "A", "tie", "B", "A"],
}
CROWD = {"c1": ["A", "B", "A", "A"], "c2": ["A", "B", "B", "A"]}
LLM = {"gpt": ["A", "B", "A", "tie", "B", "A"]}
ITEMS = [f"i{n}" for n in range(1, 7)]
# swapped per (annotator, item index): alice sees every item swapped, bob none, carol alternating
SWAPPED = {"alice": [True] * 6, "bob": [False] * 6, "carol": [n % 2 == 0 for n in range(6)]}
# active ms: alice is fast (2 s) on her first two, bob always 10 s, carol 5 s
ACTIVE = {"alice": [2000, 2500, 8000, 8000, 8000, 8000], "bob": [10_000] * 6, "carol": [5000] * 6}


def make_items(ids: list[str] = ITEMS, models: tuple[str, str] = ("m-a", "m-b"),
               categories: list[str] | None = None) -> list[Item]:
    categories = categories or ["code"] * 3 + ["chat"] * 3
    gold = {0: "A", 1: "B"}
    return [
        Item(id=item_id, kind="pairwise", conversation=(Message("user", f"prompt {item_id}"),),
             responses=(Response("A", "a longer answer", models[0]), Response("B", "short", models[1])),
             category=categories[n], gold=gold.get(n))
        for n, item_id in enumerate(ids)
    ]


def judge(store: Store, annotator: str, item_id: str, label: str, swapped: bool, active_ms: int,
          position: int, purpose: str = "main") -> None:
    [assignment] = store.add_assignments(
        [Assignment(0, annotator, item_id, position, swapped=swapped, purpose=purpose)])
    timings = Timings(shown_at="2024-01-01T00:00:00+00:00", first_input_ms=100, submit_ms=active_ms + 500,
                      active_ms=active_ms)
    store.submit(Judgment(assignment.id, label, timings))


def populate(store: Store, items: list[Item] | None = None, experts: dict | None = None,
             crowd: dict | None = None, llm: dict | None = None) -> None:
    items = items or make_items()
    ids = [i.id for i in items]
    store.add_items(items)
    for name, labels in (experts or EXPERT).items():
        for n, label in enumerate(labels):
            judge(store, name, ids[n], label, SWAPPED.get(name, [False] * 6)[n],
                  ACTIVE.get(name, [5000] * 6)[n], n)
    externals = [
        ExternalLabel("crowd.csv", rater, "crowd", ids[n], label, raw=label)
        for rater, labels in (crowd or CROWD).items() for n, label in enumerate(labels)
    ] + [
        ExternalLabel("mtbench", rater, "llm", ids[n], label, raw="tie (inconsistent)" if label == "tie" else label)
        for rater, labels in (llm or LLM).items() for n, label in enumerate(labels)
    ]
    store.add_external_labels(externals)


@pytest.fixture
def session(project: Path) -> tuple[SessionSpec, Store]:
    spec = create_session("rep", "pairwise", seed=11, folder=project / "sessions")
    with open_store(spec) as store:
        populate(store)
        judge(store, "alice", "i1", "B", True, 6000, 6, purpose="repeat")
        yield spec, store
