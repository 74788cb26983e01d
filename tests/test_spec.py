"""Session specs: every key validated, errors name the file, the key and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.spec import SpecError, load_spec, render_spec


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["pairwise", "single", "rubric"])
def test_rendered_specs_load(tmp_path: Path, kind: str) -> None:
    spec = load_spec(write(tmp_path, render_spec("demo", kind, seed=3)))
    assert spec.kind == kind
    assert spec.seed == 3
    assert spec.db == (tmp_path / "demo.db").resolve()
    if kind == "pairwise":
        assert spec.schema.labels == ("A", "B", "tie", "both_bad")
        assert spec.schema.level == "nominal"
    elif kind == "single":
        assert spec.schema.labels == tuple(str(g) for g in range(1, 11))
    else:
        assert [c.name for c in spec.schema.criteria] == [
            "helpfulness", "correctness", "coherence", "complexity", "verbosity"]
        assert all((c.low, c.high) == (0, 4) for c in spec.schema.criteria)
        assert spec.schema.level == "ordinal"


BAD = [
    ("[session]\nkind = 'pairwise'\nseeed = 1\n", "session.seeed", "did you mean 'seed'"),
    ("[session]\nkind = 'triage'\n", "session.kind", "one of pairwise, single, rubric, ranking"),
    ("[session]\nkind = 'ranking'\n", "labels.k", "k"),
    ("[sesion]\nkind = 'pairwise'\n", "sesion", "did you mean 'session'"),
    ("[plan]\noverlap = 2\n", "session", "section is missing"),
    ("[session]\nkind = 'pairwise'\nseed = 'x'\n", "session.seed", "an integer"),
    ("[session]\nkind = 'pairwise'\nguideline = '../../etc/passwd'\n", "session.guideline", "not a path"),
    ("[session]\nkind = 'pairwise'\ndb = '../elsewhere.db'\n", "session.db", "inside it"),
    ("[session]\nkind = 'pairwise'\ndb = '/tmp/x.db'\n", "session.db", "inside it"),
    ("[session]\nkind = 'single'\n[labels]\nscale = [5, 1]\n", "labels.scale", "low < high"),
    ("[session]\nkind = 'pairwise'\n[plan]\noverlap = 0\n", "plan.overlap", ">= 1"),
    ("[session]\nkind = 'pairwise'\n[plan]\ngold_rate = 1.5\n", "plan.gold_rate", "from 0 to 1"),
    ("[session]\nkind = 'pairwise'\n[experiment]\nmodes = ['sometimes']\n", "experiment.modes", "on_request"),
    ("[session]\nkind = 'rubric'\n[[labels.criteria]]\nname = 'a'\n[[labels.criteria]]\nname = 'a'\n",
     "labels.criteria", "distinct"),
    ("[session]\nkind = 'pairwise'\n[labels]\nscale = [1, 5]\n", "labels.scale", "scale of single grades"),
    ("[session\nkind = 'pairwise'\n", "file", "valid TOML"),
]


@pytest.mark.parametrize(("text", "key", "expected"), BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_specs_name_file_key_and_expectation(tmp_path: Path, text: str, key: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert info.value.key == key
    message = str(info.value)
    assert str(path) in message
    assert f"[{key}]" in message
    assert expected in message


def test_missing_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="does not exist"):
        load_spec(tmp_path / "nope.toml")
    path = tmp_path / "latin.toml"
    path.write_bytes(b"[session]\nkind = 'pairwise'\nname = 'caf\xe9'\n")
    with pytest.raises(SpecError, match="UTF-8"):
        load_spec(path)


def test_spec_is_frozen(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, render_spec("demo", "pairwise")))
    with pytest.raises(AttributeError):
        spec.seed = 4  # type: ignore[misc]
