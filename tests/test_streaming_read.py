"""Reading a file a record at a time gives what reading it whole gives: the same records, lines and
errors (annotate.formats.streaming against annotate.formats.reading)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from annotate.formats.errors import FormatError
from annotate.formats.reading import read_table
from annotate.formats.streaming import open_source


def whole(path: Path) -> tuple:
    try:
        t = read_table(path)
    except FormatError as exc:
        return ("error", str(exc))
    return ("ok", t.container, [(r.data, r.line, r.index) for r in t.records], t.columns)


def streamed(path: Path) -> tuple:
    try:
        s = open_source(path)
        records = [(r.data, r.line, r.index) for r in s.records()]
        return ("ok", s.container, records, s.columns)
    except FormatError as exc:
        return ("error", str(exc))


CASES = {
 "a.jsonl": b'{"a": 1}\n\n{"b": 2}\r\n',
 "bad.jsonl": b'{"a": 1}\n{"b": \xff}\n',
 "bad2.jsonl": b'{"a": 1}\n{"b": 2\n',
 "pretty.jsonl": b'{\n "a": 1\n}\n',
 "dup.jsonl": b'{"a": 1, "a": 2}\n',
 "nan.jsonl": b'{"a": NaN}\n',
 "arr.json": b'  [ {"a": 1},\n {"b": "x"} ]  \n',
 "arr_empty.json": b'[]',
 "arr_bad.json": b'[{"a": 1},\n {"b": 2,}]',
 "arr_bad2.json": b'[{"a": 1} {"b": 2}]',
 "arr_trail.json": b'[{"a": 1}] x',
 "arr_notobj.json": b'[{"a": 1}, 5]',
 "arr_open.json": b'[{"a": 1},',
 "arr_str.json": b'[{"a": "b}]',
 "arr_utf.json": b'[{"a": "\xc3\xa9"},\n{"b": "\xe9"}]',
 "arr_dup.json": b'[{"a": 1, "a": 1}]',
 "bom.jsonl": b'\xef\xbb\xbf{"a": 1}\n',
 "u16.jsonl": b'\xff\xfe{\x00',
 "empty.json": b'',
 "ws.jsonl": b'\n\n  \n',
 "x.csv": b'id,prompt\r\n1,"hello\r\nworld"\r\n2,x\r\n\r\n',
 "cr.csv": b'id,prompt\r1,a\r2,b\r',
 "badq.csv": b'id,prompt\n1,"open\n2,x\n',
 "hdr.csv": b'id,prompt\n',
 "dupcol.csv": b'id,id\n1,2\n',
 "nf.csv": b'id,prompt\n1\n',
 "utf.csv": b'id,prompt\n1,ok\n2,\xe9t\xe9\n',
 "t.tsv": b'id\tprompt\n1\tx\n',
 "obj.json": b'{"a": 1}',
 "deep.json": b'[' + b'[' * 150 + b']' * 150 + b']',
 "deep.jsonl": b'{"a": ' + b'[' * 150 + b']' * 150 + b'}\n',
 "bignum.jsonl": b'{"a": ' + b'9' * 5000 + b'}\n',
}


@pytest.mark.parametrize("name", list(CASES))
def test_small_files(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(CASES[name])
    assert streamed(path) == whole(path)


def _spoil(data: bytes, at: float, byte: bytes) -> bytes:
    """`data` with the first non-ASCII byte after the share `at` of it replaced by `byte`."""
    k = int(len(data) * at)
    while data[k] < 0x80:
        k += 1
    return data[:k] + byte + data[k + 1:]


def big_files() -> dict[str, bytes]:
    """Files of several MB, so records and errors fall across the reader's chunks."""
    rng = random.Random(1)
    rows = [{"id": i, "text": "é" * rng.randint(0, 3000) + "x\n" * rng.randint(0, 3), "n": rng.random()}
            for i in range(3000)]
    array = ("[\n" + ",\n  ".join(json.dumps(o, ensure_ascii=False) for o in rows) + "\n]\n").encode()
    lines = "\n".join(json.dumps(o, ensure_ascii=False) for o in rows).encode()
    table = ("id,text\n" + "".join(f'{i},"{"é" * rng.randint(0, 2000)}\r\nmore"\n' for i in range(2000))).encode()
    cut = len(array) * 3 // 4
    return {
        "big.json": array, "big.jsonl": lines, "big.csv": table,
        "big_broken.json": array[:cut] + b"}" + array[cut:],
        "big_colon.json": array.replace(b'"n": ', b'"n" ', 1),
        "big_utf.json": _spoil(array, 2 / 3, b"\xff"), "big_utf.jsonl": _spoil(lines, 0.5, b"\xc3"),
        "big_utf.csv": _spoil(table, 2 / 3, b"\xfe"), "big_unclosed.csv": table + b'9,"never closed\n',
    }


def test_big_files(tmp_path: Path) -> None:
    for name, data in big_files().items():
        path = tmp_path / name
        path.write_bytes(data)
        assert streamed(path) == whole(path), name


@pytest.mark.parametrize("chunk", [1, 2, 5])
def test_json_lines_read_in_tiny_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """JSON Lines are decoded a block of whole lines at a time: lines and bad bytes that straddle
    the blocks are read and named as the whole-file reader reads and names them."""
    import annotate.formats.streaming as streaming

    monkeypatch.setattr(streaming, "_CHUNK", chunk)
    cases = {name: data for name, data in CASES.items() if name.endswith(".jsonl")}
    cases["late_bad.jsonl"] = '{"a": "é"}\n{"b": 2}\n\n{"c": "x\u00e9'.encode() + b'\xff"}'
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        assert streamed(path) == whole(path), name
