"""Study designs: the label schema as one concept (DESIGN.md section 3, "Study designs").

The spec's [labels] table declares the shape of a judgment; `parse_labels` turns it into a
`LabelSchema` of questions (`questions.py`). Screens, analysis, reports and exports ask the schema
and its questions what an answer is: its valid values in slot space, its keys and words in side
space, how one maps to the other given the display order, its level of measurement and how it
collapses to a preference for Bradley-Terry. None of them branches on the shape itself.
"""

from annotate.design.parse import MAX_ASPECTS, PAIRWISE_SCALES, LabelsError, parse_labels
from annotate.design.questions import (
    GRADED_POINTS,
    PREFERENCES,
    Choice,
    Grade,
    Graded,
    Order,
    Outcomes,
    Question,
    grade_keys,
    order_of,
    signed,
)
from annotate.design.ranking import MAX_K, MIN_K, RANK_SLOTS, Ranking, ordinal
from annotate.design.schema import (
    OVERALL,
    RUBRIC_CRITERIA,
    Criterion,
    LabelSchema,
    describe_identity,
)
from annotate.design.spans import SEVERITIES, SpanSpec, SpanSpecError, Taxonomy, resolve_taxonomy

__all__ = [
    "GRADED_POINTS",
    "MAX_ASPECTS",
    "MAX_K",
    "MIN_K",
    "OVERALL",
    "PAIRWISE_SCALES",
    "PREFERENCES",
    "RANK_SLOTS",
    "RUBRIC_CRITERIA",
    "SEVERITIES",
    "Choice",
    "Criterion",
    "Grade",
    "Graded",
    "LabelSchema",
    "LabelsError",
    "Order",
    "Outcomes",
    "Question",
    "Ranking",
    "SpanSpec",
    "SpanSpecError",
    "Taxonomy",
    "describe_identity",
    "grade_keys",
    "order_of",
    "ordinal",
    "parse_labels",
    "resolve_taxonomy",
    "signed",
]
