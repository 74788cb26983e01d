"""CSV exports: every field that needs quotes has them (a lone CR no longer splits a row), spreadsheet
formulas are defused by default and kept with --raw-csv, JSON Lines and Parquet are never altered,
and hostile text survives export and re-import unchanged."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from formats_util import cli, session
from hostile_corpus import hostile_strings

from annotate.formats import import_items
from annotate.formats.csv_out import csv_row, defuse_formula
from annotate.model import ExternalLabel, Item, Message, Response
from annotate.session import open_store
from annotate.spec import SessionSpec

FORMULAS = ["=1+1", "=HYPERLINK(\"http://evil.example\",\"x\")", "+A1", "-cmd|' /C calc'!A0", "@SUM(A1:A2)",
            "\t=1", "\r=1", "-", "+", "- a list item", "-2x", "--2", "+-1"]
NUMBERS = ["-2", "+1.5", "-0.25", "1e-3", "-1E+5", "+.5", "-7.", "0"]


def reader_rows(data: str) -> list[list[str]]:
    csv.field_size_limit(1 << 24)  # the corpus has a 1 MB line
    return list(csv.reader(io.StringIO(data, newline="")))


def stdout(*args: str) -> str:
    """What `annotate ARGS` wrote, exactly (click's `Result.stdout` turns CRLF into LF)."""
    result = cli(*args)
    assert result.exit_code == 0, result.output
    return result.stdout_bytes.decode("utf-8")


def item(item_id: str, text: str, category: str | None = None, model: str = "m-a") -> Item:
    return Item(id=item_id, kind="pairwise", conversation=(Message("user", f"prompt {text}"),),
                responses=(Response("A", text, model), Response("B", "plain", "m-b")), category=category)


@pytest.fixture
def spec(project: Path) -> SessionSpec:
    return session(project)


def test_a_lone_cr_inside_a_field_is_quoted_and_the_row_stays_whole(spec: SessionSpec) -> None:
    with open_store(spec) as store:
        store.add_items([item("cr", "over\rwrite"), item("crlf", "two\r\nlines"), item("lf", "a\nb")])
    data = stdout("export", "s", "--what", "items")
    assert '"over\rwrite"' in data
    rows = reader_rows(data)
    assert len(rows) == 4 and {len(r) for r in rows} == {len(rows[0])}
    column = rows[0].index("A")
    assert [r[column] for r in rows[1:]] == ["over\rwrite", "two\r\nlines", "a\nb"]


def test_fields_with_the_delimiter_or_quotes_are_quoted() -> None:
    assert csv_row(["a,b", 'say "hi"', "plain", ""], raw=True) == '"a,b","say ""hi""",plain,\n'
    assert reader_rows(csv_row(["a,b", 'say "hi"', "x\ry"], raw=True)) == [["a,b", 'say "hi"', "x\ry"]]


@pytest.mark.parametrize("text", FORMULAS)
def test_formulas_get_a_leading_quote(text: str) -> None:
    assert defuse_formula(text) == "'" + text


@pytest.mark.parametrize("text", [*NUMBERS, "plain", "", "'=already quoted", " =1", "a=1", "[1, 2]", "{\"k\": 1}"])
def test_plain_numbers_and_other_text_are_left_alone(text: str) -> None:
    assert defuse_formula(text) == text


def labels_with(spec: SessionSpec, raws: list[str]) -> None:
    with open_store(spec) as store:
        store.add_items([item("n1", "x")])
        store.add_items_and_labels([], [ExternalLabel("src", f"r{i}", "crowd", "n1", "A", raw=raw)
                                        for i, raw in enumerate(raws)])


def test_export_defuses_formulas_by_default_and_keeps_them_with_raw_csv(spec: SessionSpec) -> None:
    labels_with(spec, FORMULAS + NUMBERS)
    defused = [r[-1] for r in reader_rows(stdout("export", "s", "--what", "labels"))[1:]]
    assert defused == ["'" + f for f in FORMULAS] + NUMBERS
    raw = [r[-1] for r in reader_rows(stdout("export", "s", "--what", "labels", "--raw-csv"))[1:]]
    assert raw == FORMULAS + NUMBERS


def test_json_lines_and_parquet_are_never_altered(spec: SessionSpec, project: Path) -> None:
    labels_with(spec, FORMULAS)
    lines = stdout("export", "s", "--what", "labels", "--format", "jsonl").splitlines()
    assert [json.loads(line)["raw"] for line in lines] == FORMULAS
    pq = pytest.importorskip("pyarrow.parquet")
    assert cli("export", "s", "--what", "labels", "--format", "parquet", "-o", "l.parquet").exit_code == 0
    assert [r["raw"] for r in pq.read_table(project / "l.parquet").to_pylist()] == FORMULAS


def test_raw_csv_is_for_csv_only(spec: SessionSpec) -> None:
    result = cli("export", "s", "--format", "jsonl", "--raw-csv")
    assert result.exit_code == 1 and "--raw-csv applies to --format csv, not jsonl" in result.stderr


# -- round trip over hostile text ------------------------------------------------------------------

CASES = hostile_strings()


def hostile_items() -> list[Item]:
    """One item per hostile string: in the prompt, response A, the category, the metadata and (when
    it is a valid id: printable, at most 256 characters) the id."""
    items = []
    for i, (name, text) in enumerate(CASES):
        usable_id = text.isprintable() and text.strip() == text and 0 < len(text) <= 256
        items.append(Item(
            id=text if usable_id else f"h{i:03d}", kind="pairwise",
            conversation=(Message("user", f"{text} [{name}]"),),
            responses=(Response("A", f"{text} [{name}]", text[:1000].strip() or None),
                       Response("B", f"plain {i}", "m")),
            category=text[:1000].strip() or None, gold="A" if i % 2 else None, metadata={"case": name, "text": text},
        ))
    return items


def csv_fields(item: Item) -> tuple:
    """What an items CSV carries back through `import` (the --map targets; metadata and histories
    come back only through JSON Lines)."""
    return (item.id, item.prompt, tuple((r.slot, r.text, r.model) for r in item.responses), item.category, item.gold)


def test_items_with_hostile_text_survive_csv_export_and_reimport(spec: SessionSpec, project: Path) -> None:
    originals = hostile_items()
    with open_store(spec) as store:
        store.add_items(originals)
        stored = [csv_fields(i) for i in store.items()]
    assert stored == [csv_fields(i) for i in originals]
    result = cli("export", "s", "--what", "items", "--raw-csv", "-o", "items.csv")
    assert result.exit_code == 0, result.output
    copy = session(project, "copy")
    with open_store(copy) as store:
        report = import_items(store, copy.schema, project / "items.csv")
        assert report.items_added == len(originals)
        assert [csv_fields(i) for i in store.items()] == stored


def test_labels_with_hostile_ids_and_raters_survive_csv_export_and_reimport(spec: SessionSpec, project: Path) -> None:
    usable = [text for _, text in CASES if text.isprintable() and text.strip() == text and 0 < len(text) <= 256]
    assert len(usable) > 30
    with open_store(spec) as store:
        store.add_items([item(text, "x") for text in usable])
        store.add_items_and_labels([], [ExternalLabel("src", text, "crowd", text, "B", raw="B") for text in usable])
    assert cli("export", "s", "--what", "labels", "--raw-csv", "-o", "labels.csv").exit_code == 0
    copy = session(project, "copy")
    with open_store(copy) as store:
        store.add_items([item(text, "x") for text in usable])
    result = cli("labels", "import", "copy", "labels.csv", "--cohort", "crowd", "--source", "src")
    assert result.exit_code == 0, result.output
    with open_store(spec) as a, open_store(copy) as b:
        assert sorted(a.external_labels(), key=repr) == sorted(b.external_labels(), key=repr)


def test_defused_csv_keeps_every_row_and_column(spec: SessionSpec) -> None:
    with open_store(spec) as store:
        store.add_items(hostile_items())
    rows = reader_rows(stdout("export", "s", "--what", "items"))
    assert len(rows) == len(CASES) + 1 and {len(r) for r in rows} == {len(rows[0])}
    column = rows[0].index("A")
    for (name, text), row in zip(CASES, rows[1:], strict=True):
        shown = f"{text} [{name}]"
        assert row[column] == defuse_formula(shown)


# -- standard output redirected: the bytes of -o FILE ----------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
@pytest.mark.parametrize("what", ["items", "judgments", "labels", "suggestions"])
def test_redirected_standard_output_is_byte_identical_to_the_file(spec: SessionSpec, project: Path, what: str,
                                                                  fmt: str) -> None:
    with open_store(spec) as store:
        items = hostile_items()
        store.add_items(items)
        store.add_items_and_labels([], [ExternalLabel(text[:200], "r", "crowd", items[0].id, "A", raw=text)
                                        for _, text in CASES[:40]])
    assert cli("export", "s", "--what", what, "--format", fmt, "-o", "out.file").exit_code == 0
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}  # the locale must not matter
    with (project / "redirected").open("wb") as out:
        done = subprocess.run([sys.executable, "-m", "annotate", "export", "s", "--what", what, "--format", fmt],
                              cwd=project, stdout=out, stderr=subprocess.PIPE, env=env)
    assert done.returncode == 0, done.stderr
    assert (project / "redirected").read_bytes() == (project / "out.file").read_bytes()
    in_process = cli("export", "s", "--what", what, "--format", fmt)
    assert in_process.stdout_bytes == (project / "out.file").read_bytes()
