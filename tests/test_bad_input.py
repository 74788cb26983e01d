"""A corpus of malformed inputs: each gives a clear error naming the file, the line (or record)
and the field, and leaves the session file byte-identical.

Two lists, every case named: `CASES`, files given to `annotate import` and `annotate labels import`;
`SESSION_CASES`, a broken spec or guideline in the project, tried with every command that reads it
(`status`, `import`, `labels import`, `start`, `plan`, `report`, `export`, `adjudicate`, `init`).
"""

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
    session: bool = True
    """The command takes SESSION before the file (`agreement` takes the file alone)."""


def nested(depth: int, inner: str = "1") -> str:
    """A JSON value nested `depth` lists deep."""
    return "[" * depth + inner + "]" * depth


DEEP = 100_000
"""Far past Python's recursion limit: the JSON parser itself raises RecursionError."""
MAPPED = ("--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")


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
    Case("BOM in the middle", "a.jsonl", lambda: lines(pair("a")) + b"\xef\xbb\xbf" + lines(pair("b")),
         ("line 2", "BOM")),
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
    Case("null response text", "a.jsonl", lambda: lines(pair("a"), with_responses("b", "Ok", None)),
         ("line 2", 'field "responses.B.text"', 'expected a string ("" for a model that returned nothing), got null')),
    Case("response without text", "a.jsonl",
         lambda: lines(pair("a", responses={"A": {"model": "m"}, "B": {"text": "y"}})),
         ("line 1", 'field "responses.A.text"', "nothing")),
    Case("blank prompt", "a.jsonl", lambda: lines(pair("b", prompt="  \n ")),
         ("line 1", 'field "prompt"', "non-empty")),
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
    Case("CSV empty prompt", "a.csv", lambda: b"q,r1,r2\nHi,a,b\n,a,\n",
         ("line 3", 'column "q"', "non-empty text for prompt"),
         args=("--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")),
    Case("CSV 10 MB cell", "a.csv", lambda: b"q,r1,r2\n" + b"Hi,a," + BIG.encode() + b"\n",
         ("line 2", 'column "r2"', "at most 2,000,000 characters"),
         args=("--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")),
    Case("CSV bad encoding", "a.csv", lambda: b"q,r1,r2\nHi,a,b\nHo,\x80,b\n", ("line 3", "byte 0x80")),
    Case("CSV unterminated quote", "a.csv", lambda: b'q,r1,r2\nHi,"a,b\n',
         ("line", "well-formed CSV"), args=("--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")),
    Case("CSV quote never closed mid-file", "a.csv",
         lambda: b'q,r1,r2\nHi,a,b\nHo,"a,b\nHum,a,b\nHey,a,b\n',
         ("line 3:", "never closed", "read on to the end, line 5"),
         args=("--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")),
    Case("labels: CSV quote never closed", "votes.csv",
         lambda: b'item,rater,label\nn1,ann,A\nn1,"bob,B\nn1,cy,A\n',
         ("line 3:", "never closed"), args=("--cohort", "expert"), command=("labels", "import")),
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
    Case("deeply nested JSON", "a.jsonl",
         lambda: lines(pair("a"), f'{{"id": "b", "prompt": "x", "metadata": {{"k": {nested(DEEP)}}}}}'),
         ("line 2", "nested at most 100 levels deep")),
    Case("JSON nested just under the recursion limit", "a.jsonl",
         lambda: lines(pair("a", metadata={"k": json.loads(nested(900))})), ("line 1", "nested at most 100 levels")),
    Case("deeply nested JSON array", "a.json",
         lambda: ("[" + json.dumps(pair("a")) + ",\n" + json.dumps(pair("b"))[:-1] + ',\n"metadata": '
                  + nested(DEEP) + "}]").encode(), ("line 3", "nested at most 100 levels deep")),
    Case("mapped: deeply nested JSON", "a.jsonl",
         lambda: lines({"q": "x", "r1": "a", "r2": "b"}, f'{{"q": "x", "r1": "a", "r2": {nested(DEEP)}}}'),
         ("line 2", "nested at most 100 levels deep"), args=MAPPED),
    Case("arena: deeply nested JSON", "battles.json",
         lambda: json.dumps(arena_records())[:-1].encode() + b", " + nested(DEEP).encode() + b"]",
         ("line 1", "nested at most 100 levels deep"), args=("--format", "arena")),
    Case("labels: deeply nested JSON", "votes.jsonl",
         lambda: lines({"item": "n1", "rater": "ann", "label": "A"}, f'{{"item": "n1", "rater": "b", "label": '
                                                                       f'{nested(DEEP)}}}'),
         ("line 2", "nested at most 100 levels deep"), args=("--cohort", "expert"), command=("labels", "import")),
    Case("suggestions: deeply nested JSON", "judge.jsonl",
         lambda: f'{{"item": "n1", "rater": "m", "label": {nested(DEEP)}}}\n'.encode(),
         ("line 1", "nested at most 100 levels deep"), args=("--as-suggestions",), command=("labels", "import")),
    Case("agreement: deeply nested JSON", "ratings.jsonl",
         lambda: lines({"unit": 1, "rater": "a", "label": 1}, f'{{"unit": 1, "rater": "b", "label": {nested(DEEP)}}}'),
         ("line 2", "nested at most 100 levels deep"), command=("agreement",), session=False),
    Case("agreement: deeply nested JSON array", "ratings.json",
         lambda: f'[{{"unit": 1, "rater": "a", "label": 1}},\n{nested(DEEP)}]'.encode(),
         ("line 2", "nested at most 100 levels deep"), command=("agreement",), session=False),
    Case("integer id of 401 digits", "a.jsonl",
         lambda: lines(pair("a")) + b'{"id": ' + b"7" * 401 + b', "prompt": "x", "responses": {}}\n',
         ("line 2", 'field "id"', "at most 256 characters", "(401 characters)")),
    Case("integer id past Python's digit limit", "a.jsonl",
         lambda: b'{"id": ' + b"7" * 5000 + b', "prompt": "x", "responses": {}}\n',
         ("line 1", "a number of more than 4,300 digits")),
    Case("mapped: integer id of 401 digits", "a.json",
         lambda: ('[{"i": ' + "7" * 401 + ', "q": "x", "r1": "a", "r2": "b"}]').encode(),
         ("record 1", '"i"', "at most 256 characters"), args=("--map", "id=i", *MAPPED)),
    Case("labels: integer item id of 401 digits", "votes.jsonl",
         lambda: ('{"item": ' + "7" * 401 + ', "rater": "ann", "label": "A"}\n').encode(),
         ("line 1", '"item"', "at most 256 characters"), args=("--cohort", "expert"), command=("labels", "import")),
    Case("labels: rater name with a trailing newline", "votes.jsonl",
         lambda: lines({"item": "n1", "rater": "alice", "label": "A"},
                       {"item": "n1", "rater": "alice\n", "label": "B"}),
         ("line 2", '"rater"', "printable"), args=("--cohort", "expert"), command=("labels", "import")),
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
    result = cli(*case.command, *(("s",) if case.session else ()), case.file, *case.args)
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


def test_an_empty_response_is_accepted_and_counted(project: Path) -> None:
    """Models do return nothing: an empty or blank response is data, imported, counted and listed."""
    session(project)
    (project / "empty.jsonl").write_bytes(lines(pair("a"), with_responses("b", "Ok", ""), with_responses("c", " \n")))
    (project / "empty.csv").write_bytes(b"q,r1,r2\nHi,a,\n")
    result = cli("import", "s", "empty.jsonl")
    assert result.exit_code == 0, result.output
    assert "added 3 items (0 unchanged; 2 empty responses) from empty.jsonl" in result.stdout
    assert "2 empty responses (a model that returned nothing)" in result.stderr and "b (B); c (A)" in result.stderr
    result = cli("import", "s", "empty.csv", "--map", "prompt=q", "--map", "A=r1", "--map", "B=r2")
    assert "added 1 item (0 unchanged; 1 empty response)" in result.stdout


def test_blank_lines_are_ignored(project: Path) -> None:
    session(project)
    (project / "gaps.jsonl").write_bytes(b"\n" + lines(pair("a")) + b"\n  \n" + lines(pair("b")))
    assert "added 2 items" in cli("import", "s", "gaps.jsonl").stdout


# -- a broken spec or guideline, through every command that reads it ------------------------------

SPEC_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("status", "s"),
    ("import", "s", "ok.jsonl"),
    ("labels", "import", "s", "votes.csv", "--cohort", "expert"),
    ("start", "s", "--annotator", "alice"),
    ("plan", "s", "--annotators", "alice,bob", "--overlap", "2"),
    ("report", "s", "--bootstrap", "0"),
    ("export", "s"),
    ("adjudicate", "s", "--annotator", "carol"),
)
"""Every command that loads the spec: each must refuse a broken one before it opens the session file."""

GUIDELINE_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("start", "s", "--annotator", "alice"),
    ("adjudicate", "s", "--annotator", "carol"),
    ("init", "other", "--kind", "pairwise", "--guideline", "house"),
)
"""Every command that needs the guideline: each must refuse a broken one before it writes anything."""


def edit_spec(project: Path, old: str, new: str) -> None:
    spec = project / "sessions" / "s.toml"
    text = spec.read_text(encoding="utf-8")
    assert old in text, old
    spec.write_text(text.replace(old, new, 1), encoding="utf-8")


def house_guideline(text: bytes | str) -> Callable[[Path], None]:
    """Use guideline `house` (guidelines/house.md in the project) with this content."""

    def setup(project: Path) -> None:
        edit_spec(project, 'guideline = "pairwise-chat"', 'guideline = "house"')
        (project / "guidelines").mkdir(exist_ok=True)
        path = project / "guidelines" / "house.md"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())

    return setup


def _spec_latin1(project: Path) -> None:
    spec = project / "sessions" / "s.toml"
    spec.write_bytes(spec.read_bytes().replace(b"# annotate session spec", b"# caf\xe9 session spec"))


def _db_link_out(project: Path) -> None:
    outside = project.parent / f"{project.name}-outside"
    outside.mkdir()
    (outside / "elsewhere.db").write_bytes(b"")
    (project / "sessions" / "link.db").symlink_to(outside / "elsewhere.db")
    edit_spec(project, 'db = "s.db"', 'db = "link.db"')


def _spec_link_out(project: Path) -> None:
    outside = project.parent / f"{project.name}-outside"
    outside.mkdir()
    spec = project / "sessions" / "s.toml"
    (outside / "s.toml").write_bytes(spec.read_bytes())
    spec.unlink()
    spec.symlink_to(outside / "s.toml")


def _guideline_link_out(project: Path) -> None:
    outside = project.parent / f"{project.name}-outside"
    outside.mkdir()
    (outside / "house.md").write_text("---\nid: house\nversion: 1\n---\nread me\n")
    house_guideline("")(project)
    (project / "guidelines" / "house.md").unlink()
    (project / "guidelines" / "house.md").symlink_to(outside / "house.md")


def _guideline_missing(project: Path) -> None:
    edit_spec(project, 'guideline = "pairwise-chat"', 'guideline = "nowhere"')


@dataclass(frozen=True)
class SessionCase:
    name: str
    setup: Callable[[Path], None]
    """Breaks something in the project folder (a copy of the seeded one)."""
    names: str
    """The file the error must name (relative to the project)."""
    expected: tuple[str, ...]
    """Substrings of the error: the line or key, and what was expected."""
    commands: tuple[tuple[str, ...], ...] = SPEC_COMMANDS


SESSION_CASES = [
    SessionCase("spec: misspelt key", lambda p: edit_spec(p, "seed =", "seeed ="), "sessions/s.toml",
                ("[session.seeed]", "no such key", "did you mean 'seed'")),
    SessionCase("spec: misspelt section", lambda p: edit_spec(p, "[experiment]", "[experimnet]"), "sessions/s.toml",
                ("[experimnet]", "did you mean 'experiment'")),
    SessionCase("spec: wrong type", lambda p: edit_spec(p, "seed = 1", 'seed = "one"'), "sessions/s.toml",
                ("[session.seed]", "an integer", "'one'")),
    SessionCase("spec: unknown display mode", lambda p: edit_spec(p, 'modes = ["none"]', 'modes = ["sometimes"]'),
                "sessions/s.toml", ("[experiment.modes]", "on_request")),
    SessionCase("spec: broken TOML", lambda p: edit_spec(p, "[session]", "[session"), "sessions/s.toml",
                ("valid TOML", "line 2")),
    SessionCase("spec: duplicate key", lambda p: edit_spec(p, "seed = 1", "seed = 1\nseed = 2"), "sessions/s.toml",
                ("valid TOML", "line 7")),
    SessionCase("spec: not UTF-8", _spec_latin1, "sessions/s.toml", ("UTF-8", "line 1: byte 0xe9")),
    SessionCase("spec: db outside its folder", lambda p: edit_spec(p, 'db = "s.db"', 'db = "../s.db"'),
                "sessions/s.toml", ("[session.db]", "inside it")),
    SessionCase("spec: db a symbolic link out of its folder", _db_link_out, "sessions/s.toml",
                ("[session.db]", "symbolic link", "outside it")),
    SessionCase("spec: guideline given as a path",
                lambda p: edit_spec(p, 'guideline = "pairwise-chat"', 'guideline = "../../etc/passwd"'),
                "sessions/s.toml", ("[session.guideline]", "not a path")),
    SessionCase("spec: a symbolic link out of sessions/", _spec_link_out, "sessions/s.toml",
                ("symbolic link", "outside")),
    SessionCase("spec: deeply nested TOML", lambda p: edit_spec(p, "[experiment]", f"x = {nested(DEEP)}\n[experiment]"),
                "sessions/s.toml", ("valid TOML", "nested at most 100 levels deep", "line 13 is deeper")),
    SessionCase("spec: TOML nested just under the recursion limit",
                lambda p: edit_spec(p, "[experiment]", f"x = {nested(500)}\n[experiment]"),
                "sessions/s.toml", ("valid TOML", "nested at most 100 levels deep", "line 13 is deeper")),
    SessionCase("spec: deeply nested inline table",
                lambda p: edit_spec(p, "[experiment]", "x = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n[experiment]"),
                "sessions/s.toml", ("valid TOML", "nested at most 100 levels deep")),
    SessionCase("spec: session name with a trailing newline", lambda p: edit_spec(p, 'name = "s"', 'name = "s\\n"'),
                "sessions/s.toml", ("[session.name]", "letters, digits")),
    SessionCase("spec: guideline id with a trailing newline",
                lambda p: edit_spec(p, 'guideline = "pairwise-chat"', 'guideline = "pairwise-chat\\n"'),
                "sessions/s.toml", ("[session.guideline]",)),
    SessionCase("guideline: no front matter", house_guideline("# House rules\n\nPick the better one.\n"),
                "guidelines/house.md", ("line 1", "expected '---' opening the front matter"), GUIDELINE_COMMANDS),
    SessionCase("guideline: front matter never closed", house_guideline("---\nid: house\nversion: 1\n"),
                "guidelines/house.md", ("never closed",), GUIDELINE_COMMANDS),
    SessionCase("guideline: no version", house_guideline("---\nid: house\ntitle: House\n---\nbody\n"),
                "guidelines/house.md", ("missing 'version'",), GUIDELINE_COMMANDS),
    SessionCase("guideline: bad front matter line", house_guideline("---\nid: house\nversion 2\n---\nbody\n"),
                "guidelines/house.md", ("line 3", "'key: value'"), GUIDELINE_COMMANDS),
    SessionCase("guideline: id differs from its file", house_guideline("---\nid: other\nversion: 1\n---\nbody\n"),
                "guidelines/house.md", ("front matter id is 'other'", "expected 'house'"), GUIDELINE_COMMANDS),
    SessionCase("guideline: not UTF-8", house_guideline(b"---\nid: house\nversion: 1\n---\ncaf\xe9\n"),
                "guidelines/house.md", ("line 5: not UTF-8", "byte 0xe9"), GUIDELINE_COMMANDS),
    SessionCase("guideline: a symbolic link out of the project", _guideline_link_out, "guidelines/house.md",
                ("symbolic link", "outside"), GUIDELINE_COMMANDS),
    SessionCase("guideline: no such file", _guideline_missing, "nowhere.md", ("no file nowhere.md",),
                GUIDELINE_COMMANDS[:2]),
]


def session_files(project: Path) -> dict[str, str]:
    """SHA-256 of every file under sessions/ (the session file, its -wal and -shm, the specs)."""
    import hashlib

    return {
        str(path.relative_to(project)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted((project / "sessions").iterdir()) if path.is_file()
    }


@pytest.mark.parametrize("case", SESSION_CASES, ids=[c.name for c in SESSION_CASES])
def test_broken_spec_or_guideline_is_refused_by_every_command_and_nothing_is_written(
    case: SessionCase, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    project = tmp_path / "project"
    shutil.copytree(seeded / "sessions", project / "sessions")
    monkeypatch.chdir(project)
    (project / "ok.jsonl").write_bytes(lines(pair("fresh")))
    (project / "votes.csv").write_bytes(b"item,rater,label\nn1,zed,A\n")
    case.setup(project)
    before = session_files(project)
    for command in case.commands:
        result = cli(*command)
        error = result.stderr.strip()
        assert result.exit_code == 1, f"{command}: {result.output}"
        assert error.startswith("Error: ") and error.count("\n") == 0, f"{command}: {error!r}"
        assert case.names in error, f"{command}: the error does not name {case.names}: {error!r}"
        for part in case.expected:
            assert part in error, f"{command}: {part!r} not in {error!r}"
        assert session_files(project) == before, f"{command} changed the session files"
    assert not (project / "sessions" / "other.toml").exists()


def test_status_says_a_broken_guideline_is_not_usable(seeded: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    house_guideline("no front matter here\n")(tmp_path)
    before = session_files(tmp_path)
    result = cli("status", "s")
    assert result.exit_code == 0
    assert "guideline NOT USABLE" in result.stdout and "house.md: line 1" in result.stdout
    assert session_files(tmp_path) == before


def test_a_spec_with_a_byte_order_mark_is_read(seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "sessions" / "s.toml"
    spec.write_bytes(b"\xef\xbb\xbf" + spec.read_bytes())
    result = cli("status", "s")
    assert result.exit_code == 0, result.output
    assert "guideline pairwise-chat v" in result.stdout
    result = cli("plan", "s", "--annotators", "alice,bob", "--overlap", "2")
    assert result.exit_code == 0, result.output
    assert spec.read_bytes().startswith(b"\xef\xbb\xbf")  # the [plan] rewrite keeps the file as it was
    assert 'annotators = ["alice", "bob"]' in spec.read_text(encoding="utf-8-sig")


def test_the_corpus_names_every_kind_of_bad_input_of_the_issue() -> None:
    """An empty response was bad input once; since issue 11 it is data (a model that returned nothing,
    `test_an_empty_response_is_accepted_and_counted`), and a response text that is not a string is the case."""
    names = [c.name for c in CASES] + [c.name for c in SESSION_CASES]
    assert len(names) == len(set(names)) and len(names) >= 20
    for kind in ("broken JSON", "invalid UTF-8", "UTF-16", "BOM in the middle", "missing prompt", "unknown field",
                 "duplicate ids", "null response text", "10 MB field", "unknown gold label", "labels: unknown label",
                 "prompt is a number", "spec: misspelt key", "guideline: no front matter"):
        assert kind in names, kind


EMPTY_FILES = {
    "empty.jsonl": b"", "blank.jsonl": b"\n  \n", "empty.json": b"[]", "empty.csv": b"",
    "header.csv": b"id,prompt,A,B\n", "votes.csv": b"item,rater,label\n",
}


EMPTY_COMMANDS = {
    "items": ("import",), "labels": ("labels", "import", "--cohort", "crowd"),
    "suggestions": ("labels", "import", "--as-suggestions"),
}


@pytest.mark.parametrize("what", sorted(EMPTY_COMMANDS))
@pytest.mark.parametrize("name", sorted(EMPTY_FILES))
def test_a_file_without_records_is_a_warning_and_writes_nothing(
    what: str, name: str, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    from annotate.session import load_session

    spec = load_session("s")
    (tmp_path / name).write_bytes(EMPTY_FILES[name])
    before = fingerprint(spec)
    result = cli(*EMPTY_COMMANDS[what], "s", name)
    assert result.exit_code == 0, result.output
    header = " (only a header)" if name in ("header.csv", "votes.csv") else ""
    assert result.stderr == f"warning: {name} holds no records{header}\n"
    assert result.stdout.startswith(f"added 0 {what} (0 unchanged)")
    assert fingerprint(spec) == before


# -- an output file that is a session's own file -----------------------------------------------------


def _link_to_db(project: Path) -> str:
    (project / "link.csv").symlink_to(project / "sessions" / "s.db")
    return "link.csv"


def _hard_link_to_db(project: Path) -> str:
    import os

    os.link(project / "sessions" / "s.db", project / "copy.csv")
    return "copy.csv"


def _another_session(project: Path) -> str:
    from annotate.session import create_session

    create_session("other", "pairwise", seed=2, folder=project / "sessions")
    return "sessions/other.db"


OVERWRITE_TARGETS: dict[str, Callable[[Path], str]] = {
    "the spec": lambda p: "sessions/s.toml",
    "the database": lambda p: "sessions/s.db",
    "the -wal file": lambda p: "sessions/s.db-wal",
    "the -shm file": lambda p: "sessions/s.db-shm",
    "the database through ..": lambda p: "sessions/../sessions/s.db",
    "the database by its absolute path": lambda p: str(p / "sessions" / "s.db"),
    "the spec in other letter case": lambda p: "sessions/S.TOML",
    "a symbolic link to the database": _link_to_db,
    "a hard link to the database": _hard_link_to_db,
    "another session's database": _another_session,
}
"""Each returns the path to give -o (after making any link it needs)."""

OUTPUT_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("export", "s", "-o", "{}"),
    ("export", "s", "--format", "jsonl", "-o", "{}", "--force"),
    ("export", "s", "--what", "items", "--format", "parquet", "-o", "{}", "--force"),
    ("report", "s", "-o", "{}", "--force", "--bootstrap", "0"),
    ("report", "s", "--format", "html", "-o", "{}", "--bootstrap", "0"),
)
"""Every command option that writes a file, with and without --force."""


@pytest.mark.parametrize("target", sorted(OVERWRITE_TARGETS))
def test_no_command_writes_over_a_session_file(
    target: str, seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    project = tmp_path / "project"
    shutil.copytree(seeded / "sessions", project / "sessions")
    monkeypatch.chdir(project)
    path = OVERWRITE_TARGETS[target](project)
    before = session_files(project)
    for command in OUTPUT_COMMANDS:
        args = [part.format(path) for part in command]
        result = cli(*args)
        error = result.stderr.strip()
        assert result.exit_code == 1, f"{args}: {result.output}"
        assert error.startswith(f"Error: {path}: that is the ") and error.count("\n") == 0, f"{args}: {error!r}"
        assert "not even with --force" in error
        assert session_files(project) == before, f"{args} changed the session files"
    assert sorted(p.name for p in project.iterdir() if p.name not in ("link.csv", "copy.csv")) == ["sessions"]


# -- names: `$` in a regular expression matches before a trailing newline -------------------------


def test_an_annotator_name_with_a_trailing_newline_is_refused(
    seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`start`, `adjudicate` and `demo` check --annotator with the same function; `adjudicate --list`
    shows it without opening a screen."""
    import shutil

    from annotate.cli.common import annotator_name

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    before = session_files(tmp_path)
    result = cli("adjudicate", "s", "--list", "--annotator", "carol\n")
    assert result.exit_code == 2, result.output
    assert "--annotator" in result.stderr and "'carol\\n'" in result.stderr
    assert session_files(tmp_path) == before
    assert annotator_name("carol") == "carol"


def test_a_planned_annotator_name_with_a_trailing_newline_is_refused(
    seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    shutil.copytree(seeded / "sessions", tmp_path / "sessions")
    monkeypatch.chdir(tmp_path)
    edit_spec(tmp_path, "annotators = []", 'annotators = ["alice\\n", "bob"]')
    before = session_files(tmp_path)
    result = cli("plan", "s", "--overlap", "2")
    assert result.exit_code == 1 and "annotator name 'alice\\n'" in result.stderr, result.output
    assert session_files(tmp_path) == before
    from annotate.plan import ANNOTATOR_NAME
    from annotate.session import create_session

    assert not ANNOTATOR_NAME.match("alice\n")
    with pytest.raises(ValueError, match="a session name"):
        create_session("s2\n", "pairwise", folder=tmp_path / "sessions")
    assert not (tmp_path / "sessions" / "s2\n.toml").exists()
