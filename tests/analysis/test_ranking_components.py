"""Models never compared (a disconnected battle graph) are ranked within their own group, and every
format says the groups are not comparable."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from annotate.analysis.ranking import components, pair_counts, rank_models
from annotate.model import ExternalLabel, Item, Message, Response
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.session import create_session, open_store


def _battles() -> pd.DataFrame:
    rows = ([("gpt-4", "vicuna", "model_a")] * 8 + [("gpt-4", "vicuna", "model_b")] * 2
            + [("gpt-3.5", "claude", "model_b")] * 6 + [("gpt-3.5", "claude", "tie")] * 2
            + [("claude", "llama", "model_a")] * 5)
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])


def test_components_are_found_and_numbered_by_size() -> None:
    counts = pair_counts(_battles())
    group = dict(zip(counts.models, components(counts).tolist(), strict=True))
    assert group == {"claude": 1, "gpt-3.5": 1, "llama": 1, "gpt-4": 2, "vicuna": 2}


def test_ranks_count_only_models_of_the_same_component() -> None:
    rows = rank_models(_battles(), n_boot=0)
    assert [(r.component, r.model) for r in rows] == [
        (1, "claude"), (1, "gpt-3.5"), (1, "llama"), (2, "gpt-4"), (2, "vicuna"),
    ]
    by = {r.model: r for r in rows}
    assert by["gpt-4"].rank == 1 and by["vicuna"].rank == 2  # not ranked below claude and gpt-3.5
    assert by["claude"].rank == 1 and by["llama"].rank == 3
    assert rows[0].to_json()["component"] == 1
    connected = rank_models(_battles().iloc[:10], n_boot=0)
    assert {r.component for r in connected} == {1}


def test_report_warns_that_groups_are_not_comparable(project: Path) -> None:
    spec = create_session("split", "pairwise", seed=3, folder=project / "sessions")
    pairs = [("gpt-4", "vicuna")] * 4 + [("gpt-3.5", "claude")] * 4
    items = [Item(id=f"q{n}", kind="pairwise", conversation=(Message("user", f"question {n}"),),
                  responses=(Response("A", f"answer a {n}", a), Response("B", f"answer b {n}", b)))
             for n, (a, b) in enumerate(pairs)]
    with open_store(spec) as store:
        store.add_items(items)
        store.add_external_labels([ExternalLabel("votes.csv", rater, "crowd", f"q{n}", "A" if n % 4 else "B")
                                   for n in range(8) for rater in ("r1", "r2")])
        report = build_report(spec, store, n_boot=30)
    data = json.loads(render(report, "json"))
    overall = data["ranking"]["overall"]
    assert overall["n_components"] == 2
    assert "never compared" in overall["note"]
    groups = {m["model"]: m["component"] for m in overall["models"]}
    assert groups["gpt-4"] == groups["vicuna"] != groups["gpt-3.5"] == groups["claude"]
    assert {m["rank"] for m in overall["models"] if m["component"] == 2} >= {1}
    for fmt in ("text", "md", "html"):
        out = render(report, fmt, width=200) if fmt == "text" else render(report, fmt)
        assert "NOT ONE SCALE" in out and "never compared" in out, fmt
    text = render(report, "text", width=200)
    assert any(line.split()[:2] == ["group", "rank"] for line in text.splitlines() if line.strip())
