"""Mapped import: CSV / JSON / JSON Lines of any shape through --map."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from formats_util import DATA, cli, fingerprint, session, write_jsonl

from annotate.formats import FormatError, OptionError, import_items
from annotate.session import open_store

FULL_MAP = (
    "id=idx", "prompt=instruction,input", "A=response1", "B=response2", "model_A=model1", "model_B=model2",
    "category=topic",
)


def test_csv_with_own_column_names(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store:
        report = import_items(store, spec.schema, DATA / "pairs_mapped.csv", field_map=FULL_MAP)
        items = {item.id: item for item in store.items()}
    assert report.items_added == 3
    assert items["17"].prompt == "Translate to French.\n\nGood morning"
    assert items["19"].prompt == "Write a haiku about rain."  # empty input skipped
    assert items["19"].response("A").text.count("\n") == 2  # a quoted multi-line cell
    assert items["18"].models == ("large-v2", "small-v1")
    assert items["17"].category == "translation"
    assert dict(items["17"].metadata) == {}  # unmapped columns never reach metadata


def test_derived_ids_are_stable_so_reimport_changes_nothing(project: Path) -> None:
    spec = session(project)
    args = ["import", "s", DATA / "pairs_mapped.csv", "--map", "prompt=instruction", "--map", "A=response1",
            "--map", "B=response2"]
    first = cli(*args)
    assert first.exit_code == 0, first.output
    assert "added 3 items" in first.stdout
    before = fingerprint(spec)
    assert "added 0 items (3 unchanged)" in cli(*args).stdout
    assert fingerprint(spec) == before
    with open_store(spec) as store:
        ids = store.item_ids()
    assert all(len(i) == 12 and int(i, 16) >= 0 for i in ids)


def test_csv_without_map_uses_columns_named_like_the_targets(project: Path) -> None:
    spec = session(project)
    path = project / "plain.csv"
    path.write_text("id,prompt,A,B,model_A,model_B,gold\nq1,Hi?,Hello.,Hey.,x,y,tie\n", encoding="utf-8")
    with open_store(spec) as store:
        import_items(store, spec.schema, path)
        item = store.item("q1")
    assert (item.prompt, item.gold, item.models) == ("Hi?", "tie", ("x", "y"))


def test_csv_without_map_and_other_columns_explains_map(project: Path) -> None:
    session(project)
    result = cli("import", "s", DATA / "pairs_mapped.csv")
    assert result.exit_code == 1
    assert "expected columns named prompt, A, B, or --map options" in result.stderr
    assert '"instruction"' in result.stderr


def test_missing_column_is_named_with_a_suggestion(project: Path) -> None:
    spec = session(project)
    with open_store(spec) as store, pytest.raises(FormatError) as caught:
        import_items(store, spec.schema, DATA / "pairs_mapped.csv",
                     field_map=("prompt=instruction", "A=response1", "B=respnse2"))
    message = str(caught.value)
    assert 'column "respnse2"' in message and 'did you mean "response2"' in message
    assert '"idx", "instruction"' in message


def test_jsonl_and_json_with_meta(project: Path) -> None:
    spec = session(project)
    rows = [{"q": "Capital of France?", "r1": "Paris", "r2": "Lyon", "src": {"set": "geo"}, "n": 1},
            {"q": "2+2?", "r1": 4, "r2": "five", "src": None, "n": 2}]
    write_jsonl(project / "rows.jsonl", rows)
    (project / "rows.json").write_text(json.dumps(rows))
    mapping = ("id=n", "prompt=q", "A=r1", "B=r2", "meta.origin=src")
    with open_store(spec) as store:
        import_items(store, spec.schema, project / "rows.jsonl", field_map=mapping)
        again = import_items(store, spec.schema, project / "rows.json", field_map=mapping)
        assert dict(store.item("1").metadata) == {"origin": {"set": "geo"}}
        assert store.item("2").response("A").text == "4"
    assert again.items_unchanged == 2


def test_composite_id(project: Path) -> None:
    spec = session(project)
    write_jsonl(project / "rows.jsonl", [{"q": 7, "pair": "x-y", "p": "Hi", "a": "1", "b": "2"}])
    with open_store(spec) as store:
        import_items(store, spec.schema, project / "rows.jsonl",
                     field_map=("id=q,pair", "prompt=p", "A=a", "B=b"))
        assert store.item_ids() == ["7-x-y"]


def test_repeated_rows_without_ids_are_imported_once(project: Path) -> None:
    spec = session(project)
    path = project / "dup.csv"
    path.write_text("p,a,b\nHi,One,Two\nHi,One,Two\n", encoding="utf-8")
    with open_store(spec) as store:
        report = import_items(store, spec.schema, path, field_map=("prompt=p", "A=a", "B=b"))
    assert report.items_added == 1
    assert any("line 3 repeats line 2" in w for w in report.warnings)


def test_single_session_takes_a_only(project: Path) -> None:
    spec = session(project, "g", kind="single")
    path = project / "g.csv"
    path.write_text("p,a,grade\nEssay topic,An essay.,8\n", encoding="utf-8")
    with open_store(spec) as store:
        import_items(store, spec.schema, path, field_map=("prompt=p", "A=a", "gold=grade"))
        assert store.items()[0].kind == "single" and store.items()[0].gold == "8"
        with pytest.raises(OptionError, match="the session is single"):
            import_items(store, spec.schema, path, field_map=("prompt=p", "A=a", "B=a"))


@pytest.mark.parametrize(("option", "message"), [
    ("promt=instruction", "unknown target 'promt' (did you mean \"prompt\"?)"),
    ("prompt", "expected TARGET=COLUMN"),
    ("category=a,b", "category takes one column"),
])
def test_bad_map_options(project: Path, option: str, message: str) -> None:
    spec = session(project)
    with open_store(spec) as store, pytest.raises(OptionError) as caught:
        import_items(store, spec.schema, DATA / "pairs_mapped.csv", field_map=(option,))
    assert message in str(caught.value)


def test_walkthrough_for_a_new_lead(project: Path) -> None:
    """A lead with a CSV of prompt / response pairs in their own column names (docs/importing-exporting.md, --map)."""
    (project / "evals.csv").write_text(
        "question,answer_1,answer_2\n\"How do I boil an egg?\",Put it in boiling water for 8 minutes.,Microwave it.\n",
        encoding="utf-8",
    )
    assert cli("init", "evals", "--kind", "pairwise").exit_code == 0
    result = cli("import", "evals", "evals.csv", "--map", "prompt=question", "--map", "A=answer_1",
                 "--map", "B=answer_2")
    assert result.exit_code == 0, result.output
    assert "added 1 item (0 unchanged) from evals.csv" in result.stdout
