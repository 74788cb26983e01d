"""The lead's side of flags: `annotate status`, `annotate flags` (list, clear), `export --what flags`,
and the item reference in every export that names items."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from formats_util import DATA, cli, session

from annotate.flags import Flag
from annotate.formats import import_items
from annotate.model import Assignment, Judgment, Timings
from annotate.refs import item_ref
from annotate.session import open_store
from annotate.spec import SessionSpec
from annotate.store.flags import add_flag
from annotate.store.refs import ref_key

T = Timings("2026-11-30T10:00:00+00:00", 150, 4200, 4000)


@pytest.fixture
def spec(project: Path) -> SessionSpec:
    spec = session(project)
    with open_store(spec) as store:
        import_items(store, spec.schema, DATA / "pairs_native.jsonl")
        a1, a2, b1 = store.add_assignments([
            Assignment(0, "alice", "n1", 0), Assignment(0, "alice", "n2", 1), Assignment(0, "bob", "n1", 0),
        ])
        store.submit(Judgment(a1.id, "A", T))
        add_flag(store, Flag(a1.id, "identity_leak", "says \x1b[2J it is Claude"))
        add_flag(store, Flag(a2.id, "other", "the prompt is cut off"))
        add_flag(store, Flag(b1.id, "identity_leak"))
    return spec


def refs(spec: SessionSpec) -> dict[str, str]:
    with open_store(spec) as store:
        key = ref_key(store)
    return {item: item_ref(key, item) for item in ("n1", "n2")}


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_status_counts_open_flags_by_kind(spec: SessionSpec) -> None:
    out = cli("status", "s").stdout
    assert "flags     3 open on 2 items (identity leak 2, other 1) (annotate flags)" in out


def test_flags_lists_them_safely_with_references(spec: SessionSpec) -> None:
    result = cli("flags", "s")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "3 open on 2 items (identity leak 2, other 1)"
    assert lines[1].split() == ["id", "ref", "item", "annotator", "kind", "note", "flagged"]
    ref = refs(spec)
    assert lines[2].split()[:4] == ["1", ref["n1"], "n1", "alice"]
    assert "\x1b" not in result.stdout and "␛[2J" in lines[2]
    assert lines[3].split()[:6] == ["2", ref["n2"], "n2", "alice", "other", "the"]


def test_clearing_by_reference_as_an_annotator_quotes_it(spec: SessionSpec) -> None:
    ref = refs(spec)["n1"]
    quoted = f"{ref[:3].lower()}-{ref[3:].lower()}"
    result = cli("flags", "s", "--clear-item", quoted, "--note", "edited the response", "--by", "lead")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("cleared 2 flags on item n1: 1 (identity leak: says")
    assert cli("flags", "s").stdout.splitlines()[0] == "1 open on 1 item (other 1); 2 cleared"
    listed = cli("flags", "s", "--all").stdout
    assert "cleared" in listed.splitlines()[1] and "by lead" in listed
    again = cli("flags", "s", "--clear-item", ref)
    assert again.exit_code == 1 and "already cleared" in again.stderr
    one = cli("flags", "s", "--clear", "2")
    assert one.exit_code == 0 and "1 flag on item n2" in one.stdout
    assert cli("flags", "s").stdout.startswith("none open; 3 cleared")


@pytest.mark.parametrize(("args", "error"), [
    (("--clear", "99"), "no flag 99"),
    (("--clear-item", "n9"), "no item with the id or reference 'n9' (a reference is six characters"),
    (("--clear-item", "ZZZZZZ"), "no item with the id or reference 'ZZZZZZ'"),
    (("--clear", "1", "--clear-item", "n1"), "not both"),
])
def test_bad_clears_are_one_line_errors(spec: SessionSpec, args: tuple[str, ...], error: str) -> None:
    result = cli("flags", "s", *args)
    assert result.exit_code in (1, 2) and error in result.stderr, result.stderr


def test_export_flags_and_references_in_every_export(spec: SessionSpec) -> None:
    ref = refs(spec)
    flagged = rows(cli("export", "s", "--what", "flags").stdout)
    assert [(r["item"], r["ref"], r["annotator"], r["kind"], r["position"], r["cleared"]) for r in flagged] == [
        ("n1", ref["n1"], "alice", "identity_leak", "0", ""), ("n2", ref["n2"], "alice", "other", "1", ""),
        ("n1", ref["n1"], "bob", "identity_leak", "0", ""),
    ]
    judgments = rows(cli("export", "s").stdout)
    assert [(r["item"], r["ref"]) for r in judgments] == [("n1", ref["n1"])]
    items = rows(cli("export", "s", "--what", "items").stdout)
    assert {r["id"]: r["ref"] for r in items}["n2"] == ref["n2"]


def test_no_flags(project: Path) -> None:
    session(project)
    assert cli("flags", "s").stdout == "no flags\n"
    assert "flags " not in cli("status", "s").stdout
