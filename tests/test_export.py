"""`annotate export`: items, judgments and labels as CSV, JSON Lines and Parquet."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest
from formats_util import DATA, cli, session

from annotate.formats import ExportError, export, import_items
from annotate.formats.export import ITEM_COLUMNS, JUDGMENT_COLUMNS
from annotate.model import Assignment, Judgment, Suggestion, Timings
from annotate.session import open_store
from annotate.spec import SessionSpec

T = Timings("2026-11-30T10:00:00+00:00", 150, 4200, 4000, pane_view_ms={"A": 2000, "B": 1800})


@pytest.fixture
def spec(project: Path) -> SessionSpec:
    """A session with items, arena votes, and judgments: one swapped, one superseded, one skip,
    one under a planted suggestion."""
    spec = session(project)
    with open_store(spec) as store:
        import_items(store, spec.schema, DATA / "pairs_native.jsonl")
        import_items(store, spec.schema, DATA / "arena_battles.json", format="arena")
        planted = store.add_suggestions([Suggestion("n4", "judge-x", "A", planted=True)])[0]
        a1, a2, a3, a4 = store.add_assignments([
            Assignment(0, "alice", "n1", 0, swapped=True), Assignment(0, "alice", "n2", 1),
            Assignment(0, "bob", "n1", 0), Assignment(0, "bob", "n4", 1, condition="upfront",
                                                       suggestion_id=planted.id),
        ])
        store.submit(Judgment(a1.id, "B", T, confidence=4, rationale="more precise, \"quoted\"\nsecond line"))
        store.submit(Judgment(a1.id, "A", T, confidence=5, guideline_id="pairwise-chat", guideline_version="1.0"))
        store.submit(Judgment(a2.id, None, T, skip_reason="unsure"))
        store.submit(Judgment(a3.id, "tie", T))
        store.submit(Judgment(a4.id, "A", T))
    return spec


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_judgments_csv(spec: SessionSpec) -> None:
    result = cli("export", "s")
    assert result.exit_code == 0, result.output
    got = rows(result.stdout)
    assert tuple(got[0]) == JUDGMENT_COLUMNS
    assert [(r["annotator"], r["item"], r["label"]) for r in got] == [("alice", "n1", "A"), ("alice", "n2", ""),
                                                                      ("bob", "n1", "tie")]
    alice = got[0]
    assert (alice["label_side"], alice["swapped"], alice["cohort"]) == ("right", "true", "expert")
    assert (alice["guideline_version"], alice["confidence"], alice["active_ms"]) == ("1.0", "5", "4000")
    assert json.loads(alice["timings"])["pane_view_ms"] == {"A": 2000, "B": 1800}
    assert got[1]["skip_reason"] == "unsure" and got[1]["label_side"] == ""


def test_superseded_and_planted_on_request(spec: SessionSpec) -> None:
    got = rows(cli("export", "s", "--include-superseded", "--include-planted").stdout)
    assert len(got) == 5
    first = got[0]
    assert (first["label"], first["superseded"], first["rationale"]) == (
        "B", "true", "more precise, \"quoted\"\nsecond line",
    )
    assert [r["planted"] for r in got] == ["false", "false", "false", "false", "true"]


def test_judgments_jsonl_keeps_nested_values(spec: SessionSpec) -> None:
    result = cli("export", "s", "--format", "jsonl")
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["swapped"] is True and lines[0]["scores"] == {} and lines[1]["label"] is None
    assert lines[0]["timings"]["guideline_ms"] == 0


def test_items_csv_and_native_jsonl_round_trip(spec: SessionSpec, project: Path) -> None:
    table = rows(cli("export", "s", "--what", "items").stdout)
    assert tuple(table[0]) == ITEM_COLUMNS
    n1 = next(r for r in table if r["id"] == "n1")
    assert (n1["A"], n1["model_A"], n1["gold"], n1["kind"]) == (
        "A hash map stores key-value pairs and finds a value by hashing its key.", "m-small", "A", "pairwise",
    )
    assert cli("export", "s", "--what", "items", "--format", "jsonl", "-o", "items.jsonl").exit_code == 0
    copy = session(project, "copy")
    with open_store(spec) as store:
        original = store.items()
    with open_store(copy) as store:
        report = import_items(store, copy.schema, project / "items.jsonl")
        assert store.items() == original
    assert report.items_added == len(original)
    # the CSV export imports back too (prompt, A, B, models, category, gold by column name)
    (project / "items.csv").write_text(cli("export", "s", "--what", "items").stdout)
    flat = session(project, "flat")
    with open_store(flat) as store:
        assert import_items(store, flat.schema, project / "items.csv").items_added == len(original)


def test_labels_csv_reimports_as_long_layout(spec: SessionSpec, project: Path) -> None:
    text = cli("export", "s", "--what", "labels").stdout
    got = rows(text)
    assert got[0] == {"source": "arena", "rater": "arena_user_973", "cohort": "crowd",
                      "item": "arena-58210e39b3fd4441a2bd4a518bb44c2d", "label": "B", "raw": "model_b"}
    (project / "labels.csv").write_text(text)
    result = cli("labels", "import", "s", "labels.csv", "--cohort", "crowd", "--source", "copy")
    assert "added 5 crowd labels" in result.stdout


def test_parquet(spec: SessionSpec, project: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    result = cli("export", "s", "--format", "parquet", "-o", "j.parquet")
    assert result.exit_code == 0 and "wrote 3 judgments rows to j.parquet" in result.stderr
    table = pq.read_table(project / "j.parquet").to_pylist()
    assert [r["label"] for r in table] == ["A", None, "tie"]
    assert json.loads(table[0]["timings"])["pane_view_ms"] == {"A": 2000, "B": 1800}


def test_parquet_needs_an_output_file_and_pyarrow(spec: SessionSpec, monkeypatch: pytest.MonkeyPatch) -> None:
    result = cli("export", "s", "--format", "parquet")
    assert result.exit_code == 1 and "give one with -o FILE" in result.stderr
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with open_store(spec) as store, pytest.raises(ExportError, match=r"pip install -e '\.\[parquet\]'"):
        export(store, "items", "parquet", output=Path("x.parquet"))
    assert not Path("x.parquet").exists()
    result = cli("export", "s", "--format", "parquet", "-o", "x.parquet")
    # the extra of this project, installed from its folder: a package 'annotate' on the public index is another one
    assert result.exit_code == 1 and "pip install -e '.[parquet]'" in result.stderr, result.stderr
    assert "annotate[parquet]" not in result.stderr and not Path("x.parquet").exists()


def test_exports_write_while_they_read(spec: SessionSpec, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows go out as they are read: the first data line is written before the last row is read."""
    from annotate.store import Store

    read = {"rows": 0}
    original = Store._stream

    def counting(self: Store, sql: str, params: tuple = (), batch: int = 1000):  # type: ignore[no-untyped-def]
        for row in original(self, sql, params, batch=1):
            read["rows"] += 1
            yield row

    monkeypatch.setattr(Store, "_stream", counting)

    class Stream(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[int] = []

        def write(self, text: str) -> int:
            self.seen.append(read["rows"])
            return super().write(text)

    for what in ("judgments", "items"):
        read["rows"], out = 0, Stream()
        with open_store(spec) as store:
            n = export(store, what, "csv", stream=out)
        assert n >= 3 and read["rows"] == n
        assert out.seen[1] < n, f"{what}: every row was read before the first was written"


def test_parquet_in_row_groups_with_declared_types(spec: SessionSpec, project: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    import importlib

    export_module = importlib.import_module("annotate.formats.export")

    monkeypatch.setattr(export_module, "PARQUET_BATCH", 2)
    with open_store(spec) as store:
        n = export(store, "judgments", "parquet", output=project / "j.parquet", include_superseded=True)
        expected = [dict(r) for r in export_module.export_rows(store, "judgments", include_superseded=True)[1]]
    table = pq.read_table(project / "j.parquet")
    assert pq.ParquetFile(project / "j.parquet").num_row_groups == (n + 1) // 2
    got = table.to_pylist()
    assert [r["uid"] for r in got] == [r["uid"] for r in expected]
    assert [r["timings"] for r in got] == [json.dumps(r["timings"], ensure_ascii=False) for r in expected]
    types = {f.name: str(f.type) for f in table.schema}
    assert (types["initial_label"], types["confidence"], types["swapped"]) == ("string", "int64", "bool")
