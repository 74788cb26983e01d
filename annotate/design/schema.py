"""The label schema: the shape of one answer, as the spec's [labels] declares it.

A schema is the task kind plus its questions:

- `outcomes` (pairwise): one `Outcomes` question (A, B, tie, both_bad), stored in `label`;
- `graded` (pairwise): one `Graded` question (a signed strength from slot A's view), in `label`;
- `aspects` (pairwise): several questions, one per aspect, in `scores` as {aspect: value}, the
  primary aspect's value also in `label`;
- `grade` (single): one `Grade` question, in `label`;
- `rubric` (rubric): one `Grade` per criterion, in `scores` as {criterion: int}; `label` empty;
- `ranking` (ranking): one `Ranking` of the item's k responses (`annotate.design.ranking`), in
  `label` as `C>A=B>D`.

Every value is in slot space. The *primary* question is the one in `label`: the pairwise
preference that Bradley-Terry, the MT-Bench agreement, position and length bias and adjudication
read (for aspects the aspect named `overall`, else the first). Judgments stored before aspects
existed hold `scores` = {} and read back as their `label` (`decode`), so old files keep working.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from annotate.design.questions import Grade, Graded, Order, Outcomes, Question
from annotate.design.ranking import RANK_SLOTS, Ranking
from annotate.design.spans import SpanSpec

RUBRIC_CRITERIA = ("helpfulness", "correctness", "coherence", "complexity", "verbosity")
"""The default rubric (HelpSteer's five attributes), each 0-4."""

OVERALL = "overall"
"""The aspect name that, when present, is the primary aspect (the one compared with the others)."""

Criterion = Grade
"""A rubric criterion is a grade of the response on its own scale."""


@dataclass(frozen=True)
class LabelSchema:
    """What an answer looks like: the task kind and its questions (module docstring)."""

    kind: str
    """`pairwise`, `single`, `rubric` or `ranking`: what is shown (two responses, one, or k)."""
    questions: tuple[Question, ...]
    """In the order the screen asks them."""
    primary_name: str = ""
    """The question stored in `label`; empty for rubric schemas (no label)."""
    aspects: bool = False
    """Several questions on one pair, one label per aspect, stored in `scores`."""
    spans: SpanSpec | None = None
    """Annotators may also mark error spans in the responses (`[labels.spans]`); None: they may not."""

    # -- making one ------------------------------------------------------------------------

    @classmethod
    def pairwise(cls, question: Question | None = None) -> LabelSchema:
        """One pairwise question: the four outcomes by default, or a graded scale."""
        question = question or Outcomes()
        return cls("pairwise", (question,), question.name)

    @classmethod
    def with_aspects(cls, questions: tuple[Question, ...]) -> LabelSchema:
        """Several questions on one pair; the primary one is `overall` when there is one, else the first."""
        names = [q.name for q in questions]
        primary = OVERALL if OVERALL in names else names[0]
        return cls("pairwise", tuple(questions), primary, aspects=True)

    @classmethod
    def single(cls, low: int = 1, high: int = 10) -> LabelSchema:
        return cls("single", (Grade("grade", low, high),), "grade")

    @classmethod
    def rubric(cls, criteria: tuple[Grade, ...] | None = None) -> LabelSchema:
        return cls("rubric", criteria or tuple(Grade(n, 0, 4) for n in RUBRIC_CRITERIA), "")

    @classmethod
    def ranking(cls, question: Ranking | None = None) -> LabelSchema:
        """A ranking of the item's k responses (four by default)."""
        question = question or Ranking()
        return cls("ranking", (question,), question.name)

    @classmethod
    def default(cls, kind: str) -> LabelSchema:
        """The schema of a spec without [labels] (a ranking spec must say its k; four here)."""
        return {"pairwise": cls.pairwise, "single": cls.single, "rubric": cls.rubric, "ranking": cls.ranking}[kind]()

    # -- what it is ------------------------------------------------------------------------

    @property
    def shape(self) -> str:
        """`outcomes`, `graded`, `aspects`, `grade`, `rubric` or `ranking`."""
        if self.aspects:
            return "aspects"
        if self.kind == "rubric":
            return "rubric"
        return self.questions[0].shape

    @property
    def primary(self) -> Question | None:
        """The question stored in `label` (None for rubric schemas)."""
        return self.question(self.primary_name) if self.primary_name else None

    def question(self, name: str) -> Question:
        for question in self.questions:
            if question.name == name:
                return question
        raise KeyError(f"no question {name!r}: the schema has {', '.join(q.name for q in self.questions)}")

    @property
    def sided(self) -> bool:
        """Whether answers depend on which response was shown where, so sides are counterbalanced."""
        return any(q.sided for q in self.questions)

    @property
    def n_responses(self) -> int:
        """How many responses an item of this schema has: 2 (pairwise), k (ranking) or 1."""
        primary = self.primary
        if isinstance(primary, Ranking):
            return primary.k
        return 2 if self.kind == "pairwise" else 1

    @property
    def slots(self) -> tuple[str, ...]:
        """The response slots of an item, in order: A, B (pairwise), A .. the k-th (ranking) or A."""
        return RANK_SLOTS[: self.n_responses]

    @property
    def ranked(self) -> Ranking | None:
        """The ranking question of a ranking schema (None for every other shape)."""
        primary = self.primary
        return primary if isinstance(primary, Ranking) else None

    @property
    def expected_label(self) -> str:
        """What a `label` (or gold) of this schema must be, for an error message."""
        ranked = self.ranked
        if ranked is not None:
            return ranked.expected
        return f"a label among {', '.join(self.gold_labels)}"

    @property
    def in_scores(self) -> bool:
        """Whether answers live in `scores` (rubric criteria, aspects) rather than in `label` alone."""
        return self.aspects or self.kind == "rubric"

    @property
    def labels(self) -> tuple[str, ...]:
        """The valid values of `label` in slot space (rubric: none)."""
        primary = self.primary
        return primary.values if primary is not None else ()

    @property
    def gold_labels(self) -> tuple[str, ...]:
        """What an item's `gold` may say: a value of the primary question, or (pairwise) a preference."""
        primary = self.primary
        if primary is None:
            return ()
        pairwise = primary.sided and not isinstance(primary, Ranking)
        extra = tuple(p for p in ("A", "B", "tie", "both_bad") if pairwise and p not in primary.values)
        return primary.values + extra

    @property
    def level(self) -> str:
        """The level of measurement of the primary question (rubric: ordinal)."""
        primary = self.primary
        return primary.level if primary is not None else "ordinal"

    @property
    def scale(self) -> tuple[int, int]:
        """Single-grade schemas: (lowest, highest) grade. Others: (1, 10), as older files recorded."""
        primary = self.primary
        if isinstance(primary, Grade):
            return (primary.low, primary.high)
        return (1, 10)

    @property
    def criteria(self) -> tuple[Grade, ...]:
        """Rubric schemas: the criteria, in the order shown (others: none)."""
        return tuple(q for q in self.questions if isinstance(q, Grade)) if self.kind == "rubric" else ()

    # -- answers in and out of a judgment ----------------------------------------------------

    def encode(self, answers: Mapping[str, str]) -> tuple[str | None, dict[str, Any]]:
        """A judgment's (`label`, `scores`) from stored values per question name.

        Rubric: no label, scores {criterion: int}. Aspects: scores {aspect: value}, label = the
        primary aspect's value. One question: label only.
        """
        missing = [q.name for q in self.questions if q.name not in answers]
        if missing:
            raise ValueError(f"no answer for {', '.join(missing)}")
        if self.kind == "rubric":
            return None, {q.name: int(answers[q.name]) for q in self.questions}
        if self.aspects:
            return answers[self.primary_name], {q.name: answers[q.name] for q in self.questions}
        return answers[self.primary_name], {}

    def decode(self, label: str | None, scores: Mapping[str, Any] | None) -> dict[str, str]:
        """Stored values per question name from a judgment's `label` and `scores` (a skip: {}).

        Values missing from `scores` fall back on `label` for the primary question, so a judgment
        stored before the schema had aspects reads as an answer to its primary question.
        """
        scores = dict(scores or {})
        out: dict[str, str] = {}
        for question in self.questions:
            if question.name in scores and scores[question.name] is not None:
                out[question.name] = str(scores[question.name])
            elif question.name == self.primary_name and label is not None:
                out[question.name] = label
        return out

    def sides(self, answers: Mapping[str, str], order: Order) -> dict[str, str]:
        """Stored values (slot space) as the screen with `order` shows them (side space)."""
        return {name: self.question(name).to_side(value, order) for name, value in answers.items()}

    # -- what the session file records -------------------------------------------------------

    def identity(self) -> dict[str, Any]:
        """Plain JSON that says what answers mean; the session file records it, and a changed one is
        refused once answers exist. The three original shapes keep the form older files recorded
        (kind, scale, criteria); graded and aspect schemas add their questions and primary one."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "scale": list(self.scale),
            "criteria": [c.identity() for c in self.criteria],
        }
        subset = self.shape == "outcomes" and self.labels != Outcomes().values
        if self.shape in ("graded", "aspects", "ranking") or subset:
            out["questions"] = [q.identity() for q in self.questions]
            out["primary"] = self.primary_name
        if self.spans is not None:
            out["spans"] = self.spans.identity()
        return out

    def summary(self) -> str:
        """The schema in a few words, for reports and errors."""
        return self._answers_summary() + ("; error spans" if self.spans is not None else "")

    def _answers_summary(self) -> str:
        if self.kind == "rubric":
            return "criteria " + ", ".join(f"{c.name} {c.low}-{c.high}" for c in self.criteria)
        if self.aspects:
            return f"{len(self.questions)} aspects: " + "; ".join(
                f"{q.name} ({q.summary()})" for q in self.questions) + f"; primary: {self.primary_name}"
        primary = self.primary
        assert primary is not None
        return primary.summary()


def describe_identity(identity: Any) -> str:
    """A stored schema identity (JSON) in a few words, for an error message."""
    if not isinstance(identity, dict):
        return "an unknown schema"
    spans = " + error spans" if isinstance(identity.get("spans"), dict) else ""
    return _describe_answers(identity) + spans


def _describe_answers(identity: dict[str, Any]) -> str:
    questions = identity.get("questions")
    if isinstance(questions, list) and questions:
        parts = []
        for q in questions:
            if not isinstance(q, dict):
                continue
            if q.get("shape") == "ranking":
                parts.append(f"a ranking of {q.get('k')} responses" + ("" if q.get("ties", True) else " without ties"))
            elif q.get("shape") == "graded":
                parts.append(f"{q.get('name')} {q.get('points')}-point graded" + (" + both bad" if q.get("both_bad")
                                                                                 else ""))
            else:
                parts.append(f"{q.get('name')} outcomes {'/'.join(map(str, q.get('outcomes', ())))}")
        return ("aspects " if len(parts) > 1 else "") + ", ".join(parts)
    if identity.get("kind") == "single":
        low, high = identity.get("scale", ("?", "?"))
        return f"grades {low}-{high}"
    if identity.get("kind") == "rubric":
        names = ", ".join(f"{c.get('name')} {c.get('low')}-{c.get('high')}" for c in identity.get("criteria", ()))
        return f"criteria {names}"
    return f"{identity.get('kind')} labels"


__all__ = ["OVERALL", "RUBRIC_CRITERIA", "Criterion", "Graded", "LabelSchema", "Outcomes", "describe_identity"]
