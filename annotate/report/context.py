"""What every section of the session report shares: the votes that count, and the context."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from annotate.design import PREFERENCES, Question
from annotate.model import slot_to_side
from annotate.report.cells import label_text  # noqa: F401  (sections import it from here)
from annotate.report.tables import ITEM_CI_NOTE
from annotate.text import plural

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd

    from annotate.spec import SessionSpec
    from annotate.store import Store


COHORT_ORDER = ("expert", "crowd", "author", "llm")
LLM_COHORTS = frozenset({"llm"})
"""Cohorts of LLM judges: compared with the human cohorts apart, never pooled with them by default."""
ALL = "(all raters)"
HUMANS = "(human raters)"
JUDGES = "(LLM judges)"
NO_VOTES = "No votes yet: import labels or annotate first."


@dataclass(frozen=True)
class Context:
    """Everything the sections share."""

    spec: SessionSpec
    votes: pd.DataFrame
    """All labelled votes that count (planted excluded unless asked), with a cohort."""
    unique: pd.DataFrame
    """One vote per (item, rater), attention checks out: for agreement, pairwise and ranking."""
    level: str
    categories: tuple[Any, ...]
    n_boot: int
    seed: int
    max_rows: int
    majority: str = "plurality"
    """The rule that gives one verdict per item (`annotate.analysis.majority`)."""
    pool_llm: bool = False
    """Pool LLM judges with the human raters in the headline figures (the report says so)."""
    mtbench_human: tuple[str, ...] = ("expert",)
    """The cohorts that are "human" in the MT-Bench per-turn table."""
    scored: pd.DataFrame | None = None
    """The unique votes as agreement measures them: `label` on the primary question's scale (a graded
    strength as a number, both bad left out); None: `unique` as it is."""
    collapse_rule: str = ""
    """How the primary question's answers collapse to the preference in `label` (empty: they are one)."""
    style_intervals: str = "auto"
    """How the style-controlled ranking's intervals are made (`annotate.analysis.style_control.INTERVAL_METHODS`)."""

    @cached_property
    def item_codes(self) -> pd.Series:
        """`votes`' items as integers in order of first appearance (on the votes' index): a section that only
        groups by item (no item id in its output) groups these instead of the texts."""
        import pandas as pd

        from annotate.frame_codes import factorize

        return pd.Series(factorize(self.votes, "item")[0], index=self.votes.index)

    def coded(self, columns: list[str]) -> pd.DataFrame:
        """`votes`' ``columns`` with `item_codes` for the item (filters of it copy only these), and the
        rater's codes when the votes carry them and ``columns`` has the rater (`annotate.frame_codes`)."""
        from annotate.frame_codes import code_columns

        kept = code_columns(self.votes, "rater") if "rater" in columns else []
        return self.votes[columns + kept].assign(item=self.item_codes)

    @property
    def pairwise(self) -> bool:
        return self.spec.kind == "pairwise"

    @property
    def ranking(self) -> bool:
        """A session that ranks k responses per item (`annotate.design.Ranking`)."""
        return self.spec.kind == "ranking"

    @property
    def agreement_all(self) -> pd.DataFrame:
        """`unique` as agreement measures it (graded: the strength as a number), every cohort."""
        return self.unique if self.scored is None else self.scored

    @property
    def agreement_votes(self) -> pd.DataFrame:
        """`agreement_all` of the headline raters (the human cohorts, or everyone with ``pool_llm``)."""
        votes = self.agreement_all
        return votes.loc[self.is_headline(votes)]

    @property
    def ci_note(self) -> str:
        """How every interval of the session report is made: the unit resampled is the item."""
        return ITEM_CI_NOTE.format(n_boot=self.n_boot, seed=self.seed)

    @property
    def humans(self) -> pd.DataFrame:
        """`unique` votes of the human cohorts (every cohort but llm)."""
        return self.unique.loc[~self.unique["cohort"].isin(LLM_COHORTS)]

    @property
    def judges(self) -> pd.DataFrame:
        """`unique` votes of LLM judges."""
        return self.unique.loc[self.unique["cohort"].isin(LLM_COHORTS)]

    @property
    def headline(self) -> pd.DataFrame:
        """The votes of the headline figures: the human cohorts, or everyone with ``pool_llm``."""
        return self.unique if self.pool_llm else self.humans

    @property
    def headline_name(self) -> str:
        """What the headline figures pool, as a table title says it."""
        return "All raters, LLM judges pooled with humans (--pool-llm)" if self.pool_llm else "Human raters"

    @property
    def headline_row(self) -> str:
        """The label of a pooled row in per-rater tables."""
        return ALL if self.pool_llm else HUMANS

    def is_headline(self, votes: pd.DataFrame) -> pd.Series:
        """Which of ``votes`` (any frame with a cohort column) count in the headline figures."""
        if self.pool_llm:
            return votes["cohort"].notna() | votes["cohort"].isna()
        return ~votes["cohort"].isin(LLM_COHORTS)


def planted_judgments(store: Store) -> set[int]:
    """Ids of current judgments whose assignment carried a planted suggestion."""
    planted = {s.id for s in store.suggestions() if s.planted}
    if not planted:
        return set()
    assignments = {a.id for a in store.assignments() if a.suggestion_id in planted}
    return {j.id for j in store.judgments() if j.assignment_id in assignments and j.id is not None}


def prepare_votes(spec: SessionSpec, store: Store, include_planted: bool) -> tuple[pd.DataFrame, dict[str, int]]:

    from annotate.adjudication import ADJUDICATION, adjudicated_labels
    from annotate.frame_codes import filled
    from annotate.model import INVALID_LABEL
    from annotate.store.frames import per_distinct, votes_frame

    votes = votes_frame(store, codes=True)  # item and rater codes: the sections group by them
    excluded = {"planted": 0, "unknown_labels": 0, "adjudication": 0, "invalid": 0}
    # An imported label mapped to `invalid`: the rater gave no usable answer; stored, never a vote.
    invalid = (votes["label"] == INVALID_LABEL) & (votes["source"] != "judgment")
    excluded["invalid"] = int(invalid.sum())
    votes = _rows(votes, ~invalid)
    # An adjudicator has seen the others' answers: their label is a reference, never a vote.
    adjudicating = votes["purpose"] == ADJUDICATION
    excluded["adjudication"] = int(adjudicating.sum())
    votes = _rows(votes, ~adjudicating)
    adjudicated = adjudicated_labels(store)
    if adjudicated:
        votes = votes.assign(gold=votes["gold"].fillna(votes["item"].map(adjudicated)))
    if not include_planted:
        planted = planted_judgments(store)
        if planted:
            mask = votes["judgment_id"].isin(list(planted))
            excluded["planted"] = int(mask.sum())
            votes = _rows(votes, ~mask)
    if spec.kind == "rubric":  # rubric judgments carry scores (scores_frame), not a label
        votes = votes.assign(label=votes["label"].fillna("(scores)"))
    votes = _rows(votes, votes["label"].notna())
    votes["purpose"] = filled(votes["purpose"], "main")
    votes["cohort"] = votes["cohort"].fillna("expert").astype(str)
    votes["rater"] = votes["rater"].astype(str)
    votes["item"] = votes["item"].astype(str)
    primary = spec.schema.primary
    if primary is None:  # rubric: every judgment counts; its scores are read per criterion
        return votes.reset_index(drop=True), excluded
    raw = votes["label"].astype(str).replace({"tie_inconsistent": "tie"}) if primary.sided else votes["label"]
    values = _map(raw, primary.parse)
    known = values.notna()
    excluded["unknown_labels"] = int((~known).sum())
    votes = _rows(votes, known).assign(value=_rows(values, known))
    votes["label"] = _label_column(primary, votes["value"])
    votes["gold"] = _map_with_missing(votes["gold"], lambda g: _gold(primary, g))
    if primary.shape == "ranking":  # the ranking over display positions, as the screen showed it
        judged = (votes["source"] == "judgment") & votes["display_order"].notna()
        votes.loc[judged, "label_side"] = [
            primary.to_side(value, tuple(str(order)))
            for value, order in zip(votes.loc[judged, "value"], votes.loc[judged, "display_order"], strict=True)
        ]
    elif primary.sided:  # the side of the preference, as position bias reads it
        judged = votes["source"] == "judgment"
        votes.loc[judged, "label_side"] = per_distinct(votes.loc[judged, "label"], votes.loc[judged, "swapped"],
                                                       slot_to_side)
    return votes.reset_index(drop=True), excluded


def _rows(frame: Any, keep: pd.Series) -> Any:
    """`frame.loc[keep]`, or `frame` itself when every row is kept: a filter copies every column (some 1.8 s
    for the votes of the 1.67M Arena battles), and with copy-on-write the frame's columns are set after
    without changing anything its caller holds."""
    return frame if bool(keep.all()) else frame.loc[keep]


def _label_column(question: Question, values: pd.Series) -> pd.Series:
    """What the sections read as `label`: the preference A / B / tie / both_bad for pairwise
    questions (collapsed from a graded strength), the grade as a number for grades, the canonical
    ranking text (slot space, `C>A=B>D`) for rankings, which do not collapse to one preference."""
    import pandas as pd

    if question.shape == "ranking":
        return values
    if question.sided:
        return _map(values, question.preference)
    return pd.to_numeric(_map(values, question.number))


def _map(values: pd.Series, fn: Callable[[Any], Any]) -> pd.Series:
    """``values.map(fn)``, calling ``fn`` once per distinct text when the values are all text (the
    result's type is inferred from the same results, so it is the one ``map`` gives)."""
    import pandas as pd

    if len(values) == 0 or pd.api.types.infer_dtype(values, skipna=False) != "string":
        return values.map(fn)
    codes, distinct = pd.factorize(values)
    mapped = pd.Series(distinct, dtype=values.dtype).map(fn)  # the same map, on one row per distinct text
    return mapped.take(codes).set_axis(values.index).rename(values.name)


def _map_with_missing(values: pd.Series, fn: Callable[[Any], Any]) -> pd.Series:
    """`_map` of text that may be missing (or is all missing): ``fn`` once per distinct text, and once for the
    missing value when there is one."""
    import numpy as np
    import pandas as pd

    kind = pd.api.types.infer_dtype(values, skipna=True)
    if len(values) == 0 or kind not in ("string", "empty"):
        return values.map(fn)
    codes, distinct = pd.factorize(values)
    missing = codes < 0
    if not missing.any():
        return _map(values, fn)
    first = int(np.flatnonzero(missing)[0])
    mapped = pd.concat([pd.Series(distinct, dtype=values.dtype), values.iloc[[first]].reset_index(drop=True)],
                       ignore_index=True).map(fn)
    return mapped.take(np.where(missing, len(distinct), codes)).set_axis(values.index).rename(values.name)


def _gold(question: Question, gold: object) -> object:
    """An item's gold (or adjudicated) label in the form of `label` (None when it is none)."""
    if gold is None or (isinstance(gold, float) and gold != gold):
        return None
    value = question.parse(gold)
    if value is None:
        return gold if question.sided and gold in PREFERENCES and question.shape != "ranking" else None
    if question.shape == "ranking":
        return value
    return question.preference(value) if question.sided else question.number(value)


def unique_votes(votes: pd.DataFrame) -> pd.DataFrame:
    """One vote per (item, rater), attention checks out: the first of purpose main, else the first of
    another purpose; in the order of the votes' index."""
    import numpy as np

    from annotate.frame_codes import factorize

    v = votes.loc[votes["purpose"] != "attention"]
    items = factorize(v, "item", use_na_sentinel=False)[0].astype(np.int64)
    raters, rater_values = factorize(v, "rater", use_na_sentinel=False)
    key = items * max(len(rater_values), 1) + raters
    later = (v["purpose"] != "main").to_numpy()
    order = np.lexsort((np.arange(len(v)), later, key))  # per (item, rater): main first, then in order
    first = order[np.r_[True, key[order][1:] != key[order][:-1]]] if len(v) else order
    kept = v.iloc[np.sort(first)]
    return kept if v.index.is_monotonic_increasing else kept.sort_index()


def raters_per_cohort(votes: pd.DataFrame) -> tuple[dict[Any, int], int]:
    """The distinct raters of each cohort (``votes.groupby("cohort")["rater"].nunique()``, cohorts sorted) and
    of all the votes (``votes["rater"].nunique()``): from the raters' codes where the votes carry them
    (`annotate.frame_codes`), the cohorts (few) factorized."""
    import numpy as np
    import pandas as pd

    from annotate.frame_codes import factorized

    fast = factorized(votes, "rater")
    if fast is None:
        per = votes.groupby("cohort")["rater"].nunique().to_dict()
        return {k: int(n) for k, n in per.items()}, int(votes["rater"].nunique())
    raters, names = fast
    cohorts, cohort_names = pd.factorize(votes["cohort"], sort=True)
    known = cohorts >= 0  # a missing cohort is no group
    pairs = np.unique(cohorts[known].astype(np.int64) * max(len(names), 1) + raters[known])
    per_cohort = np.bincount(pairs // max(len(names), 1), minlength=len(cohort_names))
    return {c: int(n) for c, n in zip(cohort_names.tolist(), per_cohort.tolist(), strict=True) if n}, len(names)


def cohort_of_raters(votes: pd.DataFrame) -> dict[Any, Any]:
    """Each rater's cohort, that of their first vote (``votes.drop_duplicates("rater")``'s): from the raters'
    codes where the votes carry them (`annotate.frame_codes`)."""
    import numpy as np

    from annotate.frame_codes import factorized

    fast = factorized(votes, "rater")
    if fast is None:
        return votes.drop_duplicates("rater").set_index("rater")["cohort"].to_dict()
    codes, raters = fast
    first = np.unique(codes, return_index=True)[1]  # codes in first-appearance order: their first rows, in order
    return dict(zip(raters.tolist(), votes["cohort"].to_numpy(dtype=object)[first].tolist(), strict=True))


def long_votes(votes: pd.DataFrame) -> pd.DataFrame:
    """The votes as agreement reads them: unit (the item), rater, label, and the codes of unit and rater
    where the votes carry them (`annotate.frame_codes`)."""
    from annotate.frame_codes import code_column, code_columns

    renamed = votes.rename(columns={"item": "unit", code_column("item"): code_column("unit")})
    return renamed[["unit", "rater", "label", *code_columns(renamed, "unit", "rater")]]


def cohorts_of(votes: pd.DataFrame) -> list[str]:
    present = [str(c) for c in votes["cohort"].unique()]
    return sorted(present, key=lambda c: (COHORT_ORDER.index(c) if c in COHORT_ORDER else 99, c))


def more_raters(n: int, why: str = "") -> str:
    return f"{plural(n, 'more rater')}{why} {'is' if n == 1 else 'are'} in the JSON report."


def not_enough(n: int, what: str, why: str) -> str:
    """The sentence for a statistic the data cannot support: ``not enough data (n = 1 rater: why)``."""
    from annotate.report.model import NotEnough

    return str(NotEnough(int(n), what, why))
