"""The Error spans section, checked against values computed another way: counts and shares by plain
loops over the stored judgments, the character overlap F1 from Python sets of character offsets,
Krippendorff's alpha on has-an-error with the `krippendorff` package, and every item-bootstrap
interval redone with a plain loop over the same resamples (numpy's generator with the report's seed,
items in the order the section resamples them)."""

from __future__ import annotations

import random
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from annotate.model import Assignment, Item, Judgment, Message, Response, Span, Timings
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.session import create_session, open_store

T = Timings("2024-01-01T00:00:00+00:00", 100, 5000, 5000)
RATERS = ("alice", "bob", "carol")
MODELS = ("m1", "m2", "m3")
CATEGORIES = ("factual", "reasoning", "instruction", "unsafe")
N_ITEMS = 14
TEXT = "The answer is forty two because six times seven is forty two, as everyone knows well. " * 2


def _responses(k: int) -> tuple[Response, ...]:
    return (Response("A", TEXT[: 100 + k], MODELS[k % 3]), Response("B", TEXT[: 120 + k], MODELS[(k + 1) % 3]))


@pytest.fixture
def marked(tmp_path: Path):
    """A pairwise session with spans: 14 items, three annotators (the last item alice's only), random
    spans (overlapping, several categories), swapped and unswapped assignments; submitted item by item."""
    spec = create_session("sp", "pairwise", seed=3, folder=tmp_path / "sessions", spans=True)
    store = open_store(spec)
    store.add_items([Item(f"i{k:02d}", "pairwise", (Message("user", f"question {k}"),), _responses(k))
                     for k in range(N_ITEMS)])
    rng = random.Random(17)
    truth: list[tuple[str, str, str, str, list[Span]]] = []  # item, rater, slot, model, spans there
    for k in range(N_ITEMS):
        item = f"i{k:02d}"
        for n, rater in enumerate(RATERS if k < N_ITEMS - 1 else RATERS[:1]):
            [a] = store.add_assignments([Assignment(0, rater, item, k, swapped=rng.random() < 0.5)])
            spans = []
            for slot, response in zip("AB", _responses(k), strict=True):
                here = []
                if rng.random() < 0.6:
                    anchor = rng.randrange(0, 60)  # annotators tend to mark near the same place
                    for _ in range(rng.randint(1, 3)):
                        start = max(0, anchor + rng.randint(-8, 8))
                        end = min(len(response.text), start + rng.randint(1, 25))
                        here.append(Span(slot, start, end, rng.choice(CATEGORIES[: 2 + n % 2]),
                                         rng.choice(("minor", "major"))))
                spans += here
                truth.append((item, rater, slot, response.model or "", here))
            store.submit(Judgment(a.id, rng.choice("AB"), T, spans=tuple(spans)))
    yield spec, store, truth
    store.close()


def _ratio_interval(rows_by_item: dict[str, list[tuple[float, float]]], n_boot: int, seed: int) -> tuple[float, float]:
    """Σ numerator / Σ denominator over items resampled (in the dict's order) by a plain loop."""
    items = list(rows_by_item)
    idx = np.random.default_rng(seed).integers(0, len(items), size=(n_boot, len(items)))
    values = []
    for row in idx:
        num = sum(x for k in row for x, _ in rows_by_item[items[k]])
        den = sum(y for k in row for _, y in rows_by_item[items[k]])
        values.append(num / den if den else np.nan)
    finite = np.asarray(values)[np.isfinite(values)]
    lo, hi = np.quantile(finite, [0.025, 0.975])
    return float(lo), float(hi)


def test_errors_per_model_and_category(marked) -> None:
    spec, store, truth = marked
    n_boot, seed = 200, 4
    data = build_report(spec, store, n_boot=n_boot, seed=seed).data["spans"]
    assert data["taxonomy"]["categories"] == list(CATEGORIES) and data["taxonomy"]["source"] == "spec"
    assert data["n_responses"] == len(truth) and data["n_errors"] == sum(len(s) for *_, s in truth)
    got = {row["model"]: row for row in data["per_model"]}
    assert set(got) == {None, *MODELS}
    for model in (None, *MODELS):
        mine = [t for t in truth if model is None or t[3] == model]
        flagged = defaultdict(list)
        errors = defaultdict(list)
        for item, _rater, _slot, _model, spans in mine:
            flagged[item].append((float(bool(spans)), 1.0))
            errors[item].append((float(len(spans)), 1.0))
        row = got[model]
        assert row["n_responses"] == len(mine) and row["n_errors"] == sum(len(s) for *_, s in mine)
        assert row["flagged"]["estimate"] == pytest.approx(np.mean([bool(s) for *_, s in mine]))
        assert row["errors_per_response"]["estimate"] == pytest.approx(np.mean([len(s) for *_, s in mine]))
        assert row["flagged"]["ci"] == pytest.approx(_ratio_interval(dict(sorted(flagged.items())), n_boot, seed))
        assert row["errors_per_response"]["ci"] == pytest.approx(
            _ratio_interval(dict(sorted(errors.items())), n_boot, seed))
        assert row["flagged"]["n_units"] == len(flagged)
    ranked = [row["model"] for row in data["per_model"][1:]]
    assert ranked == sorted(MODELS, key=lambda m: -got[m]["errors_per_response"]["estimate"])
    counted: dict[tuple[str | None, str, str], int] = defaultdict(int)
    for _item, _rater, _slot, model, spans in truth:
        for span in spans:
            counted[None, span.category, span.severity] += 1
            counted[model, span.category, span.severity] += 1
    rates = {(c["model"], c["category"], c["severity"]): c for c in data["per_category"]}
    assert {k: c["n_errors"] for k, c in rates.items()} == dict(counted)
    for (model, _category, _severity), entry in rates.items():
        responses = sum(1 for t in truth if model is None or t[3] == model)
        assert entry["rate"]["estimate"] == pytest.approx(entry["n_errors"] / responses)
    per_rater = {r["rater"]: r for r in data["per_rater"]}
    for rater in RATERS:
        mine = [t for t in truth if t[1] == rater]
        assert per_rater[rater]["n_errors"] == sum(len(s) for *_, s in mine)
        assert per_rater[rater]["flagged"]["estimate"] == pytest.approx(np.mean([bool(s) for *_, s in mine]))


def _chars(spans: list[Span], category: str | None) -> set[int]:
    return {c for s in spans if category is None or s.category == category for c in range(s.start, s.end)}


def test_span_agreement(marked) -> None:
    spec, store, truth = marked
    n_boot, seed = 200, 6
    data = build_report(spec, store, n_boot=n_boot, seed=seed).data["spans"]["agreement"]
    by_response: dict[tuple[str, str], dict[str, list[Span]]] = defaultdict(dict)
    for item, rater, slot, _model, spans in truth:
        by_response[item, slot][rater] = spans
    shared = {key: raters for key, raters in by_response.items() if len(raters) >= 2}
    assert data["n_responses"] == len(shared) and data["n_items"] == N_ITEMS - 1
    # has an error at all: pairs agreeing, and Krippendorff's alpha with responses as units
    agreeing = defaultdict(list)
    for (item, _slot), raters in shared.items():
        for a, b in combinations(raters.values(), 2):
            agreeing[item].append((float(bool(a) == bool(b)), 1.0))
    pairs = [p for rows in agreeing.values() for p in rows]
    percent = data["flagged"]["percent"]
    assert percent["estimate"] == pytest.approx(sum(x for x, _ in pairs) / len(pairs))
    assert percent["n_pairable"] == len(pairs)
    assert percent["ci"] == pytest.approx(_ratio_interval(dict(agreeing), n_boot, seed))
    units = list(shared)

    def alpha(columns: list[tuple[str, str]]) -> float:
        table = np.full((len(RATERS), len(columns)), np.nan)
        for u, key in enumerate(columns):
            for r, rater in enumerate(RATERS):
                if rater in shared[key]:
                    table[r, u] = float(bool(shared[key][rater]))
        return float(krippendorff.alpha(reliability_data=table, level_of_measurement="nominal"))

    assert data["flagged"]["alpha"]["estimate"] == pytest.approx(alpha(units))
    items = list(dict.fromkeys(item for item, _ in units))
    idx = np.random.default_rng(seed).integers(0, len(items), size=(n_boot, len(items)))
    boots = [alpha([key for k in row for key in units if key[0] == items[k]]) for row in idx]
    assert data["flagged"]["alpha"]["ci"] == pytest.approx(list(np.quantile(boots, [0.025, 0.975])))
    # where: character overlap F1 per category, pooled over every pair of every shared response
    overlap = {o["category"]: o for o in data["overlap"]}
    assert list(overlap) == ["(any)", *CATEGORIES]
    for name in overlap:
        category = None if name == "(any)" else name
        rows = defaultdict(list)
        marked_pairs = 0
        for (item, _slot), raters in shared.items():
            for a, b in combinations(raters.values(), 2):
                ca, cb = _chars(a, category), _chars(b, category)
                rows[item].append((2.0 * len(ca & cb), float(len(ca) + len(cb))))
                marked_pairs += bool(ca or cb)
        both, total = sum(x for r in rows.values() for x, _ in r), sum(y for r in rows.values() for _, y in r)
        entry = overlap[name]
        assert (entry["chars_both"], entry["chars"]) == (both / 2, total)
        assert entry["f1"]["n_pairable"] == marked_pairs and entry["n_pairs"] == len(pairs)
        if total == 0:
            assert entry["f1"]["estimate"] is None
            continue
        assert entry["f1"]["estimate"] == pytest.approx(both / total)
        assert entry["f1"]["ci"] == pytest.approx(_ratio_interval(dict(rows), n_boot, seed))
    assert overlap["unsafe"]["f1"]["estimate"] is None  # nobody marked it: no figure, not zero


def test_the_section_renders_in_every_format(marked) -> None:
    spec, store, _truth = marked
    report = build_report(spec, store, n_boot=50, seed=1)
    for fmt in ("text", "md", "html", "json"):
        out = render(report, fmt)
        assert "Error spans" in out or '"spans"' in out
        if fmt != "json":
            assert "character overlap F1" in out and "Errors per model" in out
