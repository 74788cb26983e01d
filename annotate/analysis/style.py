"""Style features of a response, for the style-controlled ranking (`annotate.analysis.style_control`).

The counting lives in `annotate.style_features` (outside this package, so an import that counts them does
not load the statistics and pandas); this module is its name in the analysis.
"""

from __future__ import annotations

from annotate.style_features import (
    FEATURES,
    TOKENIZER,
    count_features,
    count_tokens,
    features_of_texts,
    item_facts,
    normalised_difference,
    side_text,
)

__all__ = ["FEATURES", "TOKENIZER", "count_features", "count_tokens", "features_of_texts", "item_facts",
           "normalised_difference", "side_text"]
