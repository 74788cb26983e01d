"""A small hand-built pairwise session for the dashboard tests, with every figure known by hand.

Items i0..i5: i4 has gold A, i5 is an attention check (gold B), i0 gets an agreed adjudicated
label A from erin (so it is a reference too). Annotators:

- alice: i0 A, i1 B (first answered A, then revised), i2 tie, i3 skipped, i4 A, i5 B;
  active times 1, 5, 7, 2, 4 s (i0, i1, i2, i4, i5).
- bob: i0 A, i1 A, i2 tie, i4 B, i5 A (fails the attention check); 10 s each.
- carol: i0 B, i1 B; i2 assigned, not answered; 20 s each.
- dave: i0 B under a planted suggestion: done, but no vote (the report leaves planted ones out).
- erin: only the adjudication of i0 (A): not an annotator's queue.
"""

from __future__ import annotations

from pathlib import Path

from annotate.model import Assignment, Item, Judgment, Message, Response, Suggestion, Timings
from annotate.session import create_session, open_store
from annotate.spec import SessionSpec
from annotate.store import Store, utc_now

ITEMS = ("i0", "i1", "i2", "i3", "i4", "i5")
ANSWERS: dict[str, list[tuple[str, str | None, int]]] = {
    "alice": [("i0", "A", 1000), ("i1", "B", 5000), ("i2", "tie", 7000), ("i3", None, 0), ("i4", "A", 2000),
              ("i5", "B", 4000)],
    "bob": [("i0", "A", 10000), ("i1", "A", 10000), ("i2", "tie", 10000), ("i4", "B", 10000), ("i5", "A", 10000)],
    "carol": [("i0", "B", 20000), ("i1", "B", 20000), ("i2", "", 0)],
}
"""(item, label, active ms): label None is a skip, "" is assigned but not answered."""


def item(item_id: str) -> Item:
    gold = {"i4": "A", "i5": "B"}.get(item_id)
    return Item(
        id=item_id, kind="pairwise", conversation=(Message("user", f"Question {item_id}?"),),
        responses=(Response("A", f"answer A to {item_id}", "m1"), Response("B", f"answer B to {item_id}", "m2")),
        category="attention" if item_id == "i5" else "general", gold=gold,
    )


def purpose(item_id: str) -> str:
    return {"i4": "gold", "i5": "attention"}.get(item_id, "main")


def answer(store: Store, assignment: Assignment, label: str | None, active_ms: int) -> Judgment:
    timings = Timings(utc_now(), 100, active_ms + 500, active_ms)
    return store.submit(
        Judgment(assignment.id, label, timings, skip_reason="unsure" if label is None else None), shown=assignment,
    )


def build_session(tmp_path: Path, name: str = "dash") -> tuple[SessionSpec, Store]:
    """The session described above, open for writing (the caller closes it)."""
    spec = create_session(name, "pairwise", seed=3, folder=tmp_path / "sessions")
    store = open_store(spec)
    store.add_items([item(i) for i in ITEMS])
    planted = store.add_suggestions([Suggestion("i0", "judge-x", "B", planted=True)])[0]
    plan = [
        Assignment(0, who, item_id, position, purpose=purpose(item_id))
        for who, answers in ANSWERS.items() for position, (item_id, _, _) in enumerate(answers)
    ]
    plan.append(Assignment(0, "dave", "i0", 0, suggestion_id=planted.id, condition="upfront"))
    plan.append(Assignment(0, "erin", "i0", 0, purpose="adjudication"))
    stored = {(a.annotator, a.item_id): a for a in store.add_assignments(plan)}
    for who, answers in ANSWERS.items():
        for item_id, label, ms in answers:
            if label == "":
                continue
            if (who, item_id) == ("alice", "i1"):
                answer(store, stored[who, item_id], "A", 900)  # revised below: only the current one counts
            answer(store, stored[who, item_id], label, ms)
    answer(store, stored["dave", "i0"], "B", 1500)
    answer(store, stored["erin", "i0"], "A", 30000)
    return spec, store
