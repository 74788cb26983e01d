"""The corpus as a whole: every case named once, every kind of bad input of the issue present."""

from __future__ import annotations

from .file_cases import CASES
from .spec_cases import SESSION_CASES


def test_the_corpus_names_every_kind_of_bad_input_of_the_issue() -> None:
    """An empty response was bad input once; since issue 11 it is data (a model that returned nothing,
    `test_an_empty_response_is_accepted_and_counted`), and a response text that is not a string is the case."""
    names = [c.name for c in CASES] + [c.name for c in SESSION_CASES]
    assert len(names) == len(set(names)) and len(names) >= 20
    for kind in ("broken JSON", "invalid UTF-8", "UTF-16", "BOM in the middle", "missing prompt", "unknown field",
                 "duplicate ids", "null response text", "10 MB field", "unknown gold label", "labels: unknown label",
                 "prompt is a number", "spec: misspelt key", "guideline: no front matter"):
        assert kind in names, kind
