"""Native JSON Lines import: every field, the kinds, JSON arrays, idempotence, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from formats_util import DATA, cli, fingerprint, pair, session, write_jsonl

from annotate.formats import FormatError, import_items
from annotate.model import Message
from annotate.session import open_store


def test_native_file_imports_every_field(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        report = import_items(store, spec.schema, DATA / "pairs_native.jsonl")
        items = {item.id: item for item in store.items()}
    assert (report.items_added, report.items_unchanged) == (4, 0)
    assert set(items) == {"n1", "n2", "3", "n4"}
    n1 = items["n1"]
    assert n1.kind == "pairwise" and n1.prompt.startswith("Give me") and n1.gold == "A"
    assert n1.models == ("m-small", "m-large") and n1.category == "coding"
    n2 = items["n2"]
    assert n2.conversation[0] == Message("system", "You are a terse assistant.")
    assert dict(n2.metadata) == {"source": "unit-tests", "difficulty": 1}
    three = items["3"]
    assert three.response("A").model is None
    assert three.response("B").history == (
        Message("assistant", "Happy to help!"), Message("user", "Just names please."),
    )


def test_importing_twice_changes_nothing(project: Path) -> None:
    spec = session(project)
    first = cli("import", "s", DATA / "pairs_native.jsonl")
    assert first.exit_code == 0, first.output
    assert "added 4 items (0 unchanged)" in first.stdout
    before = fingerprint(spec)
    second = cli("import", "s", DATA / "pairs_native.jsonl")
    assert "added 0 items (4 unchanged)" in second.stdout
    assert fingerprint(spec) == before


def test_json_array_and_bom_are_accepted(project: Path) -> None:
    spec = session(project)
    path = project / "pairs.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps([pair("a"), pair("b")]).encode())
    with open_store(spec) as store:
        report = import_items(store, spec.schema, path)
    assert report.items_added == 2


def test_json_array_errors_name_the_record(project: Path) -> None:
    spec = session(project)
    path = project / "pairs.json"
    path.write_text(json.dumps([pair("a"), pair("b", responses={"A": {"text": "x"}, "B": {"text": 7}})]))
    with open_store(spec) as store, pytest.raises(FormatError) as caught:
        import_items(store, spec.schema, path)
    assert str(caught.value) == (
        f'{path}: record 2: field "responses.B.text": expected a string ("" for a model that returned nothing), got 7'
    )


def test_single_items_in_a_single_session(project: Path) -> None:
    spec = session(project, "g", kind="single")
    path = write_jsonl(project / "single.jsonl", [
        {"id": "g1", "prompt": "Rate me", "responses": {"A": {"text": "An essay."}}, "gold": 7},
        {"id": "g2", "prompt": "Rate me too", "responses": {"A": {"text": "Another."}}, "gold": "3"},
    ])
    with open_store(spec) as store:
        import_items(store, spec.schema, path)
        assert [(i.kind, i.gold) for i in store.items()] == [("single", "7"), ("single", "3")]


def test_gold_outside_the_scale_is_refused(project: Path) -> None:
    spec = session(project, "g", kind="single")
    path = write_jsonl(project / "single.jsonl", [
        {"id": "g1", "prompt": "Rate me", "responses": {"A": {"text": "An essay."}}, "gold": 11},
    ])
    with open_store(spec) as store, pytest.raises(FormatError, match='line 1: field "gold": expected a label among 1'):
        import_items(store, spec.schema, path)


def test_changed_item_with_a_stored_id_names_the_line(project: Path) -> None:
    spec = session(project)
    write_jsonl(project / "v1.jsonl", [pair("a"), pair("b")])
    write_jsonl(project / "v2.jsonl", [pair("a"), pair("b", prompt="Changed?")])
    assert cli("import", "s", "v1.jsonl").exit_code == 0
    before = fingerprint(spec)
    result = cli("import", "s", "v2.jsonl")
    assert result.exit_code == 1
    assert 'v2.jsonl: line 2: field "id": expected an id not yet stored with other content' in result.stderr
    assert fingerprint(spec) == before


def test_untrusted_text_is_stored_as_is(project: Path) -> None:
    spec = session(project)
    nasty = "\x1b[2J\x1b]52;c;aGk=\x07 [bold]markup[/bold] \u202e evil \r\n\x00 end"
    write_jsonl(project / "nasty.jsonl", [pair("x", responses={"A": {"text": nasty}, "B": {"text": "ok"}})])
    with open_store(spec) as store:
        import_items(store, spec.schema, project / "nasty.jsonl")
        assert store.item("x").response("A").text == nasty


def test_cli_prints_the_summary_and_leak_warning(project: Path) -> None:
    session(project)
    write_jsonl(project / "leaky.jsonl", [
        pair("a", responses={"A": {"text": "As ChatGPT, I think so."}, "B": {"text": "Sure."}}),
    ])
    result = cli("import", "s", "leaky.jsonl")
    assert result.exit_code == 0
    assert "added 1 item (0 unchanged) from leaky.jsonl" in result.stdout
    assert "warning: responses in 1 item name a model or vendor" in result.stderr
    assert "a (A: ChatGPT)" in result.stderr
