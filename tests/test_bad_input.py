"""A corpus of malformed inputs: each gives a clear error naming the file, the line (or record)
and the field, and leaves the session file byte-identical."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from formats_util import DATA, cli, fingerprint, pair, session

from annotate.formats import MAX_TEXT_CHARS

BIG = "x" * (10 * 1024 * 1024)


def lines(*records: object) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records).encode()


def with_responses(item_id: str, a: object, b: object = "Fine.") -> dict:
    return pair(item_id, responses={"A": {"text": a}, "B": {"text": b}})


def arena_records() -> list[dict]:
    return json.loads((DATA / "arena_battles.json").read_text())


def mtbench_records() -> list[dict]:
    return [json.loads(line) for line in (DATA / "mtbench_judgments.jsonl").read_text().splitlines()]


@dataclass(frozen=True)
class Case:
    name: str
    file: str
    content: Callable[[], bytes]
    expected: tuple[str, ...]
    """Substrings of the error: always the location and the field, plus what was expected."""
    args: tuple[str, ...] = ()
    command: tuple[str, ...] = ("import",)


def _arena_missing_b() -> bytes:
    records = arena_records()
    del records[1]["conversation_b"]
    return json.dumps(records).encode()


def _arena_bad_role() -> bytes:
    records = arena_records()
    records[2]["conversation_a"][2]["role"] = "assistant"
    return json.dumps(records).encode()


def _mtbench_judge() -> bytes:
    records = mtbench_records()
    records[4]["judge"] = {"name": "expert_1"}
    return lines(*records)


CASES = [
    Case("broken JSON", "a.jsonl", lambda: lines(pair("a"), '{"id": "b", "prompt": "x",'),
         ("line 2", "broken JSON")),
    Case("invalid UTF-8", "a.jsonl", lambda: lines(pair("a"), pair("b")) + b'{"id": "c", "prompt": "caf\xe9"}\n',
         ("line 3", "byte 0xe9", "UTF-8")),
    Case("UTF-16", "a.jsonl", lambda: "\ufeff".encode("utf-16-le") + lines(pair("a")).decode().encode("utf-16-le"),
         ("UTF-16", "save the file as UTF-8")),
    Case("missing prompt", "a.jsonl", lambda: lines(pair("a"), {"id": "b", "responses": pair("b")["responses"]}),
         ("line 2", 'field "prompt"', "neither")),
    Case("missing responses", "a.jsonl", lambda: lines({"id": "b", "prompt": "Hi"}),
         ("line 1", 'field "responses"', "nothing")),
    Case("missing id", "a.jsonl", lambda: lines(pair("a"), {k: v for k, v in pair("b").items() if k != "id"}),
         ("line 2", 'field "id"')),
    Case("unknown field", "a.jsonl", lambda: lines({**pair("a"), "promt": "typo"}),
         ("line 1", 'field "promt"', 'did you mean "prompt"')),
    Case("unknown response field", "a.jsonl",
         lambda: lines(pair("a", responses={"A": {"txt": "x"}, "B": {"text": "y"}})),
         ("line 1", 'field "responses.A.txt"', 'did you mean "text"')),
    Case("duplicate ids", "a.jsonl", lambda: lines(pair("a"), pair("b"), pair("a")),
         ("line 3", 'field "id"', "first on line 1")),
    Case("empty response", "a.jsonl", lambda: lines(pair("a"), with_responses("b", "Ok", "")),
         ("line 2", 'field "responses.B.text"', 'expected a non-empty string, got ""')),
    Case("blank response", "a.jsonl", lambda: lines(with_responses("b", "  \n ")),
         ("line 1", 'field "responses.A.text"', "non-empty")),
    Case("10 MB field", "a.jsonl", lambda: lines(pair("a"), with_responses("b", BIG)),
         ("line 2", 'field "responses.A.text"', f"at most {MAX_TEXT_CHARS:,} characters", "10,485,760 characters")),
    Case("unknown gold label", "a.jsonl", lambda: lines(pair("a", gold="left")),
         ("line 1", 'field "gold"', "A, B, tie, both_bad", '"left"')),
    Case("prompt is a number", "a.jsonl", lambda: lines(pair("a", prompt=42)),
         ("line 1", 'field "prompt"', "got 42")),
    Case("id is a list", "a.jsonl", lambda: lines(pair(["a"])), ("line 1", 'field "id"', "a list")),
    Case("responses is a list", "a.jsonl", lambda: lines(pair("a", responses=["x", "y"])),
         ("line 1", 'field "responses"', "a JSON object")),
    Case("bad role", "a.jsonl",
         lambda: lines({"id": "c", "conversation": [{"role": "bot", "content": "hi"}],
                        "responses": pair("c")["responses"]}),
         ("line 1", 'field "conversation[0].role"', '"bot"')),
    Case("duplicate key", "a.jsonl", lambda: lines(pair("a"), '{"id": "b", "id": "c"}'),
         ("line 2", 'field "id"', "each key once")),
    Case("line is not an object", "a.jsonl", lambda: lines(pair("a"), [1, 2]), ("line 2", "a JSON object")),
    Case("NaN", "a.jsonl", lambda: b'{"id": "a", "prompt": NaN}\n', ("line 1", "NaN")),
    Case("lone surrogate", "a.jsonl", lambda: b'{"id": "a", "prompt": "x\\ud800y", "responses": {}}\n',
         ("line 1", 'field "prompt"', "lone surrogate")),
    Case("lone surrogate in metadata", "a.jsonl",
         lambda: lines(pair("a")).replace(b"}\n", b', "metadata": {"k": "\\udc80"}}\n'),
         ("line 1", 'field "metadata"', "lone surrogate")),
    Case("control character in id", "a.jsonl", lambda: lines(pair("a\nb")), ("line 1", 'field "id"', "printable")),
    Case("metadata not an object", "a.jsonl", lambda: lines(pair("a", metadata="x")),
         ("line 1", 'field "metadata"', "a JSON object")),
    Case("single item in a pairwise session", "a.jsonl",
         lambda: lines(pair("a", responses={"A": {"text": "only one"}})),
         ("line 1", 'field "responses"', "slots A and B", "slot A only")),
    Case("pretty-printed object", "a.json", lambda: json.dumps(pair("a"), indent=2).encode(),
         ("a single object spread over several lines",)),
    Case("array element not an object", "a.json", lambda: json.dumps([pair("a"), "b"]).encode(),
         ("record 2", "a JSON object")),
    Case("array record error", "a.json", lambda: json.dumps([pair("a"), pair("b", gold="C")]).encode(),
         ("record 2", 'field "gold"')),
    Case("mapped column does not exist", "a.csv", lambda: b"q,resp1,resp2\nHi,a,b\n",
         ('column "rsp2"', 'did you mean "resp2"', '"q", "resp1", "resp2"'),
         args=("--map", "prompt=q", "--map", "A=resp1", "--map", "B=rsp2")),
    Case("CSV row with extra fields", "a.csv", lambda: b"q,r1,r2\nHi,a,b\nHo,a,b,c\n",
         ("line 3", "3 fields, as in the header", "got 4"),
         args=("--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")),
    Case("CSV empty response", "a.csv", lambda: b"q,r1,r2\nHi,a,b\nHo,a,\n",
         ("line 3", 'column "r2"', "non-empty text for B"),
         args=("--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")),
    Case("CSV 10 MB cell", "a.csv", lambda: b"q,r1,r2\n" + b"Hi,a," + BIG.encode() + b"\n",
         ("line 2", 'column "r2"', "at most 2,000,000 characters"),
         args=("--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")),
    Case("CSV bad encoding", "a.csv", lambda: b"q,r1,r2\nHi,a,b\nHo,\x80,b\n", ("line 3", "byte 0x80")),
    Case("CSV unterminated quote", "a.csv", lambda: b'q,r1,r2\nHi,"a,b\n',
         ("line", "well-formed CSV"), args=("--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")),
    Case("arena record missing a field", "battles.json", _arena_missing_b,
         ("record 2", 'field "conversation_b"'), args=("--format", "arena")),
    Case("arena turns out of order", "battles.json", _arena_bad_role,
         ("record 3", 'field "conversation_a[2].role"', "a user message"), args=("--format", "arena")),
    Case("mtbench judge of the wrong type", "mt.jsonl", _mtbench_judge,
         ("line 5", 'field "judge"', '"expert_N"'), args=("--format", "mtbench")),
    Case("labels: unknown label", "votes.csv", lambda: b"item,rater,label\nn1,ann,A\nn1,bob,C\n",
         ("line 3", 'column "label"', '"C"'), args=("--cohort", "expert"), command=("labels", "import")),
    Case("labels: unknown item", "votes.csv", lambda: b"item,rater,label\nn1,ann,A\nnope,bob,B\n",
         ("line 3", 'column "item"', '"nope"'), args=("--cohort", "expert"), command=("labels", "import")),
    Case("labels: missing column", "votes.csv", lambda: b"item,who,label\nn1,ann,A\n",
         ('column "rater"', '"who"'), args=("--cohort", "expert"), command=("labels", "import")),
]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose session already holds items and votes, copied for each case."""
    folder = tmp_path_factory.mktemp("seed")
    spec = session(folder)
    from annotate.formats import import_items
    from annotate.session import open_store

    with open_store(spec) as store:
        import_items(store, spec.schema, DATA / "pairs_native.jsonl")
        import_items(store, spec.schema, DATA / "arena_battles.json", format="arena")
    return folder


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_refused_and_nothing_is_written(
    case: Case, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    from annotate.session import load_session

    spec = load_session("s")
    (tmp_path / case.file).write_bytes(case.content())
    before = fingerprint(spec)
    result = cli(*case.command, "s", case.file, *case.args)
    assert result.exit_code == 1, result.output
    error = result.stderr.strip()
    assert error.startswith(f"Error: {case.file}"), error[:300]
    assert error.count("\n") == 0 and len(error) < 600, "one short line, never the whole field"
    for part in case.expected:
        assert part in error, f"{part!r} not in {error!r}"
    assert fingerprint(spec) == before


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 20


def test_bom_is_accepted(project: Path) -> None:
    session(project)
    (project / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + lines(pair("a")))
    (project / "bom.csv").write_bytes(b"\xef\xbb\xbfprompt,A,B\nHi,a,b\n")
    assert "added 1 item" in cli("import", "s", "bom.jsonl").stdout
    assert "added 1 item" in cli("import", "s", "bom.csv").stdout


def test_large_text_under_the_limit_is_accepted(project: Path) -> None:
    session(project)
    (project / "big.jsonl").write_bytes(lines(with_responses("a", "y" * (MAX_TEXT_CHARS - 1))))
    assert "added 1 item" in cli("import", "s", "big.jsonl").stdout


def test_blank_lines_are_ignored(project: Path) -> None:
    session(project)
    (project / "gaps.jsonl").write_bytes(b"\n" + lines(pair("a")) + b"\n  \n" + lines(pair("b")))
    assert "added 2 items" in cli("import", "s", "gaps.jsonl").stdout
