"""The report's Training section, and that training answers never enter any other figure or export."""

from __future__ import annotations

import json

from annotate.formats.export import export_rows
from annotate.model import Assignment, Judgment, Timings
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.spec import load_spec
from annotate.store.suggestion_frames import anchoring_frame
from annotate.store.training import add_training_items, answer, set_override, start_round
from tests.training_util import add_training_table, training_item

FIGURES = ("agreement", "judges", "pairwise", "biases", "quality", "ranking", "style_control", "competence", "summary")


def _wrong(label: str) -> str:
    return "both_bad" if label != "both_bad" else "tie"


def _train(store, spec, name: str, wrong: set[str]) -> None:  # type: ignore[no-untyped-def]
    """`name` answers every training item, wrongly those in `wrong`."""
    golds = {t.item.id: t.gold for t in [training_item(i, g) for i, g in enumerate(("A", "B", "tie", "A"))]}
    for entry in start_round(store, spec, name):
        gold = golds[entry.item_id]
        answer(store, entry, _wrong(gold) if entry.item_id in wrong else gold)


def _numbers(report) -> dict:  # type: ignore[no-untyped-def]
    return {key: report.data[key] for key in FIGURES}


def test_training_is_reported_apart_and_changes_no_other_figure(session) -> None:  # type: ignore[no-untyped-def]
    spec, store = session
    before = build_report(spec, store, n_boot=0)
    assert before.data["training"] is None and "TRAINING" not in render(before, "text")
    exported = list(export_rows(store, "judgments")[1])
    anchoring = anchoring_frame(store)
    spec = add_training_table(spec, threshold=0.75)
    items = [training_item(i, g) for i, g in enumerate(("A", "B", "tie", "A"))]
    add_training_items(store, items)
    _train(store, spec, "alice", {"train-0", "train-1", "train-2", "train-3"})  # alice gets every one wrong
    _train(store, spec, "bob", {"train-3"})
    set_override(store, "alice", "pass", by="lead")
    report = build_report(spec, store, n_boot=0)
    assert _numbers(report) == _numbers(build_report(load_spec(spec.path), store, n_boot=0))
    for key in FIGURES:
        assert report.data[key] == before.data[key], key
    assert list(export_rows(store, "judgments")[1]) == exported
    assert anchoring_frame(store).equals(anchoring)
    data = report.data["training"]
    assert data["n_items"] == 4 and data["pass_threshold"] == 0.75
    by_name = {a["annotator"]: a for a in data["annotators"]}
    assert by_name["alice"]["result"] == "overridden" and by_name["alice"]["score"] == 0.0
    assert by_name["bob"] == {"annotator": "bob", "round": 1, "answered": 4, "right": 3, "n_items": 4,
                              "score": 0.75, "passed": True, "overridden": False, "result": "passed"}
    assert {i["item"]: (i["n_answers"], i["n_right"]) for i in data["items"]}["train-3"] == (2, 0)
    for fmt in ("text", "md", "html"):
        shown = render(report, fmt)
        assert "Training" in shown and "overridden" in shown and "passed" in shown
        assert "[bold]" not in shown or fmt == "json"  # explanations are never in the report
    assert json.loads(render(report, "json"))["training"]["annotators"][0]["annotator"] == "alice"


def test_the_same_answers_counted_as_judgments_would_change_the_figures(session) -> None:  # type: ignore[no-untyped-def]
    """The exclusion test above can fail: alice's wrong training answers, if they were main
    judgments on gold items, would move gold accuracy and agreement."""
    spec, store = session
    before = build_report(spec, store, n_boot=0)
    items = [training_item(i, g) for i, g in enumerate(("A", "B", "tie", "A"))]
    store.add_items([t.item for t in items])
    timings = Timings(shown_at="2024-01-01T00:00:00+00:00", first_input_ms=100, submit_ms=2500, active_ms=2000)
    for n, t in enumerate(items):
        for name in ("alice", "bob"):
            [a] = store.add_assignments([Assignment(0, name, t.item.id, 100 + n)])
            store.submit(Judgment(a.id, _wrong(t.gold) if name == "alice" else t.gold, timings))
    counted = build_report(spec, store, n_boot=0)
    assert counted.data["quality"] != before.data["quality"]
    assert counted.data["agreement"] != before.data["agreement"]
