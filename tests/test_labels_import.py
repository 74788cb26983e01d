"""`annotate labels import`: long and wide layouts, label maps, cohorts, atomicity."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_util import DATA, cli, fingerprint, session, write_jsonl

from annotate.formats import FormatError, OptionError, import_items, import_labels
from annotate.session import open_store
from annotate.spec import SessionSpec


@pytest.fixture
def spec(project: Path) -> SessionSpec:
    spec = session(project)
    with open_store(spec) as store:
        import_items(store, spec.schema, DATA / "pairs_native.jsonl")
    return spec


def test_long_layout_with_default_columns(spec: SessionSpec, project: Path) -> None:
    (project / "votes.csv").write_text("item,rater,label\nn1,ann,A\nn2,ann,tie\nn1,bob,both_bad\n3,bob,\n")
    result = cli("labels", "import", "s", "votes.csv", "--cohort", "expert")
    assert result.exit_code == 0, result.output
    assert "added 3 expert labels (0 unchanged) from votes.csv" in result.stdout
    with open_store(spec) as store:
        labels = store.external_labels()
        assert {a.name: a.cohort for a in store.annotators()} == {"ann": "expert", "bob": "expert"}
    assert [(lab.source, lab.rater, lab.item_id, lab.label) for lab in labels] == [
        ("votes.csv", "ann", "n1", "A"), ("votes.csv", "ann", "n2", "tie"), ("votes.csv", "bob", "n1", "both_bad"),
    ]
    before = fingerprint(spec)
    again = cli("labels", "import", "s", "votes.csv", "--cohort", "expert")
    assert "added 0 expert labels (3 unchanged)" in again.stdout
    assert fingerprint(spec) == before


def test_long_layout_with_mapped_columns_and_label_map(spec: SessionSpec, project: Path) -> None:
    write_jsonl(project / "crowd.jsonl", [
        {"pair_id": "n1", "worker": "w1", "choice": 1}, {"pair_id": "n4", "worker": "w1", "choice": 2},
        {"pair_id": "n4", "worker": "w2", "choice": 0},
    ])
    with open_store(spec) as store:
        report = import_labels(
            store, spec.schema, project / "crowd.jsonl", cohort="crowd", source="mturk",
            field_map=("item=pair_id", "rater=worker", "label=choice"), label_map=("0=tie,1=A,2=B",),
        )
        labels = store.external_labels()
    assert report.labels_added == 3 and report.cohorts == ("crowd",)
    assert [(lab.rater, lab.item_id, lab.label, lab.raw) for lab in labels] == [
        ("w1", "n1", "A", "1"), ("w1", "n4", "B", "2"), ("w2", "n4", "tie", "0"),
    ]
    assert {lab.source for lab in labels} == {"mturk"}


def test_wide_layout(spec: SessionSpec, project: Path) -> None:
    (project / "sheet.csv").write_text("item,ann1,ann2,notes\nn1,A,B,x\nn2,,tie,y\n")
    result = cli("labels", "import", "s", "sheet.csv", "--cohort", "expert", "--layout", "wide",
                 "--raters", "ann1,ann2")
    assert result.exit_code == 0, result.output
    with open_store(spec) as store:
        got = [(lab.rater, lab.item_id, lab.label) for lab in store.external_labels()]
    assert got == [("ann1", "n1", "A"), ("ann2", "n1", "B"), ("ann2", "n2", "tie")]


def test_wide_layout_default_raters_are_all_other_columns(spec: SessionSpec, project: Path) -> None:
    (project / "sheet.csv").write_text("pair,x,y\nn1,A,B\n")
    with open_store(spec) as store:
        import_labels(store, spec.schema, project / "sheet.csv", cohort="llm", layout="wide",
                      field_map=("item=pair",))
        assert [lab.rater for lab in store.external_labels()] == ["x", "y"]


def test_unknown_item_names_line_and_id(spec: SessionSpec, project: Path) -> None:
    (project / "votes.csv").write_text("item,rater,label\nn1,ann,A\nn9,ann,B\n")
    before = fingerprint(spec)
    result = cli("labels", "import", "s", "votes.csv", "--cohort", "expert")
    assert result.exit_code == 1
    assert 'votes.csv: line 3: column "item": expected the id of an item in the session' in result.stderr
    assert 'got "n9"' in result.stderr
    assert fingerprint(spec) == before


def test_unknown_label_names_line_and_lists_labels(spec: SessionSpec, project: Path) -> None:
    (project / "votes.csv").write_text("item,rater,label\nn1,ann,A\nn2,ann,left\n")
    with open_store(spec) as store, pytest.raises(FormatError) as caught:
        import_labels(store, spec.schema, project / "votes.csv", cohort="expert")
    assert 'line 3: column "label": expected a label among A, B, tie, both_bad' in str(caught.value)
    assert "--label-map" in str(caught.value)


def test_conflicting_repeat_votes_warn_and_keep_the_first(spec: SessionSpec, project: Path) -> None:
    (project / "votes.csv").write_text("item,rater,label\nn1,ann,A\nn1,ann,B\nn2,ann,tie\nn2,ann,tie\n")
    with open_store(spec) as store:
        report = import_labels(store, spec.schema, project / "votes.csv", cohort="expert")
        assert [lab.label for lab in store.external_labels()] == ["A", "tie"]
    assert report.labels_added == 2
    assert any("ann on n1: A at line 2, B at line 3" in w for w in report.warnings)


def test_single_session_grades(project: Path) -> None:
    spec = session(project, "g", kind="single")
    write_jsonl(project / "items.jsonl", [{"id": "e1", "prompt": "p", "responses": {"A": {"text": "t"}}}])
    (project / "grades.csv").write_text("item,rater,label\ne1,ann,7\ne1,bob,7.0\n")
    with open_store(spec) as store:
        import_items(store, spec.schema, project / "items.jsonl")
        import_labels(store, spec.schema, project / "grades.csv", cohort="expert")
        assert [lab.label for lab in store.external_labels()] == ["7", "7"]


def test_rubric_sessions_are_refused(project: Path) -> None:
    spec = session(project, "r", kind="rubric")
    (project / "votes.csv").write_text("item,rater,label\n")
    with open_store(spec) as store, pytest.raises(OptionError, match="supports pairwise and single sessions"):
        import_labels(store, spec.schema, project / "votes.csv", cohort="expert")


def test_bad_label_map_is_refused(spec: SessionSpec, project: Path) -> None:
    (project / "votes.csv").write_text("item,rater,label\nn1,ann,1\n")
    with open_store(spec) as store, pytest.raises(OptionError, match="'left' is not a label"):
        import_labels(store, spec.schema, project / "votes.csv", cohort="expert", label_map=("1=left",))
