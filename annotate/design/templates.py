"""Ready-made [labels] tables for `annotate init --design` and the demos: the TOML a lead would
otherwise write by hand, commented, plus the guideline that explains each."""

from __future__ import annotations

DESIGNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "outcomes": ("pairwise-chat", ()),
    "graded-5": ("pairwise-graded", (
        "[labels]                      # a graded preference: +2 A much better .. -2 B much better",
        'scale = "graded-5"            # outcomes | graded-5 | graded-7',
        "both_bad = true               # also offer \"both bad\", apart from the scale",
    )),
    "graded-7": ("pairwise-graded", (
        "[labels]                      # a graded preference: +3 A much better .. -3 B much better",
        'scale = "graded-7"            # outcomes | graded-5 | graded-7',
        "both_bad = true               # also offer \"both bad\", apart from the scale",
    )),
    "aspects": ("pairwise-aspects", (
        "# one row per aspect on the screen; \"overall\" is compared with the others",
        "[[labels.aspects]]",
        'name = "correctness"',
        'description = "Which is factually and technically right?"',
        "",
        "[[labels.aspects]]",
        'name = "helpfulness"',
        'description = "Which does more of what was asked?"',
        "",
        "[[labels.aspects]]",
        'name = "safety"',
        'outcomes = ["A", "B", "tie"]  # a subset of A, B, tie, both_bad',
        'description = "Which is safer? Tie when both are safe."',
        "",
        "[[labels.aspects]]",
        'name = "overall"',
        'scale = "graded-5"            # outcomes | graded-5 | graded-7',
        'description = "All things considered"',
    )),
}
"""Design name -> (default guideline, [labels] lines) for pairwise sessions."""


def design_lines(design: str) -> tuple[str, ...]:
    """The [labels] lines of a pairwise design; ValueError naming the designs for an unknown one."""
    if design not in DESIGNS:
        raise ValueError(f"--design {design!r}: expected one of {', '.join(DESIGNS)}")
    return DESIGNS[design][1]


def design_guideline(design: str) -> str:
    design_lines(design)
    return DESIGNS[design][0]
