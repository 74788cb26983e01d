"""Frames of the items' responses for analysis and reports: the pairwise texts as the style features count them,
one row per response (slot, model, length), and the responses left empty (pandas imported lazily; split from
`annotate.store.frames`)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from annotate.store.store import Store

if TYPE_CHECKING:
    import pandas as pd


def pairwise_texts(store: Store, batch: int = 2000,
                   only: Sequence[str] | None = None) -> Iterator[tuple[list[str], list[str], list[str]]]:
    """Pairwise items with a response in slots A and B, a batch at a time: their ids, and slot A's and
    slot B's text as the style features count it (the slot's own earlier assistant turns, then its answer,
    joined by blank lines). Only the responses are decoded, in item order; with `only` (ids in item
    order), only those items."""
    for rows in _pairwise_responses(store, batch, only):
        ids, texts_a, texts_b = [], [], []
        for item_id, responses in rows:
            slots = {r["slot"]: r for r in json.loads(responses)}
            if "A" not in slots or "B" not in slots:
                continue
            ids.append(item_id)
            for slot, texts in (("A", texts_a), ("B", texts_b)):
                response = slots[slot]
                turns = [m["content"] for m in response.get("history", ()) if m["role"] == "assistant"]
                texts.append("\n\n".join([*turns, response["text"]]))
        yield ids, texts_a, texts_b


def _pairwise_responses(store: Store, batch: int, only: Sequence[str] | None) -> Iterator[list[tuple[str, str]]]:
    if only is None:
        cursor = store.db.conn.execute("SELECT id, responses FROM items WHERE kind = 'pairwise' ORDER BY rowid")
        while rows := cursor.fetchmany(batch):
            yield rows
        return
    for begin in range(0, len(only), 500):
        chunk = list(only[begin:begin + 500])
        yield store.db.conn.execute(
            f"SELECT id, responses FROM items WHERE kind = 'pairwise' AND id IN ({','.join('?' * len(chunk))})"
            " ORDER BY rowid", chunk,
        ).fetchall()


RESPONSE_COLUMNS = ("item", "slot", "model", "chars")


def responses_frame(store: Store) -> pd.DataFrame:
    """One row per response of every item, in item and slot order: item, slot, model (None when not
    named), chars (characters of the response judged). Lengths are counted in SQL; no text is loaded.
    Ranking items have k rows; the votes frame's model_a / model_b name only slots A and B."""
    return store.frame(
        "SELECT i.id AS item, json_extract(r.value, '$.slot') AS slot, json_extract(r.value, '$.model') AS model,"
        " length(json_extract(r.value, '$.text')) AS chars FROM items i, json_each(i.responses) r"
        " ORDER BY i.rowid, r.key"
    ).reindex(columns=list(RESPONSE_COLUMNS))


_WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
"""Every character `str.strip()` removes (all of them are below U+3001), for SQLite's trim."""


def empty_responses_frame(store: Store) -> pd.DataFrame:
    """One row per response whose text is empty or only white space (as the importers count them):
    columns item, slot, in item order. Read from the item facts the import kept; the texts of items
    without them are tested in SQL, never loaded."""
    import pandas as pd

    from annotate.store.item_rows import item_rows

    every = item_rows(store)
    facts = every.loc[~every["known"].astype(bool) | every["empty_slots"].notna(),
                      ["rowid", "item", "known", "empty_slots"]]
    known = facts.loc[facts["known"].astype(bool)]
    rows = [(rowid, k, item, slot) for rowid, item, slots in known[["rowid", "item", "empty_slots"]].itertuples(
        index=False) for k, slot in enumerate(slots.split(","))]
    unknown = facts.loc[~facts["known"].astype(bool), "rowid"].tolist()
    if unknown:
        every = len(unknown) == store.count_items()
        for chunk in ([None] if every else (unknown[k:k + 500] for k in range(0, len(unknown), 500))):
            where = "" if chunk is None else f" AND i.rowid IN ({','.join('?' * len(chunk))})"
            rows += store.db.execute(
                "SELECT i.rowid, r.key, i.id, json_extract(r.value, '$.slot') FROM items i, json_each(i.responses) r"
                f" WHERE trim(json_extract(r.value, '$.text'), ?) = ''{where}", [_WHITESPACE, *(chunk or [])],
            ).fetchall()
    rows.sort(key=lambda row: (row[0], row[1]))
    return pd.DataFrame([(item, slot) for _, _, item, slot in rows], columns=["item", "slot"])
