"""Guideline documents: the shipped ones parse; front matter errors name file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.guidelines import GuidelineError, find_guideline, list_guidelines, load_guideline, parse_guideline


@pytest.mark.parametrize(("gid", "kind"), [("pairwise-chat", "pairwise"), ("single-grade", "single"),
                                           ("rubric-helpsteer", "rubric")])
def test_shipped_guidelines_load(gid: str, kind: str) -> None:
    guideline = load_guideline(gid)
    assert guideline.kind == kind
    assert guideline.version
    assert len(guideline.body) > 500


def test_pairwise_guideline_defines_the_four_outcomes() -> None:
    body = load_guideline("pairwise-chat").body.lower()
    for phrase in ("left better", "right better", "tie", "both bad", "refus"):
        assert phrase in body


def test_project_guideline_overrides_shipped(tmp_path: Path) -> None:
    (tmp_path / "guidelines").mkdir()
    (tmp_path / "guidelines" / "pairwise-chat.md").write_text("---\nid: pairwise-chat\nversion: 9\n---\nours\n")
    assert load_guideline("pairwise-chat", tmp_path).version == "9"
    assert {g.id for g in list_guidelines(tmp_path)} >= {"pairwise-chat", "single-grade"}


@pytest.mark.parametrize(("text", "message"), [
    ("# no front matter\n", "line 1"),
    ("---\nid: x\nversion: 1\n", "never closed"),
    ("---\nid: x\n---\nbody\n", "missing 'version'"),
    ("---\nid: x\nversion 1\n---\n", "line 3"),
    ("---\nid: ../x\nversion: 1\n---\n", "not a plain name"),
])
def test_bad_front_matter(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "g.md"
    path.write_text(text)
    with pytest.raises(GuidelineError, match=message) as info:
        parse_guideline(path)
    assert str(path) in str(info.value)


def test_ids_are_not_paths(tmp_path: Path) -> None:
    with pytest.raises(GuidelineError, match="plain name"):
        find_guideline("../../etc/passwd", tmp_path)


def test_form_feed_and_unicode_separators_do_not_break_lines(tmp_path: Path) -> None:
    path = tmp_path / "g.md"
    path.write_text("---\nid: g\nversion: 2\ntitle: a\x0cb\u2028c\n---\nbody\x1cmore\n", encoding="utf-8")
    guideline = parse_guideline(path)
    assert guideline.title == "a\x0cb\u2028c"
    assert guideline.body.startswith("body\x1cmore")
    bad = tmp_path / "bad.md"
    bad.write_text("---\nid: g\x0b\nversion 2\n---\n", encoding="utf-8")
    with pytest.raises(GuidelineError, match="line 3"):
        parse_guideline(bad)
