"""MT-Bench agreement per turn, as in the paper's table, from one session holding both turns.

The expected figures come from an independent count written here from the definition (Zheng et al.
2023, section 4.2): per turn, every (GPT-4 vote, expert vote) pair on one (question, model pair) and
every pair of two experts' votes; ties are one answer; without ties, pairs where either is a tie are
dropped.  Authors (author_N) are their own cohort and are not "human" unless asked.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from annotate.formats import import_items
from annotate.report.build import build_report
from annotate.session import create_session, open_store

MODELS = ("alpaca-13b", "gpt-3.5-turbo", "vicuna-13b", "llama-13b")
WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "mt_bench_human_judgments.jsonl"


def conversation(qid: int, model: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"question {qid}"}, {"role": "assistant", "content": f"{model} one {qid}"},
            {"role": "user", "content": f"follow-up {qid}"}, {"role": "assistant", "content": f"{model} two {qid}"}]


def records(seed: int = 5) -> list[dict]:
    """Judgments on 12 questions x 3 model pairs x 2 turns by 6 experts, 2 authors and GPT-4."""
    rng = np.random.default_rng(seed)
    out = []
    for qid in range(81, 93):
        for a, b in ((0, 1), (1, 2), (0, 3)):
            for turn in (1, 2):
                truth = rng.integers(0, 3)
                judges = [f"expert_{k}" for k in rng.choice(6, size=rng.integers(1, 4), replace=False)]
                judges += [f"author_{k}" for k in range(rng.integers(0, 3))]
                for judge in [*judges, ["gpt-4", "pair-v2" if turn == 1 else "pair-v2-multi-turn"]]:
                    vote = truth if rng.random() < 0.6 else rng.integers(0, 4)
                    winner = WINNERS[vote] if judge[0] != "gpt-4" or vote != 3 else "tie (inconsistent)"
                    flip = rng.random() < 0.5  # records list the models either way round
                    m1, m2 = (MODELS[b], MODELS[a]) if flip else (MODELS[a], MODELS[b])
                    if flip:
                        winner = {"model_a": "model_b", "model_b": "model_a"}.get(winner, winner)
                    out.append({"question_id": qid, "model_a": m1, "model_b": m2, "winner": winner, "judge": judge,
                                "turn": turn, "conversation_a": conversation(qid, m1),
                                "conversation_b": conversation(qid, m2)})
    return out


def expected(rows: list[dict], humans: tuple[str, ...] = ("expert",)) -> dict[tuple[str, str], tuple[float, float]]:
    """(comparison, turn) -> (agreement with ties, without ties), counted pair by pair."""
    def canonical(r: dict) -> tuple[tuple, str]:
        key = (r["question_id"], *sorted((r["model_a"], r["model_b"])), r["turn"])
        winner = r["winner"]
        if r["model_a"] > r["model_b"]:
            winner = {"model_a": "model_b", "model_b": "model_a"}.get(winner, winner)
        return key, "tie" if "tie" in winner else winner

    gpt: dict[tuple, str] = {}
    human: dict[tuple, list[str]] = {}
    for r in rows:
        key, vote = canonical(r)
        if isinstance(r["judge"], list):
            gpt[key] = vote
        elif r["judge"].split("_")[0] in humans:
            human.setdefault(key, []).append(vote)
    out = {}
    for turn in ("1", "2", "all"):
        keep = [k for k in human if turn == "all" or str(k[-1]) == turn]
        judge_pairs = [(gpt[k], v) for k in keep if k in gpt for v in human[k]]
        human_pairs = [p for k in keep for p in combinations(human[k], 2)]
        for name, pairs in (("judge", judge_pairs), ("human", human_pairs)):
            with_ties = np.mean([x == y for x, y in pairs])
            decisive = [(x, y) for x, y in pairs if "tie" not in (x, y)]
            without = np.mean([x == y for x, y in decisive])
            out[(name, turn)] = (with_ties, without)
    return out


def report_for(project: Path, rows: list[dict], **options):
    path = project / "mt.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    spec = create_session("mt", "pairwise", seed=1, folder=project / "sessions")
    with open_store(spec) as store:
        import_items(store, spec.schema, path, format="mtbench")
        return build_report(spec, store, n_boot=100, seed=1, **options)


def per_turn(report) -> dict[tuple[str, str], tuple[float, float]]:
    return {(r["comparison"], r["turn"]): (r["with_ties"]["estimate"], r["without_ties"]["estimate"])
            for r in report.data["pairwise"]["per_turn"]}


def test_per_turn_agreement_matches_an_independent_count(project: Path) -> None:
    rows = records()
    report = report_for(project, rows)
    got, want = per_turn(report), expected(rows)
    assert set(got) == set(want)
    for key, (with_ties, without) in want.items():
        assert got[key][0] == pytest.approx(with_ties), key
        assert got[key][1] == pytest.approx(without), key
    assert report.data["session"]["raters_per_cohort"]["author"] >= 1  # authors are their own cohort
    judges = {r["judge"] for r in report.data["pairwise"]["per_turn"] if r["comparison"] == "judge"}
    assert judges == {"gpt-4"}


def test_human_cohorts_of_the_per_turn_table_are_an_option(project: Path) -> None:
    rows = records()
    report = report_for(project, rows, mtbench_human=("expert", "author"))
    got, want = per_turn(report), expected(rows, humans=("expert", "author"))
    for key, (with_ties, _) in want.items():
        assert got[key][0] == pytest.approx(with_ties), key
    assert report.data["pairwise"]["mtbench_human"] == ["expert", "author"]


@pytest.mark.skipif(not SHARED.exists(), reason="MT-Bench human judgments (mt_bench_human_judgments.jsonl) absent")
def test_real_mt_bench_judgments_give_the_papers_first_turn_figures(project: Path) -> None:
    """Zheng et al. 2023, agreement table, first turn: GPT-4 (pair) vs human 66 % with ties, 85 % without;
    human vs human 63 % and 81 % (human = the experts)."""
    rows = [json.loads(line) for line in SHARED.read_text(encoding="utf-8").splitlines() if line.strip()]
    got = per_turn(report_for(project, rows))
    assert round(100 * got[("judge", "1")][0]) == 66 and round(100 * got[("judge", "1")][1]) == 85
    assert round(100 * got[("human", "1")][0]) == 63 and round(100 * got[("human", "1")][1]) == 81
