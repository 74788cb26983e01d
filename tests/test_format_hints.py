"""A file that looks like another format than the command reads it as: one line saying what it looks
like and the command that would work (annotate.formats.hints), before anything is read or written."""

from __future__ import annotations

import gzip
import shlex
import shutil
import zipfile
from pathlib import Path

import pytest
from formats_util import DATA, cli, fingerprint, pair, session, write_jsonl

from annotate.formats.hints import format_hint
from annotate.spec import SessionSpec

CSV_ITEMS = "id,prompt,A,B\nq1,Is 91 prime?,Yes.,No: 7 x 13.\nq2,Capital of France?,Paris.,Lyon.\n"


@pytest.fixture
def spec(project: Path) -> SessionSpec:
    return session(project)


def _error(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines  # one line
    return lines[0]


def _suggested(message: str) -> list[str]:
    """The command after `import it with:` / `then:` (without the leading `annotate`)."""
    command = message.rsplit(": annotate ", 1)[1].split(";", 1)[0]
    return shlex.split(command)


def test_csv_saved_as_jsonl_names_csv_and_the_command_works(spec: SessionSpec, project: Path) -> None:
    (project / "pairs.jsonl").write_text(CSV_ITEMS)
    before = fingerprint(spec)
    message = _error(cli("import", "s", "pairs.jsonl"))
    assert message == (
        "Error: pairs.jsonl looks like CSV (a first line of 4 comma-separated columns: id, prompt, A, B), not JSON"
        " Lines; import it with: annotate import s pairs.jsonl --format csv"
    )
    assert fingerprint(spec) == before  # nothing written
    done = cli(*_suggested(message))
    assert done.exit_code == 0 and "added 2 items" in done.stdout


def test_csv_with_other_columns_says_they_need_a_map(spec: SessionSpec, project: Path) -> None:
    shutil.copy(DATA / "pairs_mapped.csv", project / "evals.jsonl")
    message = _error(cli("import", "s", "evals.jsonl"))
    assert "looks like CSV (a first line of 8 comma-separated columns: idx, instruction, input, response1," in message
    assert "import it with: annotate import s evals.jsonl --format csv; its columns then need --map" in message


def test_tsv_in_a_json_file_and_csv_with_an_unknown_extension(spec: SessionSpec, project: Path) -> None:
    (project / "pairs.json").write_text(CSV_ITEMS.replace(",", "\t"))
    assert "looks like TSV (a first line of 4 tab-separated columns" in _error(cli("import", "s", "pairs.json"))
    (project / "pairs.txt").write_text(CSV_ITEMS)
    message = _error(cli("import", "s", "pairs.txt"))
    assert "which its extension does not say; import it with: annotate import s pairs.txt --format csv" in message


def test_json_lines_saved_as_csv(spec: SessionSpec, project: Path) -> None:
    write_jsonl(project / "pairs.csv", [pair("p1"), pair("p2")])
    message = _error(cli("import", "s", "pairs.csv"))
    assert message == ("Error: pairs.csv looks like JSON Lines, not CSV; import it with:"
                       " annotate import s pairs.csv --format jsonl")
    assert cli(*_suggested(message)).exit_code == 0


def test_arena_battles_without_format_arena(spec: SessionSpec, project: Path) -> None:
    shutil.copy(DATA / "arena_battles.json", project / "battles.json")
    message = _error(cli("import", "s", "battles.json"))
    assert message == ("Error: battles.json looks like Chatbot Arena battles, not items in the native format;"
                       " import it with: annotate import s battles.json --format arena")
    done = cli(*_suggested(message))
    assert done.exit_code == 0 and "crowd labels" in done.stdout


def test_mtbench_judgments_without_format_and_given_to_labels_import(spec: SessionSpec, project: Path) -> None:
    shutil.copy(DATA / "mtbench_judgments.jsonl", project / "mt.jsonl")
    assert _error(cli("import", "s", "mt.jsonl")).endswith("annotate import s mt.jsonl --format mtbench")
    message = _error(cli("labels", "import", "s", "mt.jsonl", "--cohort", "expert"))
    assert message == ("Error: mt.jsonl looks like MT-Bench judgments (items with their votes), not a ratings file;"
                       " import it with: annotate import s mt.jsonl --format mtbench")
    assert cli(*_suggested(message)).exit_code == 0


def test_labels_import_keeps_the_options_given(spec: SessionSpec, project: Path) -> None:
    (project / "votes.jsonl").write_text("item,rater,label\nq1,ann,1\n")
    message = _error(cli("labels", "import", "s", "votes.jsonl", "--cohort", "crowd", "--label-map", "1=A"))
    assert message.endswith(
        "import it with: annotate labels import s votes.jsonl --cohort crowd --label-map 1=A --format csv")


def _xlsx(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>")


def _ods(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        archive.writestr("content.xml", "<office/>")


@pytest.mark.parametrize(("name", "make", "looks"), [
    ("sheet.xlsx", _xlsx, "an Excel workbook (.xlsx)"),
    ("sheet.csv", _xlsx, "an Excel workbook (.xlsx)"),  # the extension lies; the bytes do not
    ("sheet.ods", _ods, "an OpenDocument spreadsheet (.ods)"),
    ("sheet.xls", lambda p: p.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)),
     "an Excel 97-2003 workbook (.xls)"),
])
def test_spreadsheets_say_save_as_csv(spec: SessionSpec, project: Path, name: str, make, looks: str) -> None:  # type: ignore[no-untyped-def]
    make(project / name)
    for command in (("import", "s"), ("labels", "import", "s")):
        message = _error(cli(*command, name, *(("--cohort", "crowd") if command[0] == "labels" else ())))
        assert message.startswith(f"Error: {name} looks like {looks}, not text (CSV, TSV, JSON or JSON Lines);"
                                  " save it from the spreadsheet as CSV (UTF-8), then: annotate ")
        assert message.endswith("sheet.csv" + (" --cohort crowd" if command[0] == "labels" else ""))


def test_zip_and_gzip_say_unpack_first(spec: SessionSpec, project: Path) -> None:
    write_jsonl(project / "pairs.jsonl", [pair("p1")])
    with zipfile.ZipFile(project / "pairs.zip", "w") as archive:
        archive.write(project / "pairs.jsonl", "pairs.jsonl")
    assert _error(cli("import", "s", "pairs.zip")).endswith(
        "a zip archive holding pairs.jsonl, not text (CSV, TSV, JSON or JSON Lines); unzip it (unzip pairs.zip),"
        " then: annotate import s pairs.jsonl")
    (project / "pairs.jsonl.gz").write_bytes(gzip.compress((project / "pairs.jsonl").read_bytes()))
    assert _error(cli("import", "s", "pairs.jsonl.gz")).endswith(
        "unpack it (gunzip pairs.jsonl.gz), then: annotate import s pairs.jsonl")


def test_files_read_right_get_no_hint(project: Path) -> None:
    """No hint where the command reads the file: every reader's own path is left alone."""
    write_jsonl(project / "native.jsonl", [pair("p1")])
    (project / "array.jsonl").write_text('[{"id": "p1"}]')
    (project / "cols.csv").write_text(CSV_ITEMS)
    shutil.copy(DATA / "arena_battles.json", project / "battles.json")
    (project / "votes.csv").write_text("item,rater,label\nq1,ann,A\n")
    (project / "broken.jsonl").write_text('{"id": "p1", "prompt": \n')  # broken JSON: the reader says where
    (project / "one.jsonl").write_text("just some words\nand more\n")
    assert format_hint(project / "native.jsonl", reading="items") is None
    assert format_hint(project / "array.jsonl", reading="items") is None
    assert format_hint(project / "cols.csv", reading="items") is None
    assert format_hint(project / "battles.json", reading="items", format="arena") is None
    assert format_hint(project / "battles.json", reading="items", mapped=True) is None
    assert format_hint(project / "battles.json", reading="labels", mapped=True) is None
    assert format_hint(project / "votes.csv", reading="labels") is None
    assert format_hint(project / "cols.csv", reading="items", format="csv") is None
    assert format_hint(project / "broken.jsonl", reading="items") is None
    assert format_hint(project / "one.jsonl", reading="items") is None
    assert format_hint(project / "missing.jsonl", reading="items") is None


def test_a_hostile_file_name_and_header_stay_on_one_safe_line(spec: SessionSpec, project: Path) -> None:
    name = "x\x1b[2J.jsonl"
    (project / name).write_text("id,\x1b[31mprompt,A,B\nq1,p,a,b\n")
    message = _error(cli("import", "s", name))
    assert "\x1b" not in message and "looks like CSV" in message
