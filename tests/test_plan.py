"""The planner: balance, counterbalancing, quality items, determinism and extension.

Property tests draw sessions of 1..200 items, 2..8 annotators, overlap 1..min(annotators, 4) and
random gold / attention / repeat rates, and check every rule `annotate/plan/planner.py` states.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotate.model import Assignment, Judgment, Timings
from annotate.plan import (
    MIN_REPEAT_GAP,
    PLAN_INPUTS_KEY,
    PLAN_META_KEY,
    Plan,
    Rates,
    _targets,
    apply_plan,
    ensure_queue,
    make_plan,
    plan_digest,
    plan_table_values,
    rewrite_plan_table,
    verify_plan,
    write_plan_to_spec,
)
from annotate.session import create_session, open_store
from annotate.spec import load_spec
from annotate.status import session_status
from tests.conftest import make_item

NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]


@st.composite
def sessions(draw: st.DrawFn) -> dict:
    n_items = draw(st.integers(1, 200))
    n_people = draw(st.integers(2, 8))
    overlap = draw(st.integers(1, min(n_people, 4)))
    items = [f"item-{i:03d}" for i in range(n_items)]
    flags = draw(st.lists(st.sampled_from(["main", "gold", "attention"]), min_size=n_items, max_size=n_items))
    gold = [i for i, f in zip(items, flags, strict=True) if f == "gold"]
    attention = [i for i, f in zip(items, flags, strict=True) if f == "attention"]
    gold_rate = draw(st.sampled_from([0.0, 0.05, 0.1, 0.2])) if gold else 0.0
    attention_rate = draw(st.sampled_from([0.0, 0.03, 0.1])) if attention else 0.0
    repeat_rate = draw(st.sampled_from([0.0, 0.05, 0.1, 0.25]))
    main_pool = set(items) - set(attention) - (set(gold) if gold_rate > 0 else set())
    if not main_pool:
        gold_rate = 0.0
    return {
        "item_ids": items, "gold_ids": gold, "attention_ids": attention,
        "annotators": NAMES[:n_people], "overlap": overlap,
        "rates": Rates(gold_rate, attention_rate, repeat_rate),
        "seed": draw(st.integers(0, 2**31)),
    }


def by_annotator(assignments: tuple[Assignment, ...] | list[Assignment]) -> dict[str, list[Assignment]]:
    queues: dict[str, list[Assignment]] = defaultdict(list)
    for a in sorted(assignments, key=lambda a: (a.annotator, a.position)):
        queues[a.annotator].append(a)
    return queues


def side_balance(assignments: tuple[Assignment, ...]) -> tuple[dict[str, int], dict[str, int]]:
    """Swapped minus unswapped per annotator (all assignments) and per item (repeats left out)."""
    annotator: dict[str, int] = Counter()
    item: dict[str, int] = Counter()
    for a in assignments:
        sign = 1 if a.swapped else -1
        annotator[a.annotator] += sign
        if a.purpose != "repeat":
            item[a.item_id] += sign
    return annotator, item


def check_repeats(plan: Plan) -> None:
    for name, queue in by_annotator(plan.assignments).items():
        repeats = [a for a in queue if a.purpose == "repeat"]
        assert len({a.item_id for a in repeats}) == len(repeats), f"{name} has an item repeated twice"
        for repeat in repeats:
            first = [a for a in queue if a.item_id == repeat.item_id and a.purpose == "main"]
            assert len(first) == 1, f"{name}: repeat of {repeat.item_id} has no single first showing"
            assert repeat.position - first[0].position >= MIN_REPEAT_GAP
            assert repeat.swapped != first[0].swapped


def check_fresh_plan(plan: Plan, session: dict) -> None:
    rates: Rates = session["rates"]
    overlap = session["overlap"]
    attention = set(session["attention_ids"])
    gold = set(session["gold_ids"]) - attention
    main_pool = set(session["item_ids"]) - attention - (gold if rates.gold > 0 else set())
    queues = by_annotator(plan.assignments)
    assert plan.new == plan.assignments
    assert set(queues) <= set(session["annotators"])
    # every main item to exactly `overlap` different annotators, loads within one
    main = [a for a in plan.assignments if a.purpose == "main"]
    per_item = Counter(a.item_id for a in main)
    assert set(per_item) == main_pool
    assert set(per_item.values()) <= {overlap}
    assert len({(a.annotator, a.item_id) for a in main}) == len(main)
    loads = [sum(1 for a in queues.get(n, []) if a.purpose == "main") for n in session["annotators"]]
    assert max(loads) - min(loads) <= 1
    # sides within one per annotator (repeats included) and per item (across its annotators)
    per_annotator, per_item_side = side_balance(plan.assignments)
    assert all(abs(d) <= 1 for d in per_annotator.values()), per_annotator
    assert all(abs(d) <= 1 for d in per_item_side.values())
    # queues are 0..n-1, no item twice except as a repeat
    for name, queue in queues.items():
        assert [a.position for a in queue] == list(range(len(queue)))
        seen = [a.item_id for a in queue if a.purpose != "repeat"]
        assert len(seen) == len(set(seen)), name
    # quality items at their rates (capped by the pool) and from the right pools
    for name in session["annotators"]:
        queue = queues.get(name, [])
        counts = Counter(a.purpose for a in queue)
        targets = _targets(counts["main"], rates)
        assert counts["gold"] == min(targets["gold"], len(gold)) if rates.gold else counts["gold"] == 0
        assert counts["attention"] == min(targets["attention"], len(attention))
        assert counts["repeat"] <= targets["repeat"]
        assert {a.item_id for a in queue if a.purpose == "gold"} <= gold
        assert {a.item_id for a in queue if a.purpose == "attention"} <= attention
        if len(queue) >= 4 * MIN_REPEAT_GAP and targets["repeat"]:
            assert counts["repeat"] >= 1
    check_repeats(plan)
    assert not [n for n in plan.notes if "balanced" in n]


@settings(max_examples=150, deadline=None)
@given(sessions())
def test_fresh_plan_keeps_every_rule(session: dict) -> None:
    plan = make_plan(**session)
    check_fresh_plan(plan, session)


@pytest.mark.parametrize("seed", range(40))
def test_fresh_plan_rules_on_large_random_sessions(seed: int) -> None:
    """Hypothesis favours small sessions; these are drawn at full size (up to 200 items)."""
    rnd = random.Random(seed)
    n = rnd.randint(100, 200)
    items = [f"i{k:03d}" for k in range(n)]
    flags = [rnd.choice(["main"] * 6 + ["gold", "attention"]) for _ in items]
    people = rnd.randint(2, 8)
    session = {
        "item_ids": items,
        "gold_ids": [i for i, f in zip(items, flags, strict=True) if f == "gold"],
        "attention_ids": [i for i, f in zip(items, flags, strict=True) if f == "attention"],
        "annotators": NAMES[:people], "overlap": rnd.randint(1, min(people, 4)),
        "rates": Rates(rnd.choice([0.0, 0.1, 0.2]), rnd.choice([0.0, 0.05]), rnd.choice([0.0, 0.1, 0.25])),
        "seed": seed,
    }
    check_fresh_plan(make_plan(**session), session)


@settings(max_examples=60, deadline=None)
@given(sessions(), st.randoms(use_true_random=False))
def test_plan_is_a_pure_function_of_sets(session: dict, rnd: random.Random) -> None:
    plan = make_plan(**session)
    shuffled = dict(session)
    for key in ("item_ids", "gold_ids", "attention_ids", "annotators"):
        values = list(session[key])
        rnd.shuffle(values)
        shuffled[key] = values
    again = make_plan(**shuffled)
    assert again.assignments == plan.assignments
    assert again.hash == plan.hash
    assert plan_digest(plan.inputs, reversed(plan.assignments)) == plan.hash


def stored(plan: Plan, start_id: int = 1) -> list[Assignment]:
    """The plan's new assignments as the store would return them (with ids)."""
    return [replace(a, id=start_id + k) for k, a in enumerate(plan.new)]


@st.composite
def extensions(draw: st.DrawFn) -> tuple[dict, dict]:
    later = draw(sessions())
    items = later["item_ids"]
    keep = draw(st.integers(1, len(items)))
    people = later["annotators"]
    first_people = people[: draw(st.integers(max(2, later["overlap"] if later["overlap"] <= 2 else 2), len(people)))]
    first_overlap = draw(st.integers(1, min(later["overlap"], len(first_people))))
    earlier = dict(later, item_ids=items[:keep], annotators=first_people, overlap=first_overlap)
    earlier["gold_ids"] = [i for i in later["gold_ids"] if i in set(items[:keep])]
    earlier["attention_ids"] = [i for i in later["attention_ids"] if i in set(items[:keep])]
    rates = later["rates"]
    earlier["rates"] = Rates(
        rates.gold if earlier["gold_ids"] else 0.0, rates.attention if earlier["attention_ids"] else 0.0,
        rates.repeat,
    )
    main_pool = set(earlier["item_ids"]) - set(earlier["attention_ids"])
    if earlier["rates"].gold > 0 and not main_pool - set(earlier["gold_ids"]):
        earlier["rates"] = replace(earlier["rates"], gold=0.0)
    return earlier, later


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extensions())
def test_extension_keeps_every_existing_assignment(pair: tuple[dict, dict]) -> None:
    earlier, later = pair
    first = make_plan(**earlier)
    existing = stored(first)
    second = make_plan(**later, existing=existing)
    # nothing existing moved or changed, and new assignments come after each queue's end
    assert set(existing) <= set(second.assignments)
    assert len(second.assignments) == len(existing) + len(second.new)
    ends = {n: max(a.position for a in q) for n, q in by_annotator(existing).items()}
    for name, queue in by_annotator(second.new).items():
        positions = [a.position for a in queue]
        assert positions == list(range(ends.get(name, -1) + 1, ends.get(name, -1) + 1 + len(queue)))
    # every main item reaches the later overlap (the earlier main pool may be wider, never narrower)
    main = Counter(a.item_id for a in second.assignments if a.purpose == "main")
    attention = set(later["attention_ids"])
    gold = set(later["gold_ids"]) - attention
    pool = set(later["item_ids"]) - attention - (gold if later["rates"].gold > 0 else set())
    assert all(main[i] >= later["overlap"] for i in pool)
    check_repeats(second)
    # sides: balanced within one, or the plan says where the fixed assignments made it impossible
    per_annotator, per_item = side_balance(second.assignments)
    off = [k for k, d in (*per_annotator.items(), *per_item.items()) if abs(d) > 1]
    assert not off or any("balanced" in n for n in second.notes)
    # extending again with the same inputs adds nothing and keeps the hash
    third = make_plan(**later, existing=[*existing, *stored(second, start_id=len(existing) + 1)])
    assert third.new == ()
    assert third.hash == second.hash


@settings(max_examples=60, deadline=None)
@given(sessions(), st.integers(1, 40))
def test_adding_items_to_the_same_team_stays_balanced(session: dict, extra: int) -> None:
    first = make_plan(**session)
    more = dict(session, item_ids=[*session["item_ids"], *(f"new-{k:02d}" for k in range(extra))])
    second = make_plan(**more, existing=stored(first))
    check_repeats(second)
    per_annotator, per_item = side_balance(second.assignments)
    new_items = {a.item_id for a in second.new} - set(session["item_ids"])
    assert all(abs(per_item[i]) <= 1 for i in new_items)
    off = [k for k, d in (*per_annotator.items(), *per_item.items()) if abs(d) > 1]
    assert not off or any("balanced" in n for n in second.notes)
    loads = Counter(a.annotator for a in second.assignments if a.purpose == "main")
    assert max(loads.values()) - min(loads.values()) <= 1


def test_known_session_three_annotators_overlap_two_gold_ten_percent() -> None:
    items = [f"q{i:02d}" for i in range(46)]
    plan = make_plan(items, items[:7], [], ["alice", "bob", "carol"], 2, Rates(gold=0.1), seed=7)
    counts = Counter((a.annotator, a.purpose) for a in plan.assignments)
    assert counts == {(n, p): c for n in ("alice", "bob", "carol") for p, c in (("main", 26), ("gold", 3))}
    assert plan.hash == make_plan(items, items[:7], [], ["alice", "bob", "carol"], 2, Rates(gold=0.1), seed=7).hash
    assert plan.hash != make_plan(items, items[:7], [], ["alice", "bob", "carol"], 2, Rates(gold=0.1), seed=8).hash


def test_single_response_tasks_are_never_swapped() -> None:
    items = [f"q{i:02d}" for i in range(30)]
    plan = make_plan(items, [], [], ["a", "b"], 2, Rates(repeat=0.1), 1, pairwise=False)
    assert not any(a.swapped for a in plan.assignments)
    assert any(a.purpose == "repeat" for a in plan.assignments)
    check_repeats(replace(plan, assignments=tuple(
        replace(a, swapped=a.purpose == "repeat") for a in plan.assignments
    )))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rates": Rates(gold=0.1)}, "no gold" if False else "needs gold items"),
        ({"rates": Rates(attention=0.1)}, "needs attention checks"),
        ({"overlap": 3}, "needs at least 3 annotators"),
        ({"annotators": []}, "no annotators"),
        ({"annotators": ["a", "a"]}, "named twice"),
        ({"annotators": ["a", "b c"]}, "annotator name"),
        ({"rates": Rates(repeat=0.5, gold=0.0, attention=0.0), "overlap": 0}, "overlap must be"),
        ({"rates": Rates(repeat=0.6, gold=0.0, attention=0.0), "gold_ids": ["q1"]}, None),
        ({"rates": Rates(repeat=0.6, gold=0.5), "gold_ids": ["q1"]}, "add up to 1"),
        ({"gold_ids": ["nope"]}, "not items"),
    ],
)
def test_inputs_that_cannot_be_planned_are_refused(kwargs: dict, message: str | None) -> None:
    base = {
        "item_ids": [f"q{i}" for i in range(20)], "gold_ids": [], "attention_ids": [],
        "annotators": ["a", "b"], "overlap": 2, "rates": Rates(), "seed": 1,
    }
    if message is None:
        make_plan(**{**base, **kwargs})
        return
    with pytest.raises(ValueError, match=message):
        make_plan(**{**base, **kwargs})


def test_all_gold_items_at_a_gold_rate_is_refused_with_advice() -> None:
    items = [f"q{i}" for i in range(5)]
    with pytest.raises(ValueError, match="--gold-rate 0"):
        make_plan(items, items, [], ["a", "b"], 2, Rates(gold=0.1), 1)


# -- the store-facing part -------------------------------------------------------------------------


def _timings() -> Timings:
    return Timings(shown_at="2025-01-01T00:00:00+00:00", first_input_ms=100, submit_ms=900, active_ms=800)


def _session(tmp_path: Path, n: int = 30, gold: int = 6):
    spec = create_session("team", "pairwise", seed=11, folder=tmp_path / "sessions")
    store = open_store(spec)
    store.add_items([make_item(f"q{i:02d}", gold="A" if i < gold else None) for i in range(n)])
    return spec, store


def test_apply_plan_stores_assignments_hash_and_inputs(tmp_path: Path) -> None:
    spec, store = _session(tmp_path)
    with store:
        applied = apply_plan(store, spec, ["alice", "bob", "carol"], 2, Rates(gold=0.1), 11)
        assert applied.added and applied.previous_hash is None
        assert store.get_meta(PLAN_META_KEY) == applied.plan.hash
        assert '"overlap":2' in (store.get_meta(PLAN_INPUTS_KEY) or "")
        assert sorted((a.annotator, a.item_id, a.position) for a in store.assignments()) == sorted(
            (a.annotator, a.item_id, a.position) for a in applied.plan.assignments
        )
        assert verify_plan(store) is True
        again = apply_plan(store, spec, ["carol", "bob", "alice"], 2, Rates(gold=0.1), 11)
        assert again.unchanged and again.plan.hash == applied.plan.hash
        assert "plan" in session_status(spec, store) and applied.plan.hash in session_status(spec, store)
        # ensure_queue serves the plan and gives nobody outside it a queue
        assert ensure_queue(store, spec, "alice") == store.assignments("alice")
        assert ensure_queue(store, spec, "mallory") == []


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    spec, store = _session(tmp_path)
    with store:
        applied = apply_plan(store, spec, ["alice", "bob"], 2, Rates(), 11, dry_run=True)
        assert applied.plan.new and not applied.added
        assert store.assignments() == [] and store.get_meta(PLAN_META_KEY) is None


def test_first_plan_keeps_judged_default_queue_items_and_drops_the_rest(tmp_path: Path) -> None:
    spec, store = _session(tmp_path, gold=0)
    with store:
        queue = ensure_queue(store, spec, "alice")
        judged = queue[:3]
        for a in judged:
            store.submit(Judgment(a.id, "A", _timings()))
        applied = apply_plan(store, spec, ["alice", "bob"], 1, Rates(), 11)
        assert len(applied.dropped) == len(queue) - 3
        mine = store.assignments("alice")
        assert [a for a in mine if a.id in {j.id for j in judged}] == judged
        main = Counter(a.item_id for a in store.assignments() if a.purpose == "main")
        assert set(main.values()) == {1} and len(main) == 30
        assert verify_plan(store) is True


def test_extension_after_judging_moves_nothing(tmp_path: Path) -> None:
    spec, store = _session(tmp_path)
    with store:
        apply_plan(store, spec, ["alice", "bob", "carol"], 2, Rates(gold=0.1), 11)
        before = store.assignments()
        for a in before[:10]:
            store.submit(Judgment(a.id, "B", _timings()))
        store.add_items([make_item(f"n{i:02d}") for i in range(12)])
        applied = apply_plan(store, spec, ["alice", "bob", "carol", "dave"], 2, Rates(gold=0.1), 11)
        after = {a.id: a for a in store.assignments()}
        assert all(after[a.id] == a for a in before)
        assert {a.item_id for a in applied.added if a.purpose == "main"} == {f"n{i:02d}" for i in range(12)}
        assert applied.previous_hash != applied.plan.hash == store.get_meta(PLAN_META_KEY)
        assert len(store.judgments()) == 10


def test_spec_plan_table_is_rewritten_and_comments_kept(tmp_path: Path) -> None:
    spec = create_session("team", "pairwise", seed=1, folder=tmp_path / "sessions")
    text = spec.path.read_text()
    values = plan_table_values(["alice", "bob"], 2, Rates(gold=0.1))
    write_plan_to_spec(spec.path, values)
    updated = spec.path.read_text()
    assert "# annotate session spec" in updated and "# filled by `annotate plan`" in updated
    assert "[experiment]" in updated and updated.count("[plan]") == 1
    loaded = load_spec(spec.path)
    assert loaded.plan.annotators == ("alice", "bob") and loaded.plan.overlap == 2
    assert loaded.plan.gold_rate == 0.1
    assert len(updated.splitlines()) == len(text.splitlines()) + 3


def test_rewrite_plan_table_handles_multiline_arrays_comments_and_a_missing_table() -> None:
    text = (
        "[session]\nkind = 'pairwise'  # keep me\n\n[plan]\nannotators = [\n  \"x\",  # one\n  \"y\",\n]\n"
        "overlap = 1  # how many\n\n[experiment]\nmodes = [\"none\"]\n"
    )
    out = rewrite_plan_table(text, {"annotators": ["a", "b"], "overlap": 2, "gold_rate": 0.1})
    assert out == (
        "[session]\nkind = 'pairwise'  # keep me\n\n[plan]\nannotators = [\"a\", \"b\"]\n"
        "overlap = 2  # how many\ngold_rate = 0.1\n\n[experiment]\nmodes = [\"none\"]\n"
    )
    bare = rewrite_plan_table("[session]\nkind = 'single'\n", {"overlap": 3})
    assert bare == "[session]\nkind = 'single'\n\n[plan]\noverlap = 3\n"


# -- the command line: notes and the spec file ------------------------------------------------------


def _cli_session(project: Path, n: int = 10) -> Path:
    from click.testing import CliRunner

    from annotate.cli import main

    spec = create_session("evals", "pairwise", seed=5, folder=project / "sessions")
    with open_store(spec) as store:
        store.add_items([make_item(f"v{i}") for i in range(n)])
    planned = CliRunner().invoke(main, ["plan", "evals", "--annotators", "alice,bob,carol", "--overlap", "2"])
    assert planned.exit_code == 0, planned.output
    return spec.path


def test_an_annotator_left_without_items_is_named_with_the_reason(project: Path) -> None:
    from click.testing import CliRunner

    from annotate.cli import main

    _cli_session(project)
    result = CliRunner().invoke(main, ["plan", "evals", "--annotators", "alice,bob,carol,erin", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "erin   main 0" in result.stdout
    assert (
        "note: erin gets no items: every item already has its 2 annotators; raise --overlap (to 3 or more)"
        " or import more items to give erin work"
    ) in result.stderr
    both = CliRunner().invoke(main, ["plan", "evals", "--annotators", "alice,bob,carol,erin,frank", "--dry-run"])
    assert "note: erin and frank get no items" in both.stderr and "to give them work" in both.stderr
    raised = CliRunner().invoke(main, ["plan", "evals", "--annotators", "alice,bob,carol,erin", "--overlap", "3",
                                       "--dry-run"])
    assert raised.exit_code == 0 and "gets no items" not in raised.output


def test_plan_says_so_when_nobody_gets_anything(project: Path) -> None:
    plan = make_plan([], [], [], ["alice", "bob"], 2, Rates(), 1)
    assert plan.notes == ("alice and bob get no items: the session has no items to plan as main work;"
                          " import items to give them work",)


def test_an_unchanged_plan_says_so_and_leaves_the_spec_alone(project: Path) -> None:
    from click.testing import CliRunner

    from annotate.cli import main

    spec_path = _cli_session(project)
    spec_path.write_text(spec_path.read_text().replace("overlap = 2", "overlap = 2   # hand-aligned comment"))
    before = spec_path.read_bytes()
    stamp = spec_path.stat().st_mtime_ns
    for args in (["plan", "evals"], ["plan", "evals", "--annotators", "carol,alice,bob", "--overlap", "2"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert result.output.startswith("plan unchanged (hash ")
        assert "spec:" not in result.output
        assert spec_path.read_bytes() == before and spec_path.stat().st_mtime_ns == stamp
    # a plan that does change still updates the spec
    changed = CliRunner().invoke(main, ["plan", "evals", "--overlap", "3"])
    assert changed.exit_code == 0 and "(extended, 10 assignments added)" in changed.output
    assert "spec: [plan] in" in changed.output and load_spec(spec_path).plan.overlap == 3
