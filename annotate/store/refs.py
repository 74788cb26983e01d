"""Item references (annotate.refs) looked up in the session file.

A reference is computed from the item id and the session's key, never stored per item, so every
copy of a session gives the same ones and importing costs nothing more. Looking one up computes
the references of the ids it searches (a few microseconds each), read a batch at a time.
"""

from __future__ import annotations

from annotate.refs import REF_KEY_META, ref_maker
from annotate.store.store import Store

_BATCH = 10_000


def ref_key(store: Store) -> str:
    """The session's reference key (made by migration 8 for every session file)."""
    key = store.get_meta(REF_KEY_META)
    if key is None:  # a file whose meta row was removed by hand: refuse rather than invent one
        raise ValueError(f"{store.path}: the session file has no item reference key (meta {REF_KEY_META})")
    return key


def items_with_ref(store: Store, ref: str) -> list[str]:
    """Ids of the items whose reference is `ref` (canonical form; usually one, rarely more)."""
    make = ref_maker(ref_key(store))
    found = []
    cursor = store.db.execute("SELECT id FROM items ORDER BY rowid")
    while batch := cursor.fetchmany(_BATCH):
        found += [item_id for (item_id,) in batch if make(item_id) == ref]
    return found


def queue_positions_with_ref(store: Store, annotator: str, ref: str, adjudication: bool = False) -> list[int]:
    """Queue indexes (0-based, in the annotator's queue) of the entries whose item has `ref`."""
    from annotate.store.queues import _PURPOSE, annotator_id

    who = annotator_id(store, annotator)
    if who is None:
        return []
    make = ref_maker(ref_key(store))
    cursor = store.db.execute(
        f"SELECT a.item_id FROM assignments a WHERE a.annotator_id = ? AND {_PURPOSE[adjudication]}"
        " ORDER BY a.position", [who],
    )
    found, index = [], 0
    while batch := cursor.fetchmany(_BATCH):
        for (item_id,) in batch:
            if make(item_id) == ref:
                found.append(index)
            index += 1
    return found
