"""The report on ranking sessions, checked against values computed another way from the stored
rankings: Kendall's W from its definition with the tie correction written out, alpha by the
`krippendorff` package on mid-ranks, position bias by reading each judgment through its display
order, and the Bradley-Terry battles counted pair by pair. Judgments are stored in slot space; the
display orders are permuted for some assignments and the identity for others."""

from __future__ import annotations

import json
import random
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from annotate.model import Assignment, Item, Judgment, Message, Response, Timings
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.session import create_session, open_store

T = Timings("2024-01-01T00:00:00+00:00", 100, 5000, 5000)
SLOTS = "ABCD"
MODELS = {"A": "m-a", "B": "m-b", "C": "m-c", "D": "m-d"}
RATERS = ("alice", "bob", "carol")
N_ITEMS = 12


def _items() -> list[Item]:
    return [Item(f"r{n}", "ranking", (Message("user", f"Question {n}?"),),
                 tuple(Response(s, f"Answer {s} to {n}.", MODELS[s]) for s in SLOTS)) for n in range(N_ITEMS)]


def _rankings() -> dict[tuple[str, str], str]:
    """(item, rater) -> a slot-space ranking: A mostly best, some ties, one rater contrary on a few."""
    rng = random.Random(7)
    out = {}
    for n in range(N_ITEMS):
        for rater in RATERS:
            slots = sorted(SLOTS, key=lambda s: SLOTS.index(s) + rng.uniform(0, 2.5))
            if rater == "carol" and n % 4 == 0:
                slots.reverse()
            text = ">".join(slots)
            if (n + len(rater)) % 5 == 0:  # a tie between the second and third place
                text = f"{slots[0]}>{'='.join(sorted(slots[1:3]))}>{slots[3]}"
            out[(f"r{n}", rater)] = text
    return out


def _order(n: int, rater: str) -> tuple[str, ...]:
    """Identity for half the assignments, a rotation or a reversal for the others."""
    i = RATERS.index(rater)
    if (n + i) % 2 == 0:
        return tuple(SLOTS)
    rotated = SLOTS[i + 1:] + SLOTS[: i + 1]
    return tuple(rotated[::-1] if n % 3 == 0 else rotated)


@pytest.fixture
def ranked(tmp_path: Path):
    spec = create_session("rk", "ranking", seed=3, folder=tmp_path / "sessions")
    store = open_store(spec)
    store.add_items(_items())
    rankings = _rankings()
    for rater in RATERS:
        for n in range(N_ITEMS):
            [a] = store.add_assignments([Assignment(0, rater, f"r{n}", n, order=_order(n, rater))])
            store.submit(Judgment(a.id, rankings[(f"r{n}", rater)], T))
    yield spec, store, rankings
    store.close()


def _mid_ranks(text: str) -> dict[str, float]:
    out, done = {}, 0
    for group in text.split(">"):
        names = group.split("=")
        out.update({s: done + (len(names) + 1) / 2 for s in names})
        done += len(names)
    return out


def _w_by_definition(rows: list[dict[str, float]]) -> float:
    m, k = len(rows), len(SLOTS)
    sums = [sum(r[s] for r in rows) for s in SLOTS]
    mean = m * (k + 1) / 2
    s = sum((x - mean) ** 2 for x in sums)
    ties = 0.0
    for r in rows:
        for value in set(r.values()):
            t = sum(1 for v in r.values() if v == value)
            ties += t**3 - t
    return 12 * s / (m * m * (k**3 - k) - m * ties)


def test_agreement_on_rankings_matches_the_definitions(ranked) -> None:
    spec, store, rankings = ranked
    data = build_report(spec, store, n_boot=0).data
    overall = data["rankings"]["overall"]
    per_item = [_w_by_definition([_mid_ranks(rankings[(f"r{n}", r)]) for r in RATERS]) for n in range(N_ITEMS)]
    assert overall["kendall_w"]["mean"]["estimate"] == pytest.approx(float(np.mean(per_item)))
    assert overall["kendall_w"]["chance"] == pytest.approx(1 / 3)
    assert overall["kendall_w"]["tied_rankings"] == sum(1 for t in rankings.values() if "=" in t) > 0
    matrix = np.array([[_mid_ranks(rankings[(f"r{n}", r)])[s] for n in range(N_ITEMS) for s in SLOTS]
                       for r in RATERS])
    assert overall["alpha_ordinal"]["estimate"] == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal"))
    assert overall["n_rankings"] == N_ITEMS * len(RATERS) and overall["alpha_ordinal"]["n_units"] == N_ITEMS
    assert data["summary"]["agreement"]["kendall_w"] == pytest.approx(float(np.mean(per_item)))
    assert data["agreement"]["overall"] is None and data["grades"] is None


def test_position_bias_reads_each_judgment_through_its_display_order(ranked) -> None:
    spec, store, rankings = ranked
    position = build_report(spec, store, n_boot=0).data["rankings"]["position"]
    by_position: dict[int, list[float]] = {p: [] for p in range(1, 5)}
    first: dict[int, int] = dict.fromkeys(range(1, 5), 0)
    alone = 0
    for n in range(N_ITEMS):
        for rater in RATERS:
            ranks = _mid_ranks(rankings[(f"r{n}", rater)])
            order = _order(n, rater)
            for p, slot in enumerate(order, start=1):
                by_position[p].append(ranks[slot])
            best = [s for s, r in ranks.items() if r == min(ranks.values())]
            if len(best) == 1:
                alone += 1
                first[order.index(best[0]) + 1] += 1
    assert position["n_rankings"] == N_ITEMS * len(RATERS)
    for entry in position["positions"]:
        p = entry["position"]
        assert entry["mean_rank"]["estimate"] == pytest.approx(float(np.mean(by_position[p])))
        assert (entry["first"]["k"], entry["first"]["n"]) == (first[p], alone)
    # the stored slot-space value, not the screen's positions, is what a slot's mid-rank reads
    assert sum(first.values()) == alone


def test_model_ranking_counts_the_implied_pairs(ranked) -> None:
    spec, store, rankings = ranked
    ranking = build_report(spec, store, n_boot=20).data["ranking"]
    assert "implied pairs" in ranking["method"]
    models = {m["model"]: m for m in ranking["overall"]["models"]}
    counts = {m: [0, 0, 0] for m in MODELS.values()}
    for text in rankings.values():
        ranks = _mid_ranks(text)
        for i, x in enumerate(SLOTS):
            for y in SLOTS[i + 1:]:
                for me, other in ((x, y), (y, x)):
                    slot = 0 if ranks[me] < ranks[other] else 1 if ranks[me] > ranks[other] else 2
                    counts[MODELS[me]][slot] += 1
    for name, (wins, losses, ties) in counts.items():
        assert (models[name]["wins"], models[name]["losses"], models[name]["ties"]) == (wins, losses, ties)
    assert ranking["overall"]["n_battles"] == len(rankings) * 6 and ranking["overall"]["n_items"] == N_ITEMS
    assert ranking["overall"]["models"][0]["model"] == "m-a"  # mostly placed first
    assert all(m["ci"][0] is not None for m in ranking["overall"]["models"])


def test_imported_rankings_count_in_agreement_but_not_in_position_bias(ranked, tmp_path: Path) -> None:
    spec, store, _ = ranked
    from annotate.formats import import_labels

    path = tmp_path / "votes.csv"
    path.write_text("item,rater,label\n" + "".join(f"r{n},dave,D>C>B>A\n" for n in range(N_ITEMS)))
    import_labels(store, spec.schema, path, cohort="crowd")
    data = build_report(spec, store, n_boot=0).data["rankings"]
    assert data["overall"]["n_rankings"] == N_ITEMS * 4
    assert data["position"]["n_rankings"] == N_ITEMS * 3
    assert [c["cohort"] for c in data["per_cohort"]] == ["expert", "crowd"]
    crowd = data["per_cohort"][1]
    assert crowd["kendall_w"]["mean"]["estimate"] is None and crowd["kendall_w"]["mean"]["n_units"] == 0


def test_every_format_shows_the_rankings(ranked) -> None:
    spec, store, _ = ranked
    report = build_report(spec, store, n_boot=20)
    text = render(report, "text")
    for needle in ("RANKINGS", "Kendall's W", "alpha (ordinal, ranks)", "Position bias by display position",
                   "implied pairs", "m-a"):
        assert needle in text, needle
    assert "GRADES" not in text
    assert "Kendall's W" in render(report, "md") and "Position bias by display position" in render(report, "html")
    data = json.loads(render(report, "json"))
    assert set(data["rankings"]) == {"k", "ties", "raters", "overall", "per_cohort", "position", "implied_pairs"}
    assert set(data["rankings"]["overall"]) == {"kendall_w", "alpha_ordinal", "n_rankings", "n_items"}
    assert data["rankings"]["implied_pairs"] == 6 and data["rankings"]["k"] == 4
    assert data["session"]["kind"] == "ranking" and data["session"]["level"] == "ordinal"


def test_pairwise_sessions_have_no_rankings_section(tmp_path: Path) -> None:
    spec = create_session("p", "pairwise", seed=3, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        data = build_report(spec, store, n_boot=0).data
    assert data["rankings"] is None and data["ranking"]["method"] is None


def test_summary_names_a_display_position_ranked_first_too_often(tmp_path: Path) -> None:
    spec = create_session("pos", "ranking", seed=3, folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items(_items() + [Item(f"x{n}", "ranking", (Message("user", "Q?"),),
                                         tuple(Response(s, f"{s}.", MODELS[s]) for s in SLOTS)) for n in range(28)])
        rotations = [SLOTS[i:] + SLOTS[:i] for i in range(4)]
        for n, item in enumerate(store.item_ids()):
            for r, rater in enumerate(RATERS):
                order = rotations[(n + r) % 4]
                [a] = store.add_assignments([Assignment(0, rater, item, n, order=tuple(order))])
                store.submit(Judgment(a.id, ">".join(order), T))  # whatever is shown first is ranked first
        data = build_report(spec, store, n_boot=50).data
    flagged = [b for b in data["summary"]["significant_biases"] if b["kind"] == "display_position"]
    assert [b["who"] for b in flagged] == ["position 1", "position 2", "position 3", "position 4"]
    assert flagged[0]["share"] == 1.0
    line = next(x for x in data["summary"]["lines"] if "display position" in x)
    assert line.startswith("Significant position bias by display position") and "position 1 ranked first in 100.0 %" \
        in line


def test_summary_says_when_no_display_position_is_favoured(ranked) -> None:
    spec, store, _ = ranked
    lines = build_report(spec, store, n_boot=20).data["summary"]["lines"]
    assert any(x.startswith("No significant position bias by display position") for x in lines)
