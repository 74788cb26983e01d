"""Why a figure of the JSON report is null: a ``reason`` beside every undefined estimate or share.

The readable formats say ``not enough data (n = ...: why)`` in the cell (`annotate.report.cells`);
the JSON keeps the number ``null`` and adds ``"reason"`` so a program can tell "undefined" from
"not computed".
"""

from __future__ import annotations

from typing import Any

from annotate.report.cells import NO_VARIATION

__all__ = ["add_reasons"]

NO_UNITS = "not enough data: no item with two ratings (or no pair of votes) entered it"
NO_VOTES = "not enough data: no vote counted (n = 0)"


def add_reasons(node: Any) -> Any:
    """Walk the JSON document in place; returns it.

    An *estimate* object (``estimate`` and ``n_units`` keys) whose estimate is null gets ``reason``:
    no unit entered it, or (units but no variation) chance agreement is 1.  A *share* object (``share``
    and ``n``) with a null share gets the n = 0 reason.  Objects that already carry a reason keep it.
    """
    if isinstance(node, dict):
        if "estimate" in node and "n_units" in node and node["estimate"] is None:
            node.setdefault("reason", NO_UNITS if not node["n_units"] else f"undefined: {NO_VARIATION}")
        if "share" in node and "n" in node and node["share"] is None:
            node.setdefault("reason", NO_VOTES)
        for value in node.values():
            add_reasons(value)
    elif isinstance(node, list):
        for value in node:
            add_reasons(value)
    return node
