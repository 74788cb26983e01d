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
    with open_store(spec) as store, pytest.raises(OptionError, match="supports pairwise, single and ranking sessions"):
        import_labels(store, spec.schema, project / "votes.csv", cohort="expert")


def test_bad_label_map_is_refused(spec: SessionSpec, project: Path) -> None:
    (project / "votes.csv").write_text("item,rater,label\nn1,ann,1\n")
    with open_store(spec) as store, pytest.raises(OptionError, match="'left' is not a label"):
        import_labels(store, spec.schema, project / "votes.csv", cohort="expert", label_map=("1=left",))


def test_unmapped_labels_are_refused_mapped_to_invalid_or_skipped(spec: SessionSpec, project: Path) -> None:
    """A judge's unparseable verdict does not sink the file: map it to invalid, or skip it; both are counted."""
    (project / "judge.csv").write_text(
        "item,rater,label\nn1,gpt,[[A]]\nn2,gpt,garbage\n3,gpt,[[B]]\nn4,gpt,???\nn1,claude,[[C]]\n"
    )
    base = ("labels", "import", "s", "judge.csv", "--cohort", "llm", "--label-map", "[[A]]=A,[[B]]=B,[[C]]=tie")
    before = fingerprint(spec)
    refused = cli(*base)
    assert refused.exit_code == 1 and "line 3" in refused.stderr and "--skip-unmapped" in refused.stderr
    assert fingerprint(spec) == before
    result = cli(*base, "--label-map", "garbage=invalid", "--skip-unmapped")
    assert result.exit_code == 0, result.output
    assert ("added 4 llm labels (0 unchanged); 1 invalid (stored, never counted as votes); 1 unmapped skipped"
            in result.stdout)
    assert "1 label outside the label map left out (--skip-unmapped): \"???\" at line 5" in result.stderr
    with open_store(spec) as store:
        stored = {(lab.rater, lab.item_id): (lab.label, lab.raw) for lab in store.external_labels()}
    assert stored[("gpt", "n2")] == ("invalid", "garbage") and ("gpt", "n4") not in stored
    assert len(stored) == 4
    only_skip = cli("labels", "import", "s", "judge.csv", "--cohort", "llm", "--source", "again", "--skip-unmapped",
                    "--label-map", "[[A]]=A,[[B]]=B")
    assert "added 2 llm labels (0 unchanged); 3 unmapped skipped" in only_skip.stdout


def test_a_label_map_to_an_unknown_label_names_invalid_as_the_way_out(spec: SessionSpec, project: Path) -> None:
    (project / "v.csv").write_text("item,rater,label\nn1,gpt,x\n")
    result = cli("labels", "import", "s", "v.csv", "--cohort", "llm", "--label-map", "x=invalidd")
    assert result.exit_code != 0 and 'did you mean "invalid"' in result.output


def test_shown_first_for_every_vote_or_from_a_column(spec: SessionSpec, project: Path) -> None:
    (project / "fixed.csv").write_text("item,rater,label\nn1,gpt,A\nn2,gpt,B\n")
    assert cli("labels", "import", "s", "fixed.csv", "--cohort", "llm", "--shown-first", "b").exit_code == 0
    write_jsonl(project / "judge.jsonl", [
        {"item": "n1", "rater": "claude", "label": "A", "swapped": "false"},
        {"item": "n2", "rater": "claude", "label": "A", "swapped": "true"},
        {"item": "3", "rater": "claude", "label": "tie", "swapped": ""},
    ])
    result = cli("labels", "import", "s", "judge.jsonl", "--cohort", "llm", "--shown-first-column", "swapped",
                 "--shown-first-map", "false=A,true=B")
    assert result.exit_code == 0, result.output
    (project / "sheet.csv").write_text("item,order,ann1,ann2\nn1,a,A,B\nn2,B,tie,\n")
    result = cli("labels", "import", "s", "sheet.csv", "--cohort", "crowd", "--layout", "wide",
                 "--shown-first-column", "order")
    assert result.exit_code == 0, result.output
    with open_store(spec) as store:
        order = {(lab.rater, lab.item_id): lab.shown_first for lab in store.external_labels()}
    assert order == {("gpt", "n1"): "B", ("gpt", "n2"): "B", ("claude", "n1"): "A", ("claude", "n2"): "B",
                     ("claude", "3"): None, ("ann1", "n1"): "A", ("ann2", "n1"): "A", ("ann1", "n2"): "B"}


@pytest.mark.parametrize(("args", "content", "message"), [
    (("--shown-first", "A", "--shown-first-column", "o"), "item,rater,label,o\nn1,x,A,A\n", "not both"),
    (("--shown-first-map", "0=A"), "item,rater,label\nn1,x,A\n", "needs --shown-first-column"),
    (("--shown-first-column", "order"), "item,rater,label\nn1,x,A\n", 'column "order"'),
    (("--shown-first-column", "o"), "item,rater,label,o\nn1,x,A,left\n", 'line 2: column "o": expected A or B'),
    (("--shown-first-column", "o", "--shown-first-map", "0=C"), "item,rater,label,o\nn1,x,A,0\n", "CODE=A or CODE=B"),
])
def test_shown_first_errors_name_the_option_or_the_cell(
    spec: SessionSpec, project: Path, args: tuple[str, ...], content: str, message: str,
) -> None:
    (project / "v.csv").write_text(content)
    before = fingerprint(spec)
    result = cli("labels", "import", "s", "v.csv", "--cohort", "llm", *args)
    assert result.exit_code != 0 and message in result.output, result.output
    assert fingerprint(spec) == before
