"""The report's Flags section: open and cleared flags by kind, the items with open flags (by reference)."""

from __future__ import annotations

import json

from annotate.flags import Flag
from annotate.refs import item_ref
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.store.flags import add_flag, clear_flags
from annotate.store.refs import ref_key


def test_flags_are_listed_never_counted(session) -> None:  # type: ignore[no-untyped-def]
    spec, store = session
    before = build_report(spec, store, n_boot=0)
    assert before.data["flags"] is None and "FLAGS" not in render(before, "text")
    alice = store.assignments("alice")
    add_flag(store, Flag(alice[0].id, "identity_leak", "names \x1b[31mthe vendor"))
    add_flag(store, Flag(alice[1].id, "broken"))
    add_flag(store, Flag(store.assignments("bob")[0].id, "identity_leak"))
    clear_flags(store, by="lead", item_id=alice[1].item_id)
    report = build_report(spec, store, n_boot=0)
    data = report.data["flags"]
    assert data["by_kind"]["identity_leak"] == {"open": 2, "cleared": 0}
    assert data["by_kind"]["broken"] == {"open": 0, "cleared": 1}
    ref = item_ref(ref_key(store), alice[0].item_id)
    assert data["items"] == [{"item": alice[0].item_id, "ref": ref, "kinds": ["identity_leak"],
                              "annotators": ["alice", "bob"], "notes": ["names \x1b[31mthe vendor"]}]
    text = render(report, "text")
    assert "FLAGS" in text and ref in text and "identity leak" in text and "\x1b" not in text
    # not votes: every other figure is what it was
    for key in ("agreement", "pairwise", "ranking", "quality"):
        assert report.data[key] == before.data[key]
    assert json.loads(render(report, "json"))["flags"]["items"][0]["ref"] == ref
