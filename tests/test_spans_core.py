"""Error spans in the core: the spec's [labels.spans] and the guideline's taxonomy (bad ones are
errors naming the key), spans stored with their judgment in slot space and original offsets
(nothing written when one is out of range), a file from before the spans table migrated, merges
carrying spans, and the spans export (slot, side and text for swapped and unswapped assignments)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from annotate.formats.export import export_rows
from annotate.guidelines import parse_guideline
from annotate.model import Assignment, Item, Judgment, Message, Response, Span, Timings
from annotate.session import create_session, open_store, session_taxonomy
from annotate.spec import SpecError, load_spec
from annotate.store import Store, StoreError

T = Timings("2025-01-01T00:00:00+00:00", 10, 20, 20)
A_TEXT = "Paris is the capital of Germany. \x1b[31m2 + 2 = 5\x1b[0m"
B_TEXT = "Berlin is the **capital** of Germany.\r\nIt has 3.7 million people."


def _items(n: int = 4) -> list[Item]:
    return [Item(f"i{k}", "pairwise", (Message("user", f"q{k}"),),
                 (Response("A", A_TEXT, "m-a"), Response("B", B_TEXT, "m-b"))) for k in range(n)]


@pytest.fixture
def session(tmp_path: Path):
    spec = create_session("s", "pairwise", seed=2, folder=tmp_path / "sessions", spans=True)
    store = open_store(spec)
    store.add_items(_items())
    yield spec, store
    store.close()


def _spec_with(tmp_path: Path, table: str) -> Path:
    spec = create_session("t", "pairwise", seed=1, folder=tmp_path / "sessions", spans=True)
    text = spec.path.read_text()
    start = text.index("[labels.spans]")
    end = text.index("[plan]")
    spec.path.write_text(text[:start] + table + "\n\n" + text[end:])
    return spec.path


@pytest.mark.parametrize(("table", "key", "says"), [
    ("[labels.spans]\ncategory = [\"factual\"]", "labels.spans.category", "did you mean 'categories'"),
    ("[labels.spans]\ncategories = \"factual\"", "labels.spans.categories", "an array of 1 to 9"),
    ("[labels.spans]\ncategories = [\"Factual\"]", "labels.spans.categories", "'Factual' is not one"),
    ("[labels.spans]\ncategories = [\"a\", \"a\"]", "labels.spans.categories", "repeats a name"),
    ("[labels.spans]\ncategories = [" + ", ".join(f'"c{k}"' for k in range(10)) + "]", "labels.spans.categories",
     "10 is too many"),
    ("[labels.spans]\ncategories = [\"x\"]\nseverities = [1, 2]", "labels.spans.severities", "1 is not one"),
    ("[labels]\nspans = 3", "labels.spans", "a table"),
])
def test_bad_span_tables_are_errors_naming_the_key(tmp_path: Path, table: str, key: str, says: str) -> None:
    path = _spec_with(tmp_path, table)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.key == key and says in str(caught.value) and str(path) in str(caught.value)


def test_a_ranking_session_with_spans_is_an_error_naming_the_key(tmp_path: Path) -> None:
    from annotate.session import SessionError

    spec = create_session("r", "ranking", seed=1, folder=tmp_path / "sessions")
    text = spec.path.read_text()
    end = text.index("[plan]")
    spec.path.write_text(text[:end] + "[labels.spans]\ncategories = [\"factual\"]\n\n" + text[end:])
    with pytest.raises(SpecError) as caught:
        load_spec(spec.path)
    assert caught.value.key == "labels.spans" and "not available in ranking sessions" in str(caught.value)
    assert str(spec.path) in str(caught.value)
    with pytest.raises(SessionError, match=r"--spans: error spans are not available in ranking sessions"):
        create_session("r2", "ranking", seed=1, folder=tmp_path / "sessions", spans=True)
    assert not (tmp_path / "sessions" / "r2.toml").exists()


def test_the_taxonomy_comes_from_the_spec_else_the_guideline(tmp_path: Path) -> None:
    guideline = parse_guideline(Path(__file__).resolve().parent.parent / "guidelines" / "pairwise-errors.md")
    spec = load_spec(_spec_with(tmp_path, "[labels.spans]\ncategories = [\"made_up\"]"))
    taxonomy = session_taxonomy(spec, guideline)
    assert taxonomy is not None and taxonomy.categories == ("made_up",) and taxonomy.source == "spec"
    assert taxonomy.severities == ("minor", "major")  # the guideline's
    (tmp_path / "other").mkdir()
    spec = load_spec(_spec_with(tmp_path / "other", "[labels.spans]"))
    taxonomy = session_taxonomy(spec, guideline)
    assert taxonomy is not None and taxonomy.categories == ("factual", "reasoning", "instruction", "unsafe")
    assert taxonomy.source == "pairwise-errors"
    broken = tmp_path / "broken.md"
    broken.write_text("---\nid: broken\nversion: 1\nerrors: factual, Not OK\n---\n\nText.\n")
    with pytest.raises(ValueError, match=r"broken.md: front matter: errors\] .*'Not OK' is not one"):
        session_taxonomy(spec, parse_guideline(broken))


def test_spans_are_stored_with_the_judgment_in_slot_space(session) -> None:
    _spec, store = session
    [a] = store.add_assignments([Assignment(0, "ann", "i0", 0, swapped=True)])
    spans = (Span("A", 33, 51, "reasoning", "major", "the escape is part of the original"),
             Span("B", 0, 6, "factual", "minor"))
    stored = store.submit(Judgment(a.id, "B", T, spans=spans))
    (back,) = store.judgments("ann")
    assert back.id == stored.id and set(back.spans) == set(spans)
    assert A_TEXT[33:51] == "\x1b[31m2 + 2 = 5\x1b[0m" and B_TEXT[0:6] == "Berlin"
    rows = store.db.execute("SELECT slot, char_start, char_end, category, severity, note FROM spans"
                            " ORDER BY slot").fetchall()
    assert [tuple(r) for r in rows] == [("A", 33, 51, "reasoning", "major", "the escape is part of the original"),
                                        ("B", 0, 6, "factual", "minor", "")]


@pytest.mark.parametrize(("span", "says"), [
    (Span("A", 0, len(A_TEXT) + 1, "factual", "minor"), "not inside slot A's text"),
    (Span("A", 5, 5, "factual", "minor"), "start before end"),
    (Span("C", 0, 1, "factual", "minor"), "slot 'C'"),
    (Span("B", 0, 1, "factual", "minor", "x" * 1001), "a note of at most 1000"),
])
def test_a_bad_span_writes_nothing(session, span: Span, says: str) -> None:
    _spec, store = session
    [a] = store.add_assignments([Assignment(0, "ann", "i1", 0)])
    with pytest.raises(StoreError, match=says) as caught:
        store.submit(Judgment(a.id, "A", T, spans=(Span("B", 0, 6, "factual", "minor"), span)))
    assert "item i1: span 2" in str(caught.value)
    assert store.judgments("ann") == [] and store.db.execute("SELECT count(*) FROM spans").fetchone()[0] == 0


@pytest.mark.parametrize(("span", "says"), [
    (Span("B", 0, 6, "typo", "minor"), "span category 'typo': expected one of factual, unsafe"),
    (Span("B", 0, 6, "factual", "critical"), "span severity 'critical': expected one of minor, major"),
])
def test_a_span_outside_the_session_taxonomy_writes_nothing(session, span: Span, says: str) -> None:
    from annotate.design.spans import Taxonomy

    _spec, store = session
    [a] = store.add_assignments([Assignment(0, "ann", "i1", 0)])
    taxonomy = Taxonomy(("factual", "unsafe"))
    with pytest.raises(StoreError, match=says) as caught:
        store.submit(Judgment(a.id, "A", T, spans=(span,)), taxonomy=taxonomy)
    assert "item i1: span 1" in str(caught.value)
    assert store.judgments("ann") == [] and store.db.execute("SELECT count(*) FROM spans").fetchone()[0] == 0
    store.submit(Judgment(a.id, "A", T, spans=(Span("B", 0, 6, "unsafe", "major"),)), taxonomy=taxonomy)
    assert [j.spans[0].category for j in store.judgments("ann")] == ["unsafe"]


def test_a_file_from_before_spans_is_migrated(tmp_path: Path) -> None:
    from annotate.store.schema import MIGRATIONS
    from tests.migration_util import drop_item_facts, drop_open_queue, drop_training_tables, drop_vote_tallies

    before = next(k for k, step in enumerate(MIGRATIONS) if step.__name__.endswith("_spans"))
    spec = create_session("old", "pairwise", seed=1, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items(_items(1))
        [a] = store.add_assignments([Assignment(0, "ann", "i0", 0)])
        store.submit(Judgment(a.id, "A", T))
    conn = sqlite3.connect(spec.db)  # the file as the version before the spans table wrote it
    conn.execute("DROP TABLE spans")
    drop_training_tables(conn)  # the migrations after the spans
    drop_vote_tallies(conn)
    drop_open_queue(conn)
    drop_item_facts(conn)
    conn.execute(f"PRAGMA user_version = {before}")
    conn.commit()
    conn.close()
    with Store.open(spec.db) as store:
        assert store.has_spans
        (old,) = store.judgments("ann")
        assert old.spans == () and old.label == "A"
        [b] = store.add_assignments([Assignment(0, "bob", "i0", 0)])
        store.submit(Judgment(b.id, "B", T, spans=(Span("B", 0, 6, "factual", "major"),)))
        assert store.judgments("bob")[0].spans == (Span("B", 0, 6, "factual", "major"),)
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_a_merge_brings_the_spans_of_new_judgments_once(tmp_path: Path, session) -> None:
    import shutil

    from annotate.store.merge import merge_session

    spec, store = session
    [a] = store.add_assignments([Assignment(0, "ann", "i2", 0)])
    store.close()
    copy = tmp_path / "copy.db"
    shutil.copy(spec.db, copy)
    with Store.open(copy) as theirs:
        theirs.submit(Judgment(a.id, "B", T, spans=(Span("A", 0, 5, "factual", "major", "not Germany's"),)))
    with Store.open(spec.db) as ours:
        merge_session(ours, copy)
        merge_session(ours, copy)  # twice: nothing new
        (merged,) = ours.judgments("ann")
        assert merged.spans == (Span("A", 0, 5, "factual", "major", "not Germany's"),)
        assert ours.db.execute("SELECT count(*) FROM spans").fetchone()[0] == 1


def test_the_spans_export_names_slot_side_model_and_text(session) -> None:
    _spec, store = session
    made = store.add_assignments([Assignment(0, "ann", "i0", 0, swapped=False),
                                  Assignment(0, "ann", "i1", 1, swapped=True)])
    for a in made:
        store.submit(Judgment(a.id, "A", T, spans=(Span("B", 0, 6, "factual", "minor", "n"),
                                                   Span("A", 0, 5, "reasoning", "major"))))
    columns, streamed = export_rows(store, "spans")
    rows = list(streamed)
    refs = {r["item"]: r["ref"] for r in list(export_rows(store, "judgments")[1])}
    assert [r["ref"] for r in rows] == [refs["i0"], refs["i0"], refs["i1"], refs["i1"]] and refs["i0"] != refs["i1"]
    got = [{k: r[k] for k in ("item", "slot", "side", "model", "start", "end", "text", "category", "severity")}
           for r in rows]
    assert got == [
        {"item": "i0", "slot": "A", "side": "left", "model": "m-a", "start": 0, "end": 5, "text": "Paris",
         "category": "reasoning", "severity": "major"},
        {"item": "i0", "slot": "B", "side": "right", "model": "m-b", "start": 0, "end": 6, "text": "Berlin",
         "category": "factual", "severity": "minor"},
        {"item": "i1", "slot": "A", "side": "right", "model": "m-a", "start": 0, "end": 5, "text": "Paris",
         "category": "reasoning", "severity": "major"},
        {"item": "i1", "slot": "B", "side": "left", "model": "m-b", "start": 0, "end": 6, "text": "Berlin",
         "category": "factual", "severity": "minor"},
    ]
    assert "note" in columns
