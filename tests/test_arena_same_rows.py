"""An Arena import stores the same rows as the code before the bulk import's rework, table by table.

`DIGESTS` were computed by importing `mixed_battles` with main's code at ca0bc08 (run this module's
`digests` under that code: `python -c "import test_arena_same_rows as t; print(t.digests(DIR))"`).
The file mixes battles of the plain shape (the bulk path) with every other shape `read_battle`
takes: several turns of one question (ids settled with `-t{turn}`), no turn, a numeric question id,
text outside ASCII, a null or missing language, anony false, the same battle twice (kept once), a
judge voting twice with different labels, an empty answer and an answer naming a model. Columns
named `created` hold the time of the import and are left out, and so is `meta` (which holds the
session's random key and is not written by an import); everything else must be the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from annotate.formats import import_items
from annotate.session import create_session, open_store

EMPTY = hashlib.sha256().hexdigest()
DIGESTS = {
    "annotators": "080219c2b01d6e67e247f5e2de844f89639a8fa4fc1bcf495c04ed291126d367",
    "external_labels": "6726d16c05b0182e7e1efc1f4abd4289f971af9af63abbb0d53de6d1b09c00c0",
    "item_facts": "0f798d8397bb24df82408f476dc4340b5352d8eabec19ac586987242e095eb86",
    "item_tally": "39472e82f6a103adfb85ad4007c3ae799f7c40f458331cce237061e74112bd7c",
    "items": "8974b2339b0875acfc87ad8589e0699fff61917df14d3397c3fa3351fd2fc3fd",
    "label_tally": "f98fb3bc7e61f8e21db607f28d3408ab93b947353b7348fe580b78c2dd125cbc",
    "overlap_tally": "412f417b2a373564cada186331da5a4094712c469101b847a012d5f80f74449b",
    "report": "b812304889a6729e24e4f9407e4c271a5efd89885b3f854ece34e524e72a26db",
    "sqlite_sequence": "06e620b903317fd89e627dd8484b3d513c84e9915e33fb90be2b4bd6c8a22760",
}
"""From main's code at ca0bc08; every other table is empty (`EMPTY`)."""


def _side(prompt: str, *turns: str) -> list[dict[str, str]]:
    messages = [{"role": "user", "content": prompt}]
    for k, text in enumerate(turns):
        if k:
            messages.append({"role": "user", "content": f"and then {k}?"})
        messages.append({"role": "assistant", "content": text})
    return messages


def mixed_battles(n_plain: int = 5600, seed: int = 11) -> list[dict[str, Any]]:
    """Plain battles (more than one staged batch) with the other shapes spread among them."""
    rng = random.Random(seed)
    models = ["alpha-7b", "beta-13b", "gamma-70b", "delta-2"]
    winners = ["model_a", "model_b", "tie", "tie (bothbad)"]
    records: list[dict[str, Any]] = []
    for n in range(n_plain):
        a, b = rng.sample(models, 2)
        prompt = f"question {n % 900}: say something"
        records.append({
            "question_id": f"{n:08x}", "model_a": a, "model_b": b, "winner": rng.choice(winners),
            "judge": f"arena_user_{rng.randrange(300)}", "turn": 1, "anony": True, "language": "English",
            "conversation_a": _side(prompt, f"reply {n} from the first"),
            "conversation_b": _side(prompt, f"reply {n} from the second"), "tstamp": 1_700_000_000 + n,
        })
    others: list[dict[str, Any]] = [
        {"question_id": "multi", "model_a": "alpha-7b", "model_b": "beta-13b", "winner": "model_b",
         "judge": "arena_user_1", "turn": 2, "anony": True, "language": "English",
         "conversation_a": _side("a long talk", "first a", "second a"),
         "conversation_b": _side("a long talk", "first b", "second b")},
        {"question_id": "multi", "model_a": "alpha-7b", "model_b": "beta-13b", "winner": "tie",
         "judge": "arena_user_2", "turn": 1, "anony": True, "language": "English",
         "conversation_a": _side("a long talk", "first a"), "conversation_b": _side("a long talk", "first b")},
        {"question_id": "noturn", "model_a": "gamma-70b", "model_b": "delta-2", "winner": "model_a",
         "judge": "arena_user_3", "language": None, "anony": False,
         "conversation_a": _side("no turn given", "yes", "and more"),
         "conversation_b": _side("no turn given", "no", "and less")},
        {"question_id": 424242, "model_a": "gamma-70b", "model_b": "alpha-7b", "winner": "model_b",
         "judge": "arena_user_4", "turn": 1,
         "conversation_a": _side("a number for an id", "x"), "conversation_b": _side("a number for an id", "y")},
        {"question_id": "unicode", "model_a": "modèle-α", "model_b": "beta-13b", "winner": "tie (bothbad)",
         "judge": "usuário_5", "turn": 1, "anony": True, "language": "Español",
         "conversation_a": _side("¿Qué tal? ✓", "Muy bien 𝐂"), "conversation_b": _side("¿Qué tal? ✓", "Bien \u2028")},
        {"question_id": "empty", "model_a": "alpha-7b", "model_b": "delta-2", "winner": "model_b",
         "judge": "arena_user_6", "turn": 1, "anony": True, "language": "English",
         "conversation_a": _side("say nothing", ""), "conversation_b": _side("say nothing", "   ")},
        {"question_id": "leak", "model_a": "alpha-7b", "model_b": "delta-2", "winner": "model_a",
         "judge": "arena_user_7", "turn": 1, "anony": True, "language": "English",
         "conversation_a": _side("who are you", "I am alpha-7b, trained by you"),
         "conversation_b": _side("who are you", "an assistant")},
    ]
    again = dict(records[10], judge="arena_user_299")  # the same battle from another judge: kept once
    twice = dict(records[20], winner="tie" if records[20]["winner"] != "tie" else "model_a")  # same judge, other label
    for k, record in enumerate([*others, again, twice]):
        records.insert(500 + 700 * k, record)
    return records


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def table_digests(db: Any) -> dict[str, str]:
    """SHA-256 of every table's rows in rowid order (primary-key order for a table without one),
    `created` columns left out."""
    found = {}
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for table in tables:
        if table == "meta":
            continue
        columns = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")') if r[1] != "created"]
        rowid = "WITHOUT ROWID" not in db.execute(
            "SELECT sql FROM sqlite_master WHERE name = ?", [table]).fetchone()[0].upper()
        order = "rowid" if rowid else ", ".join(f'"{c}"' for c in columns)
        picked = ", ".join(f'"{c}"' for c in columns)
        digest = hashlib.sha256()
        for row in db.execute(f'SELECT {picked} FROM "{table}" ORDER BY {order}'):
            digest.update(json.dumps(row, ensure_ascii=False).encode("utf-8") + b"\n")
        found[table] = digest.hexdigest()
    return found


def digests(folder: Path) -> dict[str, str]:
    """The tables' digests after importing `mixed_battles` into a new session in `folder`, and of the report."""
    spec = create_session("s", "pairwise", seed=1, folder=Path(folder) / "sessions")
    path = write(Path(folder) / "battles.jsonl", mixed_battles())
    with open_store(spec) as store:
        report = import_items(store, spec.schema, path, format="arena")
        found = table_digests(store.db.conn)
    text = json.dumps([report.summary(), list(report.warnings), list(report.cohorts),
                       [list(e) for e in report.empty_responses], len(report.leaks)])
    found["report"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return found


def test_an_arena_import_stores_the_rows_main_stored(tmp_path: Path) -> None:
    found = digests(tmp_path)
    assert {table: digest for table, digest in found.items() if digest != EMPTY} == DIGESTS
