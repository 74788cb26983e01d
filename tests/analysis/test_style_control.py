"""Style control: feature counts by hand, the plain fit against the plain ranking, the controlled fit
against a dense IRLS written out here, and recovery of a planted length effect on simulated battles."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from annotate import style_features as style
from annotate.analysis.ranking import rank_models
from annotate.analysis.style import count_features, count_tokens, features_of_texts, normalised_difference
from annotate.analysis.style_control import (
    fit_style_control,
    style_control,
    style_design,
    style_design_from_arrays,
)

SCALE = 400 / math.log(10)


def test_tokens_and_markdown_counted_by_hand() -> None:
    assert count_tokens("Hello, world!") == 4
    assert count_tokens("Wait... **really**?") == 6  # Wait ... ** really ** ?
    text = "## Plan\n\n1. **First** step\n2. Second\n   - nested __point__\n\nNot a # header\n#nospace"
    assert count_features(text)[1:] == (1, 3, 2)
    fenced = "Intro\n```python\n# a comment, not a header\n- not a list\n**not bold**\n```\n- real item"
    assert count_features(fenced)[1:] == (0, 1, 0)
    assert count_features("")[0] == 0


@pytest.mark.parametrize("batch_chars", [1, 40, 1 << 23])
def test_counts_of_many_texts_at_once_equal_the_counts_of_each(batch_chars: int, monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """The batched count (character classes in numpy, patterns over joined texts) gives each text's own
    counts: texts that start or end with a header, list item or bold span, lone surrogates, NUL,
    combining marks and non-Latin digits, wide spaces, unclosed fences, and every batch size."""
    import random

    rng = random.Random(4)
    pieces = [*"ab _-*+#.\n\n\t`1", "é", "中", "\u00a0", "\u2003", "!", "?", "**", "__", "```", "# ", "- ", "12. ",
              "\ud800", "\x00", "\u0301", "٣", "\r\n", "\x0b", "\x1c"]
    texts = ["", "Hello, world!", "# T\n\n- **one**\n- two\n\n```\n# not\n```", "a\n```py\nx```\n# h\n", "***",
             "#\n# b\n", *("".join(rng.choice(pieces) for _ in range(rng.randint(0, 60))) for _ in range(3000))]
    monkeypatch.setattr(style, "_BATCH_CHARS", batch_chars)
    assert [tuple(row) for row in features_of_texts(texts).tolist()] == [count_features(t) for t in texts]
    assert features_of_texts([]).shape == (0, 4)


def test_normalised_difference_is_zero_when_both_sides_lack_the_feature() -> None:
    d = normalised_difference([[30, 0, 1], [0, 0, 0]], [[10, 0, 3], [5, 0, 0]])
    assert d.tolist() == [[0.5, 0.0, -0.5], [-1.0, 0.0, 0.0]]
    with pytest.raises(ValueError, match="non-negative"):
        normalised_difference([[-1]], [[1]])


def random_battles(rng: np.random.Generator, k: int, n_items: int, gamma: float = 0.0,
                   votes_per_item: int = 1) -> tuple[list[str], dict[str, np.ndarray], np.ndarray]:
    """Items between k models whose true log-strengths fall from 0.8 to -0.8 while their answers get
    longer (the weakest model writes about 4x the strongest's length); every vote follows
    P(A wins) = logistic(theta_a - theta_b + gamma * d), d the normalised length difference."""
    theta = np.linspace(0.8, -0.8, k)
    verbose = np.geomspace(100, 400, k)
    a = rng.integers(0, k, n_items)
    b = (a + rng.integers(1, k, n_items)) % k
    length_a = rng.lognormal(np.log(verbose[a]), 0.3)
    length_b = rng.lognormal(np.log(verbose[b]), 0.3)
    d = (length_a - length_b) / (length_a + length_b)
    p = 1 / (1 + np.exp(-(theta[a] - theta[b] + gamma * d)))
    wins_a = rng.binomial(votes_per_item, p)
    votes = np.column_stack([wins_a, votes_per_item - wins_a, np.zeros(n_items)])
    headers_a, headers_b = rng.integers(0, 3, n_items), rng.integers(0, 3, n_items)
    zeros = np.zeros(n_items)
    return ([f"m{i}" for i in range(k)],
            {"a": a, "b": b, "counts_a": np.column_stack([length_a, headers_a, zeros, zeros]),
             "counts_b": np.column_stack([length_b, headers_b, zeros, zeros])}, votes)


def test_plain_fit_is_the_plain_bradley_terry_ranking() -> None:
    """The plain side is fitted on per-pair sums here and on aggregated counts in `ranking`: same ratings."""
    rng = np.random.default_rng(3)
    models, arrays, votes = random_battles(rng, 5, 600)
    votes[:50, 2], votes[:50, :2] = 1, 0  # some ties
    design = style_design_from_arrays(models, arrays["a"], arrays["b"], arrays["counts_a"], arrays["counts_b"], votes)
    result = fit_style_control(design, n_boot=0)
    winner = np.array(["model_a", "model_b", "tie"])[votes.argmax(axis=1)]
    names = np.array(models)
    battles = pd.DataFrame({"model_a": names[arrays["a"]], "model_b": names[arrays["b"]], "winner": winner})
    plain = {r.model: r.rating for r in rank_models(battles, n_boot=0)}
    for row in result.rows:
        assert row.plain_rating == pytest.approx(plain[row.model], abs=1e-6)


def dense_irls(design, ridge: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """The controlled fit written out densely: logistic regression on [+1/-1 model columns, features
    / sd], votes as binomial counts (ties half), ridge on every coefficient, strengths centred."""
    k, r = len(design.models), design.n_items
    n = design.votes.sum(axis=1)
    s = design.votes[:, 0] + 0.5 * design.votes[:, 2]
    mean = (design.features * n[:, None]).sum(0) / n.sum()
    sd = np.sqrt((((design.features - mean) ** 2) * n[:, None]).sum(0) / n.sum())
    keep = sd > 0
    x = np.zeros((r, k + int(keep.sum())))
    x[np.arange(r), design.model_a] = 1.0
    x[np.arange(r), design.model_b] = -1.0
    x[:, k:] = design.features[:, keep] / sd[keep]
    w = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (s - n * p) - ridge * w
        hess = (x * (n * p * (1 - p))[:, None]).T @ x + ridge * np.eye(x.shape[1])
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        w = w + step
        if np.abs(step).max() < 1e-12:
            break
    theta = w[:k] - w[:k].mean()
    return 1000 + SCALE * theta, w[k:]


def test_controlled_fit_matches_a_dense_irls() -> None:
    rng = np.random.default_rng(5)
    models, arrays, votes = random_battles(rng, 4, 400, gamma=2.0, votes_per_item=3)
    design = style_design_from_arrays(models, arrays["a"], arrays["b"], arrays["counts_a"], arrays["counts_b"], votes)
    result = fit_style_control(design, n_boot=0)
    ratings, beta = dense_irls(design)
    got = {r.model: r.rating for r in result.rows}
    for m, rating in zip(design.models, ratings, strict=True):
        assert got[m] == pytest.approx(rating, abs=1e-4)
    estimated = [c.estimate for c in result.coefficients if c.reason is None]
    assert estimated == pytest.approx(list(beta), abs=1e-7)


def test_planted_length_effect_is_recovered() -> None:
    """Weaker models write longer answers and voters favour length (gamma = 3 per unit of the
    normalised difference): the plain ranking is fooled, the controlled one recovers the true order
    and a length coefficient whose interval holds the planted value; headers have no effect."""
    rng = np.random.default_rng(11)
    models, arrays, votes = random_battles(rng, 6, 3000, gamma=3.0)
    design = style_design_from_arrays(models, arrays["a"], arrays["b"], arrays["counts_a"], arrays["counts_b"], votes)
    result = fit_style_control(design, n_boot=300, seed=1)
    true_order = [f"m{i}" for i in range(6)]
    plain_order = [r.model for r in sorted(result.rows, key=lambda r: -r.plain_rating)]
    controlled_order = [r.model for r in result.rows]
    assert plain_order != true_order
    assert plain_order[0] != "m0"  # the strongest, tersest model is not first without control
    assert controlled_order == true_order
    length = result.coefficients[0]
    assert length.feature == "tokens"
    assert length.ci_low / length.scale < 3.0 < length.ci_high / length.scale
    headers = result.coefficients[1]
    assert headers.ci_low < 0 < headers.ci_high
    by = {r.model: r for r in result.rows}
    assert by["m0"].rank_change > 0 and by["m5"].rank_change < 0  # the terse strong model rises, the verbose falls
    assert all(r.position == i for i, r in enumerate(result.rows, start=1))


def test_intervals_resample_items_not_votes() -> None:
    """Five identical votes on each item are one cluster: the same point estimates as five separate
    items each, but wider intervals (about sqrt(5) times)."""
    rng = np.random.default_rng(2)
    models, arrays, votes = random_battles(rng, 4, 300, gamma=2.0)
    clustered = style_design_from_arrays(models, arrays["a"], arrays["b"], arrays["counts_a"], arrays["counts_b"],
                                         votes * 5)
    spread = {key: np.repeat(value, 5, axis=0) for key, value in arrays.items()}
    separate = style_design_from_arrays(models, spread["a"], spread["b"], spread["counts_a"], spread["counts_b"],
                                        np.repeat(votes, 5, axis=0))
    one = fit_style_control(clustered, n_boot=200, seed=0)
    five = fit_style_control(separate, n_boot=200, seed=0)
    for r1, r5 in zip(one.rows, five.rows, strict=True):
        assert r1.rating == pytest.approx(r5.rating, abs=1e-6)
    width = lambda rows: np.mean([r.ci[1] - r.ci[0] for r in rows])  # noqa: E731
    assert 1.7 < width(one.rows) / width(five.rows) < 2.8
    c1, c5 = one.coefficients[0], five.coefficients[0]
    assert 1.7 < (c1.ci_high - c1.ci_low) / (c5.ci_high - c5.ci_low) < 2.8


def test_frames_drop_battles_without_texts_and_say_how_many() -> None:
    battles = pd.DataFrame({
        "item": ["i1", "i1", "i2", "i3", "i4"],
        "model_a": ["x", "x", "y", "x", "x"], "model_b": ["y", "y", "x", "y", "y"],
        "winner": ["model_a", "tie", "model_b", "both_bad", "model_a"],
    })
    counts = pd.DataFrame({
        "item": ["i1", "i2", "i3"],
        "tokens_a": [30, 10, 20], "headers_a": [1, 0, 0], "list_items_a": [0, 0, 0], "bold_a": [0, 0, 0],
        "tokens_b": [10, 10, 20], "headers_b": [0, 0, 0], "list_items_b": [0, 0, 0], "bold_b": [0, 0, 0],
    })
    design, dropped = style_design(battles, counts)
    assert dropped == 1  # i4 has no stored answers
    assert design.models == ("x", "y")
    assert list(design.items) == ["i1", "i2", "i3"]
    assert design.votes.tolist() == [[1, 0, 1], [0, 1, 0], [0, 0, 1]]
    assert design.features[:, 0].tolist() == [0.5, 0.0, 0.0]
    result, _ = style_control(battles, counts, n_boot=20)
    assert {r.model for r in result.rows} == {"x", "y"}
    lists = result.coefficients[2]
    assert lists.reason == "not enough data (n = 4 battles: no answer has it)"
    assert json.loads(json.dumps(result.to_json(), allow_nan=False))["coefficients"][2]["estimate"] is None


def test_too_little_data_gives_a_reason_never_nan() -> None:
    empty = style_design_from_arrays([], [], [], np.zeros((0, 4)), np.zeros((0, 4)), np.zeros((0, 3)))
    result = fit_style_control(empty, n_boot=10)
    assert result.reason == "not enough data (n = 0 items: no battle with both answers stored)"
    assert result.rows == ()
    one_item = style_design_from_arrays(["x", "y"], [0], [1], [[10, 0, 0, 0]], [[20, 0, 0, 0]], [[1, 1, 0]])
    result = fit_style_control(one_item, n_boot=10)
    assert result.interval_reason == "not enough data (n = 1 item: nothing to resample)"
    assert result.coefficients[0].reason == "not enough data (n = 2 battles: the same in every battle)"
    assert [r.rating for r in result.rows] == pytest.approx([1000.0, 1000.0])
    text = json.dumps(result.to_json(), allow_nan=False)  # no NaN anywhere in the JSON
    assert "NaN" not in text


def test_disconnected_models_are_noted() -> None:
    design = style_design_from_arrays(["a", "b", "c", "d"], [0, 0, 2, 2], [1, 1, 3, 3],
                                      [[10, 0, 0, 0], [30, 0, 0, 0], [10, 0, 0, 0], [40, 0, 0, 0]],
                                      [[20, 0, 0, 0], [10, 0, 0, 0], [20, 0, 0, 0], [10, 0, 0, 0]],
                                      [[1, 1, 0], [2, 0, 0], [1, 0, 0], [0, 1, 1]])
    result = fit_style_control(design, n_boot=0)
    assert {r.component for r in result.rows} == {1, 2}
    assert any("NOT ONE SCALE" in n for n in result.notes)


def test_features_that_move_together_are_not_split() -> None:
    """Bold spans always equal list items here: only the first is fitted, the other says why."""
    rng = np.random.default_rng(9)
    models, arrays, votes = random_battles(rng, 4, 400, gamma=2.0)
    lists_a, lists_b = rng.integers(0, 4, 400), rng.integers(0, 4, 400)
    arrays["counts_a"][:, 2] = arrays["counts_a"][:, 3] = lists_a
    arrays["counts_b"][:, 2] = arrays["counts_b"][:, 3] = lists_b
    design = style_design_from_arrays(models, arrays["a"], arrays["b"], arrays["counts_a"], arrays["counts_b"], votes)
    result = fit_style_control(design, n_boot=0)
    lists, bold = result.coefficients[2], result.coefficients[3]
    assert lists.reason is None and math.isfinite(lists.estimate)
    assert bold.reason == "not enough data (n = 400 battles: moves with list_items)"
    assert math.isnan(bold.estimate)
    reduced = fit_style_control(style_design_from_arrays(models, arrays["a"], arrays["b"], arrays["counts_a"][:, :3],
                                                         arrays["counts_b"][:, :3], votes,
                                                         ("tokens", "headers", "list_items")), n_boot=0)
    assert lists.estimate == pytest.approx(reduced.coefficients[2].estimate)


def test_design_does_not_depend_on_the_order_of_the_battles() -> None:
    """Battles in any order give the same design: one row per item sorted by id, each with its own
    models, counts and votes (the rows are built from integer codes, so a misaligned code would show)."""
    rng = np.random.default_rng(8)
    n_items = 300
    ids = np.array([f"q{i:03d}" for i in range(n_items)], dtype=object)
    a = rng.integers(0, 4, n_items)
    b = (a + rng.integers(1, 4, n_items)) % 4
    names = np.array(["w", "x", "y", "z"])
    per_item = rng.integers(1, 6, n_items)
    item = np.repeat(np.arange(n_items), per_item)
    winner = np.array(["model_a", "model_b", "tie"])[rng.integers(0, 3, item.size)]
    battles = pd.DataFrame({"item": ids[item], "model_a": names[a[item]], "model_b": names[b[item]],
                            "winner": winner})
    counts = pd.DataFrame({"item": ids, **{f"{f}_{side}": rng.integers(0, 9, n_items)
                                           for side in "ab" for f in ("tokens", "headers", "list_items", "bold")}})
    design, _ = style_design(battles, counts)
    shuffled, _ = style_design(battles.sample(frac=1.0, random_state=3), counts.sample(frac=1.0, random_state=4))
    assert list(design.items) == list(ids)
    assert [design.models[m] for m in design.model_a] == list(names[a])
    expected = np.zeros((n_items, 3))
    np.add.at(expected, (item, pd.Series(winner).map({"model_a": 0, "model_b": 1, "tie": 2}).to_numpy()), 1)
    assert design.votes.tolist() == expected.tolist()
    assert design.features[:, 0].tolist() == normalised_difference(counts[["tokens_a"]].to_numpy(),
                                                                   counts[["tokens_b"]].to_numpy())[:, 0].tolist()
    for key in ("model_a", "model_b", "features", "votes", "items"):
        assert np.array_equal(getattr(design, key), getattr(shuffled, key)), key
