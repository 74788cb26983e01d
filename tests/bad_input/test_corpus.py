"""The corpus as a whole: every case named once, every kind of bad input of the issue present.

Run `pytest tests/bad_input -q -rA -k corpus -s` to print its size (`corpus:` lines)."""

from __future__ import annotations

from .file_cases import CASES
from .session_file_cases import FILE_CASES
from .spec_cases import SESSION_CASES
from .test_disk_full import GROWING
from .test_read_only import READ_ONLY_CASES, READS, WRITES


def corpus_names() -> list[str]:
    return ([c.name for c in CASES] + [c.name for c in SESSION_CASES] + [c.name for c in FILE_CASES]
            + [c.name for c in READ_ONLY_CASES] + [f"disk full: {' '.join(c[:2])}" for c in GROWING]
            + [f"file-size limit: {' '.join(c[:2])}" for c in GROWING] + ["file-size limit: backup"])


def test_the_corpus_names_every_kind_of_bad_input_of_the_issue() -> None:
    """An empty response was bad input once; since issue 11 it is data (a model that returned nothing,
    `test_an_empty_response_is_accepted_and_counted`), and a response text that is not a string is the case."""
    names = corpus_names()
    assert len(names) == len(set(names)) and len(names) >= 20
    for kind in ("broken JSON", "invalid UTF-8", "UTF-16", "BOM in the middle", "missing prompt", "unknown field",
                 "duplicate ids", "null response text", "10 MB field", "unknown gold label", "labels: unknown label",
                 "prompt is a number", "spec: misspelt key", "guideline: no front matter",
                 "deeply nested JSON", "mapped: deeply nested JSON", "labels: deeply nested JSON",
                 "agreement: deeply nested JSON", "spec: deeply nested TOML", "integer id of 401 digits",
                 "spec: session name with a trailing newline", "labels: rater name with a trailing newline",
                 "file: truncated mid-page", "file: items page damaged", "file: zeroed header",
                 "file: its folder missing", "file: -wal deleted after its writer was killed",
                 "read-only: the file", "read-only: its folder", "read-only: the file system",
                 "disk full: import s", "file-size limit: import s"):
        assert kind in names, kind


def test_the_corpus_size() -> None:
    """How many inputs the corpus tries and how many command runs that makes (printed with -s)."""
    from .session_file_cases import FILE_COMMANDS

    runs = (len(CASES) + sum(len(c.commands) for c in SESSION_CASES) + sum(len(c.commands) for c in FILE_CASES)
            + sum(1 for c in FILE_CASES if c.as_copy) + len(READ_ONLY_CASES) * (len(READS) + len(WRITES))
            + 2 * len(GROWING) + 1)
    print(f"\ncorpus: {len(corpus_names())} malformed inputs, {runs} command runs"
          f" ({len(FILE_COMMANDS)} commands per broken session file)")
    assert runs > len(corpus_names())
