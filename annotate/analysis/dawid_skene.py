"""Dawid-Skene: each annotator's confusion matrix and each item's label, estimated together by EM.

Model (Dawid & Skene 1979, "Maximum likelihood estimation of observer error-rates using the EM
algorithm", Applied Statistics 28(1), 20-28, section 2): item i has an unknown true class c with
prior probability p_c; annotator j, given true class c, answers l with probability pi_j[c, l]
(the row c of j's confusion matrix), independently of the other annotators and of their own other
answers.  An annotator may answer an item several times (the paper's first observer saw every
patient three times) or not at all: the likelihood uses the counts n_ijl of answers l by j on i.

EM (section 3): start from the vote shares of each item (the "soft" majority: T_ic = n_i(c) / n_i,
the paper's own starting point), then repeat

* M-step: p_c = mean_i T_ic;  pi_j[c, l] = sum_i T_ic n_ijl / sum_i T_ic n_ij  (equations 2.3, 2.4);
* E-step: T_ic proportional to p_c prod_j prod_l pi_j[c, l] ** n_ijl  (equation 2.5), in logs;

until the log-likelihood rises by less than ``tol`` (or ``max_iter`` rounds).  Deterministic: no
random start.  A confusion entry that is exactly 0 makes the class impossible for an item that
shows that answer (the maximum-likelihood reading); a row without any weight (no item of that class
seen by the annotator) is uniform.

What the report uses:

* ``labels``: per item the class of highest posterior (ties to the first class in ``classes``);
  compared with the plurality majority, items where they differ are counted;
* per annotator the *estimated accuracy*: the expected share of their own answers that equal the
  true class, sum_i sum_c T_ic n_ijc / n_j;
* the flag rule (`flag_rule`): an annotator with at least ``min_answers`` answers on items that
  ``min_raters`` (3) or more annotators answered is flagged when their estimated accuracy is below
  the rate of always answering the commonest class (max_c p_c: no better than ignoring the item) or
  more than ``margin`` (default 0.15) below the median judged annotator's.  With fewer such answers
  the accuracy is shown but not judged: where only two annotators answered an item and they
  disagree, the model cannot tell which of them is wrong (with two annotators per item their
  confusion matrices are not identified: two annotators right 90 % and 60 % of the time come out
  alike), so those answers say little about the one annotator against the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.estimate import json_number
from annotate.analysis.reasons import not_enough
from annotate.frame_codes import code_columns, factorize

__all__ = ["DEFAULT_MARGIN", "MIN_ANSWERS", "MIN_RATERS", "AnnotatorCompetence", "DawidSkene", "dawid_skene",
           "flag_rule"]

MIN_ANSWERS = 10
"""Fewest answers (on items with `MIN_RATERS` annotators) for an annotator to be flagged or cleared."""
MIN_RATERS = 3
"""Fewest annotators on an item for its answers to count towards judging an annotator."""
DEFAULT_MARGIN = 0.15
"""How far below the median annotator's estimated accuracy an annotator is flagged."""
_TINY = 1e-300
JSON_MAX_ANNOTATORS = 1000
"""Annotators listed one by one in the JSON (`DawidSkene.to_json`): every judged one (flagged or cleared),
then the most answers first up to this many; the others are summarised (a crowd of 40,000 would be ~20 MB)."""
JSON_MAX_DIFFER = 1000
"""Items listed in the JSON's ``differ`` (the count of all of them is ``n_items_differ_from_majority``)."""


def flag_rule(margin: float = DEFAULT_MARGIN, min_answers: int = MIN_ANSWERS, min_raters: int = MIN_RATERS) -> str:
    """The flag rule in one sentence, as the report prints it."""
    return (f"flagged: estimated accuracy below the rate of always giving the commonest class, or more than "
            f"{margin:.2f} below the median annotator's; judged only with at least {min_answers} answers on items "
            f"that {min_raters} or more annotators answered")


@dataclass(frozen=True)
class AnnotatorCompetence:
    """One annotator under the Dawid-Skene model.

    Attributes:
        rater: the annotator; n_answers: their answers (repeats count); n_items: items they answered.
        n_checked: their answers on items that at least `MIN_RATERS` annotators answered (what the
            flag rule needs `MIN_ANSWERS` of).
        accuracy: expected share of their answers equal to the true class (see the module docstring).
        confusion: ``(C, C)`` row c = P(answer | true class c); rows without weight are uniform.
        flagged: True / False by the rule, None when there are too few answers to judge.
        reason: why not judged (``not enough data (n = ...: ...)``), else None.
    """

    rater: Any
    n_answers: int
    n_items: int
    accuracy: float
    confusion: np.ndarray
    flagged: bool | None
    reason: str | None = None
    n_checked: int = 0

    def to_json(self, classes: Sequence[Any]) -> dict[str, Any]:
        return {
            "rater": self.rater, "n_answers": self.n_answers, "n_items": self.n_items, "n_checked": self.n_checked,
            "accuracy": json_number(self.accuracy), "flagged": self.flagged, "reason": self.reason,
            "confusion": {str(c): {str(a): json_number(float(v)) for a, v in zip(classes, row, strict=True)}
                          for c, row in zip(classes, self.confusion, strict=True)},
        }


@dataclass(frozen=True, eq=False)
class DawidSkene:
    """The fit: priors, posteriors, labels, and each annotator's confusion matrix and accuracy.

    Attributes:
        classes: the C classes, in the order of every axis below.
        units: the U items (in order of first appearance).
        priors: ``(C,)`` estimated class shares p_c.
        posteriors: ``(U, C)`` P(true class | answers) per item.
        labels: ``(U,)`` the most probable class per item.
        majority: ``(U,)`` the plurality class per item (None where the top count is shared).
        annotators: one `AnnotatorCompetence` per annotator, in order of first appearance.
        log_likelihood: of the data at the estimate; n_iter: EM rounds run; converged: whether the
            log-likelihood settled before ``max_iter``.
        margin, min_answers, min_raters: the flag rule's parameters.
        reason: why nothing was fitted (``not enough data ...``), else None.
        max_raters: the most annotators on one item (below `MIN_RATERS`: no annotator can be judged).
    """

    classes: tuple[Any, ...]
    units: tuple[Any, ...]
    priors: np.ndarray
    posteriors: np.ndarray
    labels: tuple[Any, ...]
    majority: tuple[Any, ...]
    annotators: tuple[AnnotatorCompetence, ...]
    log_likelihood: float
    n_iter: int
    converged: bool
    margin: float = DEFAULT_MARGIN
    min_answers: int = MIN_ANSWERS
    reason: str | None = None
    min_raters: int = MIN_RATERS
    max_raters: int = 0

    @property
    def n_units(self) -> int:
        return len(self.units)

    @cached_property
    def n_with_majority(self) -> int:
        """Items with a plurality majority (no shared top count)."""
        return sum(1 for m in self.majority if m is not None)

    @cached_property
    def differing(self) -> tuple[int, ...]:
        """The places (in `units`) of the items with a majority whose Dawid-Skene label differs from it: found
        once (a pass over every item: over a second at the Arena's 1.67M), read by the JSON and the tables."""
        return tuple(i for i, (m, d) in enumerate(zip(self.majority, self.labels, strict=True))
                     if m is not None and m != d)

    @property
    def n_differ(self) -> int:
        """Items with a majority whose Dawid-Skene label differs from it."""
        return len(self.differing)

    @property
    def flagged(self) -> tuple[Any, ...]:
        return tuple(a.rater for a in self.annotators if a.flagged)

    def label_of(self) -> dict[Any, Any]:
        """Item -> Dawid-Skene label."""
        return dict(zip(self.units, self.labels, strict=True))

    def to_json(self) -> dict[str, Any]:
        """The report's JSON: every figure, with at most `JSON_MAX_ANNOTATORS` annotators and `JSON_MAX_DIFFER`
        items listed one by one (``annotators_left_out`` and ``n_differ_listed`` say what is not)."""
        classes = [c.item() if isinstance(c, np.generic) else c for c in self.classes]
        differ = [{"item": self.units[i], "dawid_skene": self.labels[i], "majority": self.majority[i]}
                  for i in self.differing]
        listed, left_out = self._listed()
        return {
            "classes": classes, "priors": [json_number(float(p)) for p in self.priors],
            "n_items": self.n_units, "n_items_with_majority": self.n_with_majority,
            "n_items_differ_from_majority": len(differ), "differ": differ[:JSON_MAX_DIFFER],
            "n_differ_listed": min(len(differ), JSON_MAX_DIFFER),
            "log_likelihood": json_number(self.log_likelihood), "n_iter": self.n_iter, "converged": self.converged,
            "rule": flag_rule(self.margin, self.min_answers, self.min_raters), "min_raters": self.min_raters,
            "max_raters_per_item": self.max_raters, "flagged": list(self.flagged), "n_annotators": len(self.annotators),
            "annotators": [a.to_json(classes) for a in listed], "annotators_left_out": left_out, "reason": self.reason,
        }

    def _listed(self) -> tuple[list[AnnotatorCompetence], dict[str, Any] | None]:
        """The annotators the JSON lists (in the fit's order) and a summary of the others (None: none left out)."""
        if len(self.annotators) <= JSON_MAX_ANNOTATORS:
            return list(self.annotators), None
        rank = sorted(range(len(self.annotators)),
                      key=lambda k: (self.annotators[k].flagged is None, -self.annotators[k].n_answers, k))
        keep = set(rank[:JSON_MAX_ANNOTATORS]) | {k for k, a in enumerate(self.annotators) if a.flagged is not None}
        out = [a for k, a in enumerate(self.annotators) if k not in keep]
        accuracy = np.array([a.accuracy for a in out])
        return [a for k, a in enumerate(self.annotators) if k in keep], {
            "n": len(out), "n_answers": int(sum(a.n_answers for a in out)),
            "mean_accuracy": json_number(float(accuracy.mean())),
            "why": f"more than {JSON_MAX_ANNOTATORS} annotators: the judged ones and those with most answers are "
                   "listed; none of the others has enough answers to be judged",
        }


def _counts(labels: pd.DataFrame, classes: Sequence[Any] | None) -> tuple[tuple, tuple, tuple, np.ndarray, np.ndarray,
                                                                            np.ndarray, np.ndarray]:
    """Codes of the answers: units, raters, classes, and per answer row (unit, rater, class, count)."""
    missing = [c for c in ("unit", "rater", "label") if c not in labels.columns]
    if missing:
        raise ValueError(f"labels are missing columns {missing}")
    v = labels.loc[labels["label"].notna(), ["unit", "rater", "label", *code_columns(labels, "unit", "rater")]]
    classes = (tuple(sorted(v["label"].unique(), key=lambda c: (str(type(c)), c))) if classes is None
               else tuple(classes))
    position = {c: i for i, c in enumerate(classes)}
    # each distinct label looked up once (a label equal to a class is that class, as a dict lookup finds it)
    label_codes, distinct = pd.factorize(v["label"])
    if any(x not in position for x in distinct.tolist()):
        known = set(classes)
        outside = sorted({str(x) for x in v["label"] if x not in known})
        raise ValueError(f"labels outside the classes {list(classes)}: {outside[:5]}")
    class_codes = np.array([position[x] for x in distinct.tolist()], dtype=np.int64)[label_codes]
    unit_codes, units = factorize(v, "unit")
    rater_codes, raters = factorize(v, "rater")
    key = pd.DataFrame({"u": unit_codes, "r": rater_codes, "c": class_codes}).value_counts(sort=False)
    idx = key.index.to_frame(index=False)
    # tolist: the same Python values as iterating the ids, without boxing each one through the array's iterator
    return (tuple(units.tolist()), tuple(raters.tolist()), classes, idx["u"].to_numpy(np.int64),
            idx["r"].to_numpy(np.int64), idx["c"].to_numpy(np.int64), key.to_numpy(np.float64))


def _m_step(post: np.ndarray, u: np.ndarray, r: np.ndarray, c: np.ndarray, n: np.ndarray, n_raters: int,
            mult: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Priors ``(C,)`` and confusion matrices ``(J, C, C)`` from posteriors ``(U, C)`` (equations 2.3, 2.4);
    with ``mult``, the rows ``U`` are answer patterns standing for ``mult`` items each (`_patterns`)."""
    n_classes = post.shape[1]
    priors = post.mean(axis=0) if mult is None else (post * mult[:, None]).sum(axis=0) / mult.sum()
    weight = post[u] * (n if mult is None else n * mult[u])[:, None]  # (rows, C): each answer row, each class
    cells = (r[:, None] * n_classes + np.arange(n_classes)[None, :]) * n_classes + c[:, None]
    num = np.bincount(cells.ravel(), weight.ravel(), n_raters * n_classes * n_classes)
    num = num.reshape(n_raters, n_classes, n_classes)
    den = num.sum(axis=2, keepdims=True)
    conf = np.full_like(num, 1.0 / n_classes)
    np.divide(num, den, out=conf, where=den > 0)
    return priors, conf


def _e_step(priors: np.ndarray, conf: np.ndarray, u: np.ndarray, r: np.ndarray, c: np.ndarray, n: np.ndarray,
            n_units: int, mult: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Posteriors ``(U, C)`` and the log-likelihood of the data (equation 2.5, in logs); with ``mult``, as
    `_m_step`."""
    n_classes = priors.size
    with np.errstate(divide="ignore"):
        log_conf = np.log(np.maximum(conf, _TINY))
        log_prior = np.log(np.maximum(priors, _TINY))
    terms = log_conf[r, :, c] * n[:, None]  # (rows, C)
    log_post = np.column_stack([np.bincount(u, terms[:, k], n_units) for k in range(n_classes)]) + log_prior
    top = log_post.max(axis=1, keepdims=True)
    scaled = np.exp(log_post - top)
    total = scaled.sum(axis=1, keepdims=True)
    per_unit = top[:, 0] + np.log(total[:, 0])
    return scaled / total, float((per_unit if mult is None else per_unit * mult).sum())


def _patterns(u: np.ndarray, r: np.ndarray, c: np.ndarray, n: np.ndarray, n_units: int, n_classes: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Items with the same answers (the same counts from the same annotators) have the same posterior in
    every EM round, so EM can run on the distinct answer patterns, each weighted by its items: returns
    each item's pattern, each pattern's items and one item of each (its first); None when fewer than a
    quarter of the items share a pattern (nothing to gain).  Items are grouped by a random projection of
    their answers, then every item is checked against its pattern's first item, answer by answer."""
    order = np.lexsort((c, r, u))
    u, r, c, n = u[order], r[order], c[order], n[order]
    cell = r * n_classes + c
    weights = np.random.default_rng(0x5EED).random(int(cell.max(initial=0)) + 1)
    key = np.bincount(u, weights[cell] * n, n_units) + np.bincount(u, minlength=n_units) * 0.5
    _, first, pattern = np.unique(key, return_index=True, return_inverse=True)
    pattern = pattern.ravel()
    if first.size * 4 > n_units * 3:
        return None
    sizes = np.bincount(u, minlength=n_units)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rep = first[pattern]  # each item's pattern's first item
    if (sizes[rep] != sizes).any():
        return None
    mirror = starts[rep[u]] + np.arange(u.size) - starts[u]  # the same answer row of the first item
    if (cell[mirror] != cell).any() or (n[mirror] != n).any():
        return None
    return pattern, np.bincount(pattern).astype(np.float64), first


def _majority(u: np.ndarray, c: np.ndarray, n: np.ndarray, n_units: int, n_classes: int) -> np.ndarray:
    """Vote counts ``(U, C)``."""
    return np.bincount(u * n_classes + c, n, n_units * n_classes).reshape(n_units, n_classes)


def dawid_skene(
    labels: pd.DataFrame,
    classes: Sequence[Any] | None = None,
    *,
    max_iter: int = 500,
    tol: float = 1e-8,
    margin: float = DEFAULT_MARGIN,
    min_answers: int = MIN_ANSWERS,
    min_raters: int = MIN_RATERS,
) -> DawidSkene:
    """Fit the Dawid-Skene model to answers in long format (see the module docstring).

    labels: columns unit, rater, label; one row per answer (several rows for a rater who answered a
    unit more than once); missing labels are ignored.  classes: the label set in order (default: the
    sorted distinct labels); a class nobody used still gets a prior and a confusion column.

    >>> votes = pd.DataFrame({"unit": [1, 1, 1, 2, 2, 2], "rater": list("xyzxyz"), "label": list("AABBBA")})
    >>> fit = dawid_skene(votes)
    >>> fit.labels, fit.n_differ
    (('A', 'B'), 0)
    """
    units, raters, classes, u, r, c, n = _counts(labels, classes)
    n_units, n_classes = len(units), len(classes)
    if n_units == 0 or n_classes == 0:
        reason = not_enough(0, "items", "no answer to model")
        return DawidSkene(classes, units, np.zeros(n_classes), np.zeros((0, n_classes)), (), (), (), float("nan"), 0,
                          False, margin, min_answers, reason, min_raters)
    votes = _majority(u, c, n, n_units, n_classes)
    grouped = _patterns(u, r, c, n, n_units, n_classes)
    if grouped is None:  # EM on the items themselves
        eu, er, ec, en, n_rows, mult, start = u, r, c, n, n_units, None, votes
    else:  # EM on the answer patterns, each standing for its items
        pattern, mult, first = grouped
        of_first = np.flatnonzero(np.isin(u, first))
        eu, er, ec, en, n_rows, start = pattern[u[of_first]], r[of_first], c[of_first], n[of_first], first.size, \
            votes[first]
    post = start / start.sum(axis=1, keepdims=True)
    log_lik, converged, rounds = -np.inf, False, 0
    while rounds < max_iter:
        rounds += 1
        priors, conf = _m_step(post, eu, er, ec, en, len(raters), mult)
        post, new = _e_step(priors, conf, eu, er, ec, en, n_rows, mult)
        if new - log_lik < tol * max(1.0, abs(new)):
            log_lik, converged = new, True
            break
        log_lik = new
    priors, conf = _m_step(post, eu, er, ec, en, len(raters), mult)
    post, log_lik = _e_step(priors, conf, eu, er, ec, en, n_rows, mult)
    if grouped is not None:
        post = post[grouped[0]]
    labels_out = tuple(classes[k] for k in post.argmax(axis=1))
    top = votes.max(axis=1)
    unique = (votes == top[:, None]).sum(axis=1) == 1
    majority = tuple(classes[k] if ok else None for k, ok in zip(votes.argmax(axis=1), unique, strict=True))
    answers = np.bincount(r, n, len(raters))
    correct = np.bincount(r, post[u, c] * n, len(raters))
    unit_rater = pd.DataFrame({"u": u, "r": r}).drop_duplicates()
    items = np.bincount(unit_rater["r"].to_numpy(), minlength=len(raters))
    raters_on = np.bincount(unit_rater["u"].to_numpy(), minlength=n_units)
    checked = np.bincount(r, n * (raters_on[u] >= min_raters), len(raters))
    accuracy = correct / np.maximum(answers, 1)
    judged = checked >= min_answers
    median = float(np.median(accuracy[judged])) if judged.any() else float("nan")
    chance = float(priors.max())
    annotators = []
    for j, rater in enumerate(raters):
        if judged[j]:
            flagged = bool(accuracy[j] < chance or accuracy[j] < median - margin)
            reason = None
        elif answers[j] < min_answers:
            flagged = None
            reason = not_enough(int(answers[j]), "answers", f"fewer than {min_answers} to judge")
        else:
            flagged = None
            why = f"fewer than {min_answers} on items with {min_raters}+ annotators"
            reason = not_enough(int(checked[j]), "answers", why)
        annotators.append(AnnotatorCompetence(rater, round(float(answers[j])), int(items[j]), float(accuracy[j]),
                                              conf[j], flagged, reason, round(float(checked[j]))))
    return DawidSkene(classes, units, priors, post, labels_out, majority, tuple(annotators), log_lik, rounds, converged,
                      margin, min_answers, None, min_raters, int(raters_on.max()))
