"""Importing ranking items (k responses in slots A, B, C, ...): native JSON Lines and mapped CSV, the
count of responses checked against the spec's k on the line, gold rankings, identity leaks and
empty responses as for pairs, and ranking votes through `labels import`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from formats_util import cli, fingerprint, session, write_jsonl

from annotate.formats import FormatError, OptionError, import_items, import_labels
from annotate.session import open_store


def ranked(item_id: str = "r1", k: int = 4, **overrides: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": item_id, "prompt": f"Question {item_id}?",
        "responses": {s: {"text": f"Answer {s}.", "model": f"m{s}"} for s in "ABCDEF"[:k]},
    }
    record.update(overrides)
    return record


def test_native_ranking_items(project: Path) -> None:
    spec = session(project, kind="ranking")
    path = write_jsonl(project / "r.jsonl", [ranked("r1"), ranked("r2", gold="d > c = b > a")])
    with open_store(spec) as store:
        report = import_items(store, spec.schema, path)
        items = {i.id: i for i in store.items()}
    assert report.items_added == 2
    assert items["r1"].kind == "ranking" and [r.slot for r in items["r1"].responses] == ["A", "B", "C", "D"]
    assert items["r1"].models == ("mA", "mB", "mC", "mD")
    assert items["r2"].gold == "D>B=C>A"  # stored canonical, in slot space


@pytest.mark.parametrize(("k", "found"), [(3, "got 3 (A, B, C)"), (5, "got 5 (A, B, C, D, E)")])
def test_wrong_number_of_responses_names_the_line(project: Path, k: int, found: str) -> None:
    spec = session(project, kind="ranking")
    path = write_jsonl(project / "r.jsonl", [ranked("r1"), ranked("r2", k=k)])
    before = fingerprint(spec)
    with open_store(spec) as store, pytest.raises(FormatError) as caught:
        import_items(store, spec.schema, path)
    message = str(caught.value)
    assert "r.jsonl: line 2: field \"responses" in message
    assert message.endswith(f"expected 4 responses in slots A, B, C, D (the session ranks k = 4), {found}")
    assert fingerprint(spec) == before


def test_a_gap_in_the_slots_is_refused(project: Path) -> None:
    spec = session(project, kind="ranking")
    record = ranked("r1")
    record["responses"]["E"] = record["responses"].pop("D")
    with open_store(spec) as store, pytest.raises(FormatError, match=r"got 4 \(A, B, C, E\)"):
        import_items(store, spec.schema, write_jsonl(project / "r.jsonl", [record]))


def test_pairs_are_not_ranking_items_and_back(project: Path) -> None:
    pairs = session(project, "p", kind="pairwise")
    with open_store(pairs) as store, pytest.raises(FormatError, match=r"field \"responses.C\": expected one of A, B"):
        import_items(store, pairs.schema, write_jsonl(project / "r.jsonl", [ranked("r1")]))
    ranking = session(project, "q", kind="ranking")
    two = ranked("r1", k=2)
    with open_store(ranking) as store, pytest.raises(FormatError, match=r"got slots A and B"):
        import_items(store, ranking.schema, write_jsonl(project / "p.jsonl", [two]))


def test_gold_must_be_a_ranking_of_the_slots(project: Path) -> None:
    spec = session(project, kind="ranking")
    path = write_jsonl(project / "r.jsonl", [ranked("r1", gold="A")])
    with open_store(spec) as store, pytest.raises(FormatError) as caught:
        import_items(store, spec.schema, path)
    assert str(caught.value).endswith(
        'r.jsonl: line 1: field "gold": expected a ranking of the 4 slots A, B, C, D, best first, places separated '
        'by >, ties joined by =, each slot once, such as C>A=B>D, got "A"')


def test_mapped_csv_with_k_columns(project: Path) -> None:
    spec = session(project, kind="ranking")
    csv = project / "r.csv"
    csv.write_text("q,r1,r2,r3,r4,m1,m2,m3,m4\nWhat is 2+2?,4,four,5,22,x,y,z,w\nName a prime.,7,9,4,1,x,y,z,w\n",
                   encoding="utf-8")
    maps = ["prompt=q", "A=r1", "B=r2", "C=r3", "D=r4", "model_A=m1", "model_B=m2", "model_C=m3", "model_D=m4"]
    with open_store(spec) as store:
        report = import_items(store, spec.schema, csv, field_map=maps)
        items = store.items()
    assert report.items_added == 2
    assert [r.text for r in items[0].responses] == ["4", "four", "5", "22"]
    assert items[0].models == ("x", "y", "z", "w")
    with open_store(spec) as store, pytest.raises(FormatError, match="a mapping for D"):
        import_items(store, spec.schema, csv, field_map=maps[:4])
    with open_store(spec) as store, pytest.raises(OptionError, match=r"--map E=\.\.\.: the session ranks k = 4"):
        import_items(store, spec.schema, csv, field_map=[*maps, "E=r1"])


def test_csv_without_map_reads_columns_named_like_the_slots(project: Path) -> None:
    session(project, kind="ranking")
    csv = project / "r.csv"
    csv.write_text("id,prompt,A,B,C,D,model_A,model_B,model_C,model_D\nx1,Hi?,a,b,c,d,m1,m2,m3,m4\n",
                   encoding="utf-8")
    result = cli("import", "s", csv)
    assert result.exit_code == 0, result.output
    assert "added 1 item" in result.stdout
    # a pairwise session ignores columns named like further slots when no --map is given
    pairs = session(project, "p", kind="pairwise")
    with open_store(pairs) as store:
        assert import_items(store, pairs.schema, csv).items_added == 1


def test_leaks_and_empty_responses_as_for_pairs(project: Path) -> None:
    spec = session(project, kind="ranking")
    record = ranked("r1")
    record["responses"]["C"]["text"] = "As ChatGPT, I think so."
    record["responses"]["D"]["text"] = "   "
    with open_store(spec) as store:
        report = import_items(store, spec.schema, write_jsonl(project / "r.jsonl", [record]))
    assert report.empty_responses == (("r1", "D"),)
    assert any("name a model or vendor" in w for w in report.warnings)
    assert "1 empty response" in report.summary()


def test_ranking_votes_from_a_file(project: Path) -> None:
    spec = session(project, kind="ranking")
    with open_store(spec) as store:
        import_items(store, spec.schema, write_jsonl(project / "r.jsonl", [ranked("r1"), ranked("r2")]))
    votes = project / "votes.csv"
    votes.write_text("item,rater,label\nr1,ann,b>a>c=d\nr2,ann,D>C>B>A\nr2,bob,x\n", encoding="utf-8")
    with open_store(spec) as store:
        with pytest.raises(FormatError) as caught:
            import_labels(store, spec.schema, votes, cohort="expert")
        assert "line 4" in str(caught.value) and "such as C>A=B>D" in str(caught.value)
        report = import_labels(store, spec.schema, votes, cohort="expert", label_map=["x=invalid"])
        labels = {(lab.rater, lab.item_id): lab.label for lab in store.external_labels()}
    assert report.labels_added == 3 and report.labels_invalid == 1
    assert labels[("ann", "r1")] == "B>A>C=D" and labels[("bob", "r2")] == "invalid"


def test_native_export_round_trips(project: Path) -> None:
    spec = session(project, kind="ranking")
    source = write_jsonl(project / "r.jsonl", [ranked("r1", gold="B>A=C=D"), ranked("r2", category="math")])
    with open_store(spec) as store:
        import_items(store, spec.schema, source)
    out = project / "back.jsonl"
    assert cli("export", "s", "--what", "items", "--format", "jsonl", "-o", out).exit_code == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["responses"]["D"] == {"text": "Answer D.", "model": "mD"}
    copy = session(project, "c", kind="ranking")
    with open_store(copy) as store:
        assert import_items(store, copy.schema, out).items_added == 2
        assert store.item("r1").gold == "B>A=C=D"
