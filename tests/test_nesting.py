"""Depth checks that never recurse, and the line on which a document nests too deep."""

from __future__ import annotations

from annotate.nesting import deep_line, too_deep


def test_too_deep_counts_lists_and_objects_and_never_recurses() -> None:
    value: object = 1
    for _ in range(50_000):
        value = [value]
    assert too_deep(value)
    assert not too_deep({"a": [{"b": 1}]}, limit=3) and too_deep({"a": [{"b": [1]}]}, limit=3)
    assert not too_deep("[[[[") and not too_deep(7)


def test_deep_line_skips_brackets_in_strings_and_comments() -> None:
    assert deep_line('{"a": "[[[[[[",\n"b": [[[1]]]}', limit=3) == 2
    assert deep_line('{"a": "[[[[[[\\" [[[["}', limit=3) is None
    toml = 'a = "[[[[[["\n# [[[[[[\nb = """\n[[[[[[\n"""\nc = [[[[1]]]]\n'
    assert deep_line(toml, limit=3, syntax="toml") == 6
    assert deep_line("x = '[[[['\n", limit=2, syntax="toml") is None
