"""The files of the corpus: each given to `annotate import`, `labels import` or `agreement` must be
refused with one line naming the file, the line (or record) and the field."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from formats_util import DATA, pair

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
