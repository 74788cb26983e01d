"""Flags in the store and item references: written on the assignment as shown, cleared not deleted."""

from __future__ import annotations

import pytest
from conftest import make_item

from annotate.flags import Flag
from annotate.model import Assignment, Event
from annotate.refs import ALPHABET, REF_CHARS, item_ref, parse_ref
from annotate.store import StaleAssignment, Store
from annotate.store.flags import add_flag, clear_flags, flag_counts, flag_rows, flags, open_flags, withdraw_flags
from annotate.store.refs import items_with_ref, queue_positions_with_ref, ref_key


@pytest.fixture
def assigned(store: Store) -> tuple[Assignment, Assignment]:
    store.add_items([make_item("gpt-4-vs-claude-1"), make_item("i2")])
    return tuple(store.add_assignments([
        Assignment(0, "alice", "gpt-4-vs-claude-1", 0), Assignment(0, "alice", "i2", 1, True),
    ]))  # type: ignore[return-value]


def test_a_flag_is_stored_with_its_events_on_the_assignment_shown(store: Store, assigned) -> None:  # type: ignore[no-untyped-def]
    a1, a2 = assigned
    event = Event("flag.add", 5, "2026-11-30T10:00:00Z", {"kind": "identity_leak"}, a1.id, "alice")
    stored = add_flag(store, Flag(a1.id, "identity_leak", "  says it is Claude "), [event], shown=a1)
    assert (stored.item_id, stored.annotator, stored.note, stored.cleared) == ("gpt-4-vs-claude-1", "alice",
                                                                               "says it is Claude", None)
    add_flag(store, Flag(a1.id, "offensive"), shown=a1)
    assert [e.kind for e in store.events(a1.id)] == ["flag.add"]
    found = open_flags(store, [a1.id, a2.id])
    assert list(found) == [a1.id] and [f.kind for f in found[a1.id]] == ["identity_leak", "offensive"]
    counts = flag_counts(store)
    assert (counts.open, counts.items, counts.cleared) == ({"identity_leak": 1, "offensive": 1}, 1, 0)


def test_a_flag_on_an_assignment_changed_since_is_refused(store: Store, assigned) -> None:  # type: ignore[no-untyped-def]
    a1, _ = assigned
    changed = Assignment(a1.id, "alice", "gpt-4-vs-claude-1", 0, swapped=True)
    with pytest.raises(StaleAssignment):
        add_flag(store, Flag(a1.id, "broken"), shown=changed)
    assert flags(store, include_cleared=True) == []


@pytest.mark.parametrize(("kind", "note", "error"), [
    ("nonsense", "", "expected one of broken, identity_leak"),
    ("other", "  ", "needs a note"),
    ("broken", "x" * 2001, "at most 2000"),
])
def test_bad_flags_are_refused(store: Store, assigned, kind: str, note: str, error: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=error):
        add_flag(store, Flag(assigned[0].id, kind, note))


def test_clearing_keeps_the_flag_with_who_and_why(store: Store, assigned) -> None:  # type: ignore[no-untyped-def]
    a1, a2 = assigned
    first = add_flag(store, Flag(a1.id, "broken", "cut off"))
    add_flag(store, Flag(a2.id, "guideline_unclear"))
    add_flag(store, Flag(a2.id, "other", "typo in prompt"))
    cleared = clear_flags(store, by="lead", note="fixed", flag_id=first.id)
    assert [(f.id, f.cleared_by, f.clear_note) for f in cleared] == [(first.id, "lead", "fixed")]
    with pytest.raises(ValueError, match="already cleared"):
        clear_flags(store, by="lead", flag_id=first.id)
    assert len(clear_flags(store, by="lead", item_id="i2")) == 2
    with pytest.raises(ValueError, match="was never flagged"):
        clear_flags(store, by="lead", item_id="gpt-4-vs-claude-1x")
    assert flags(store) == [] and len(flags(store, include_cleared=True)) == 3
    rows = list(flag_rows(store))
    assert [(r["item"], r["kind"], r["cleared_by"], r["position"]) for r in rows] == [
        ("gpt-4-vs-claude-1", "broken", "lead", 0), ("i2", "guideline_unclear", "lead", 1),
        ("i2", "other", "lead", 1),
    ]
    assert flag_counts(store).cleared == 3


def test_an_annotator_withdraws_their_own_flags(store: Store, assigned) -> None:  # type: ignore[no-untyped-def]
    a1, _ = assigned
    add_flag(store, Flag(a1.id, "broken"))
    assert withdraw_flags(store, a1) == 1
    assert [(f.cleared_by, f.clear_note) for f in flags(store, include_cleared=True)] == [("alice", "withdrawn")]


def test_references_are_short_stable_and_found(store: Store, assigned) -> None:  # type: ignore[no-untyped-def]
    key = ref_key(store)
    ref = item_ref(key, "gpt-4-vs-claude-1")
    assert len(ref) == REF_CHARS and set(ref) <= set(ALPHABET)
    assert "gpt" not in ref.lower() and ref == item_ref(key, "gpt-4-vs-claude-1")
    assert item_ref(key, "i2") != ref
    assert items_with_ref(store, ref) == ["gpt-4-vs-claude-1"]
    assert queue_positions_with_ref(store, "alice", item_ref(key, "i2")) == [1]
    assert queue_positions_with_ref(store, "bob", ref) == []
    # typed as people type it
    assert parse_ref(f" {ref[:3].lower()}-{ref[3:]} ") == ref
    assert parse_ref("#" + ref.replace("0", "O").replace("1", "l")) == ref
    assert parse_ref("ABC") is None and parse_ref("ABCDEU") is None


def test_each_session_has_its_own_key(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with Store.open(tmp_path / "a.db", create=True) as a, Store.open(tmp_path / "b.db", create=True) as b:
        assert ref_key(a) != ref_key(b)
        assert len(bytes.fromhex(ref_key(a))) == 16
