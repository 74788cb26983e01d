"""The Arena bulk path: plain battles staged from their values store what read_battle's Items would.

`plain_battle` may only accept what `read_battle` accepts, and `battle_row` must write the bytes
and content hash `item_row` writes for that Item; the leak scan, which builds an Item only for a
response a term may match in (and reads a batch back for a late model name only when its words
can begin one), must find what a scan of every item finds.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from formats_util import session
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotate.formats import FormatError, import_items
from annotate.formats.arena import read_battle
from annotate.formats.arena_batch import battle_item, battle_row, plain_battle
from annotate.formats.leaks import may_mention, names_may_begin, response_texts
from annotate.formats.lookalikes import fold
from annotate.formats.reading import Record
from annotate.formats.word_starts import word_keys
from annotate.model import Item
from annotate.session import open_store
from annotate.store.codec import item_row

_MISSING = object()


def battle(qid: str = "q1", prompt: str = "say hello", a: str = "hello", b: str = "hi there", *,
           model_a: str = "alpha-7b", model_b: str = "beta-13b", judge: str = "u1", winner: str = "model_a",
           turn: Any = 1, language: Any = "English", anony: Any = True) -> dict[str, Any]:
    record: dict[str, Any] = {
        "question_id": qid, "model_a": model_a, "model_b": model_b, "winner": winner, "judge": judge,
        "conversation_a": [{"role": "user", "content": prompt}, {"role": "assistant", "content": a}],
        "conversation_b": [{"role": "user", "content": prompt}, {"role": "assistant", "content": b}],
        "tstamp": 1.5,
    }
    for key, value in (("turn", turn), ("language", language), ("anony", anony)):
        if value is not _MISSING:
            record[key] = value
    return record


def the_item(data: dict[str, Any]) -> Item:
    checked = read_battle(Record(data, "f.jsonl", 1, 1))
    return Item(id=f"arena-{checked['question_id']}", kind="pairwise", conversation=checked["conversation"],
                responses=(checked["A"], checked["B"]), metadata=checked["metadata"])


def check_same_row(data: dict[str, Any]) -> bool:
    """When plain_battle takes the record: read_battle takes it too, and the row is item_row's."""
    found = plain_battle(data, set())
    if found is None:
        return False
    item = the_item(data)  # raises if read_battle refuses what plain_battle took
    row = item_row(item, "", "")
    assert battle_row(found) == (row["id"], row["conversation"], row["responses"], row["content_hash"])
    assert found[10] == row["metadata"]
    assert battle_item(found) == item
    checked = read_battle(Record(data, "f.jsonl", 1, 1))
    assert found[1:5] == (checked["turn"], checked["judge"], checked["winner"], checked["label"])
    return True


def test_a_plain_battle_is_taken_and_written_as_item_row_writes_it() -> None:
    assert check_same_row(battle())
    assert check_same_row(battle(a='quote " backslash \\ tab \t newline \n', b="é ✓ 𝐂𝐥𝐚𝐮𝐝𝐞 \u2028 \x7f"))
    assert check_same_row(battle(turn=_MISSING, language=_MISSING, anony=_MISSING))
    assert check_same_row(battle(turn=None, language=None, anony=False))
    assert check_same_row(battle(language="", b=""))
    assert check_same_row(battle(qid='a"b\\c', judge="user <1>", winner="tie (bothbad)", turn=3))


@pytest.mark.parametrize("data", [
    battle(qid=12),  # ids given as numbers: read_battle's job
    battle(model_a="modèle"),
    battle(language="Français"),
    battle(language=7),
    battle(anony="yes"),
    battle(turn=0),
    battle(turn=True),
    battle(a="\ud800"),
    battle(prompt=" "),
    battle(winner="model_c"),
    {**battle(), "conversation_b": [{"role": "user", "content": "other"}, {"role": "assistant", "content": "x"}]},
    {**battle(), "conversation_a": battle()["conversation_a"] * 2},
])
def test_anything_else_is_left_to_read_battle(data: dict[str, Any]) -> None:
    assert plain_battle(data, set()) is None


_texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=30) | st.sampled_from(
    ["", " ", "As ChatGPT, I", '"\\', "\x00\x1f", "\u2028", "é"])
_ids = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x2ff), min_size=0, max_size=8)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qid=_ids, prompt=_texts, a=_texts, b=_texts, model_a=_ids, judge=_ids,
       winner=st.sampled_from(["model_a", "model_b", "tie", "tie (bothbad)", "other"]),
       turn=st.sampled_from([_MISSING, None, 1, 2, 0, -1, True, "1", 1.0]),
       language=st.sampled_from([_MISSING, None, "", "English", "Deutsch", "中文", 3, ["x"], "x" * 1025]),
       anony=st.sampled_from([_MISSING, True, False, None, 1, "true", {"a": 1}]))
def test_plain_battle_never_takes_what_read_battle_refuses_and_writes_the_same_row(
        qid: str, prompt: str, a: str, b: str, model_a: str, judge: str, winner: str, turn: Any, language: Any,
        anony: Any) -> None:
    data = battle(qid, prompt, a, b, model_a=model_a, judge=judge, winner=winner, turn=turn, language=language,
                  anony=anony)
    check_same_row(data)


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def stored(spec: Any) -> str:
    """A digest of what the import stored (every column but the creation times)."""
    digest = hashlib.sha256()
    with sqlite3.connect(spec.db) as conn:
        for sql in ("SELECT id, kind, conversation, responses, category, gold, metadata, content_hash, source"
                    " FROM items ORDER BY rowid",
                    "SELECT id, source, rater, cohort, item_id, label, raw, shown_first FROM external_labels"
                    " ORDER BY id",
                    "SELECT name, cohort FROM annotators ORDER BY id"):
            for row in conn.execute(sql):
                digest.update(repr(row).encode())
    return digest.hexdigest()


def mixed_file(path: Path) -> Path:
    """Plain battles, and others read_battle reads (a number as the id, several turns, other language)."""
    records = [battle(f"q{k}", f"question {k}", f"answer {k}", "As ChatGPT, I cannot say.", judge=f"u{k % 3}",
                      winner=("model_a", "model_b", "tie", "tie (bothbad)")[k % 4]) for k in range(14)]
    records[3]["question_id"] = 3
    records[5]["language"] = "Français"
    two = battle("q1", "question 1", turn=2)
    for side in ("conversation_a", "conversation_b"):
        two[side] += [{"role": "user", "content": "and then?"}, {"role": "assistant", "content": f"then {side}"}]
    records.append(two)
    records.append(battle("q20", "question 20", "I am gamma-70b, at your service.", "ok", model_b="gamma-70b"))
    return write(path, records)


def test_the_bulk_path_stores_what_the_record_by_record_path_stores(project: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import annotate.formats.item_import as item_import

    monkeypatch.setattr(item_import, "BATCH", 2)
    fast, slow = session(project, "fast"), session(project, "slow")
    path = mixed_file(project / "battles.jsonl")
    with open_store(fast) as store:
        fast_report = import_items(store, fast.schema, path, format="arena")
    monkeypatch.setattr(item_import, "plain_battle", lambda data, known: None)
    with open_store(slow) as store:
        slow_report = import_items(store, slow.schema, path, format="arena")
    assert stored(fast) == stored(slow)
    assert fast_report == slow_report
    assert (fast_report.items_added, fast_report.labels_added) == (16, 16)
    assert ("arena-q20", "A", "gamma-70b") in {(leak.item_id, leak.slot, leak.term) for leak in fast_report.leaks}
    assert sum(leak.term == "ChatGPT" for leak in fast_report.leaks) == 14


def test_a_model_named_only_in_a_later_batch_still_flags_an_earlier_plain_battle(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import annotate.formats.item_import as item_import

    monkeypatch.setattr(item_import, "BATCH", 2)  # battles are staged 10 at a time
    spec = session(project)
    records = [battle(f"q{k}", f"question {k}") for k in range(25)]
    records[1]["conversation_b"][1]["content"] = "Hello! I am Zorblax-9, happy to help."
    records[4]["conversation_a"][1]["content"] = "zorblaxian is not a name"  # a word that begins like it
    records[24]["model_a"] = "zorblax-9"
    with open_store(spec) as store:
        report = import_items(store, spec.schema, write(project / "b.jsonl", records), format="arena")
    assert [(leak.item_id, leak.slot, leak.term) for leak in report.leaks] == [("arena-q1", "B", "zorblax-9")]


def test_a_bad_record_among_plain_ones_is_named_by_its_line(project: Path) -> None:
    spec = session(project)
    records = [battle(f"q{k}", f"question {k}") for k in range(5)]
    records[3]["conversation_b"][0]["content"] = "something else"
    with open_store(spec) as store, pytest.raises(
            FormatError, match=r'line 4: field "conversation_b\[0\]\.content": expected the same first user message'):
        import_items(store, spec.schema, write(project / "b.jsonl", records), format="arena")
    with open_store(spec) as store:
        assert store.count_items() == 0


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.text(max_size=40) | st.sampled_from(["I am Zorb-9", "zorbs", "Zo", "-9 zorb"]), max_size=6),
       names=st.lists(st.sampled_from(["zorb-9", "Zorb", "qux-1.5", "kéa-2", "-x", "ab12"]), min_size=1, max_size=3))
def test_word_keys_pass_every_batch_may_mention_would_read_again(texts: list[str], names: list[str]) -> None:
    from annotate.model import Response

    items = [Item(id=f"i{k}", kind="pairwise", conversation=(), responses=(Response("A", text, "m"),))
             for k, text in enumerate(texts)]
    keys = word_keys([fold(t) for item in items for r in item.responses for t in response_texts(r)])
    if any(may_mention(items, names)):
        assert names_may_begin(names, keys)


def test_one_empty_text_has_no_words() -> None:
    from annotate.formats.word_starts import WordStarts

    assert WordStarts(["gpt"]).candidates([""]) == [False]  # used to fail on the empty buffer
    assert len(word_keys([""])) == 0
