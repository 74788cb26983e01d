"""Arena battles parsed by a worker process (`annotate.formats.battle_blocks`): the same records,
the same errors at the same lines and the same stored rows as a parse in the importing process,
over files of several blocks with every kind of line the worker hands back."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from formats_util import session

from annotate.formats import FormatError, import_items
from annotate.formats.battle_blocks import PARALLEL_BYTES, WorkerError, battle_values, default_workers
from annotate.formats.streaming import open_source
from annotate.session import open_store

WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")


def battle(k: int, rng: random.Random) -> dict[str, Any]:
    prompt = {"role": "user", "content": f"question {k % 700}: say something helpful"}
    return {"question_id": f"q{k:06d}", "model_a": rng.choice(["alpha-7b", "beta-13b", "gamma"]),
            "model_b": rng.choice(["delta-70b", "epsilon"]), "winner": rng.choice(WINNERS), "turn": 1,
            "judge": f"user_{rng.randrange(90)}", "anony": True, "language": "English",
            "conversation_a": [prompt, {"role": "assistant", "content": f"**reply** {k}\n- one\n- two " * 8}],
            "conversation_b": [prompt, {"role": "assistant", "content": f"# other {k}\nplain words " * 8}]}


def lines(n: int, seed: int = 5) -> list[str]:
    """n battles as JSON Lines (about 1.6 KB each: 2,000 of them span several 1 MiB blocks), with
    lines the worker does not parse itself among them: battles of another shape, blank lines, and
    a record with space around it."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        record = battle(k, rng)
        if k % 401 == 7:  # two turns: read by read_battle
            record["conversation_a"] = record["conversation_a"] * 2
            record["conversation_b"] = record["conversation_b"] * 2
        if k % 503 == 11:  # a name outside ASCII
            record["model_a"] = "modèle-ü"
        text = json.dumps(record)
        if k % 611 == 13:
            text = "  " + text + " "
        out.append(text)
        if k % 97 == 3:
            out.append("")
    return out


def write(path: Path, text_lines: list[str], bom: bool = False) -> Path:
    path.write_bytes(("\ufeff" if bom else "").encode() + "".join(t + "\n" for t in text_lines).encode("utf-8"))
    return path


@pytest.mark.parametrize("bom", [False, True])
def test_a_worker_gives_the_records_a_parse_here_gives(tmp_path: Path, bom: bool) -> None:
    path = write(tmp_path / "b.jsonl", lines(2500), bom=bom)
    assert path.stat().st_size > 2 << 20  # three blocks
    source = open_source(path, "jsonl")
    here = list(battle_values(source, 0))
    there = list(battle_values(source, 1))
    assert [r[:5] for r in there] == [r[:5] for r in here]
    # the worker leaves every other block's facts to the importing process (with_facts finds them)
    assert all(t[5] is None or t[5] == h[5] for t, h in zip(there, here, strict=True))
    assert any(t[5] is None for t in there if t[3] is not None) and any(t[5] is not None for t in there)
    assert len(here) == 2500 and [r[1] for r in here] == list(range(1, 2501))
    parsed = sum(r[3] is not None for r in here)
    assert 2400 < parsed < 2500  # most parsed into rows, the others as objects
    assert all(r[4] is not None and r[5] is not None for r in here if r[3] is not None)


@pytest.mark.parametrize("bad", [
    ("line", '{"question_id": "q1", "winner": '),  # broken JSON
    ("line", '{"question_id": "q1", "question_id": "q2"}'),  # a key twice
    ("bytes", b'{"question_id": "q\xff"}'),  # not UTF-8
])
def test_an_error_is_the_same_at_the_same_line(tmp_path: Path, bad: tuple[str, Any]) -> None:
    text_lines = lines(2200)
    at = 1900  # in the second block
    kind, value = bad
    path = tmp_path / "b.jsonl"
    if kind == "line":
        text_lines[at] = value
        write(path, text_lines)
    else:
        data = "".join(t + "\n" for t in text_lines).encode()
        start = data.index(text_lines[at].encode())
        path.write_bytes(data[:start] + value + b"\n" + data[start + len(text_lines[at]) + 1:])
    source = open_source(path, "jsonl")
    errors = []
    for workers in (0, 1):
        seen = []
        with pytest.raises(FormatError) as caught:
            seen.extend(r[0] for r in battle_values(source, workers))
        errors.append((str(caught.value), len(seen)))
    assert errors[0] == errors[1]
    assert f"line {at + 1}" in errors[0][0]


def test_the_line_named_is_the_file_line(tmp_path: Path) -> None:
    text_lines = lines(2200)
    text_lines[2000] = "{broken"
    path = write(tmp_path / "b.jsonl", text_lines)
    with pytest.raises(FormatError, match=r"line 2001\b"):
        list(battle_values(open_source(path, "jsonl"), 1))


def table(store: Any, sql: str) -> list[tuple[Any, ...]]:
    return store.db.execute(sql).fetchall()


def test_an_import_with_a_worker_stores_the_same_rows(project: Path) -> None:
    path = write(project / "battles.jsonl", lines(2500))
    stored = []
    for workers in (0, 1):
        spec = session(project, f"s{workers}")
        with open_store(spec) as store:
            report = import_items(store, spec.schema, path, format="arena", workers=workers)
            stored.append((report.summary(), report.warnings,
                           table(store, "SELECT id, kind, conversation, responses, category, gold, metadata,"
                                        " content_hash, source FROM items ORDER BY rowid"),
                           table(store, "SELECT source, rater, cohort, item_id, label, raw, shown_first"
                                        " FROM external_labels ORDER BY id"),
                           table(store, "SELECT * FROM item_facts ORDER BY rowid")))
    assert stored[0] == stored[1]
    assert len(stored[0][2]) == 2500 and len(stored[0][3]) == 2500


def test_a_worker_that_stops_fails_the_import_with_the_file_named(tmp_path: Path) -> None:
    path = write(tmp_path / "gone.jsonl", lines(50))
    source = open_source(path, "jsonl")
    path.unlink()  # the worker opens the file itself and finds nothing
    with pytest.raises(WorkerError, match=r"gone\.jsonl: the process parsing it stopped"):
        list(battle_values(source, 1))


def test_a_worker_only_for_a_large_file_of_json_lines(tmp_path: Path) -> None:
    small = write(tmp_path / "small.jsonl", lines(10))
    assert default_workers(open_source(small, "jsonl")) == 0
    large = write(tmp_path / "large.jsonl", lines(10))
    os.truncate(large, PARALLEL_BYTES)  # the size is all it looks at
    expected = 1 if len(os.sched_getaffinity(0)) >= 2 else 0
    assert default_workers(open_source(large, "jsonl")) == expected
    array = tmp_path / "large.json"
    array.write_text("[" + ",".join(lines(10)[:3]) + "]")
    os.truncate(array, PARALLEL_BYTES)
    assert default_workers(open_source(array, "json")) == 0
