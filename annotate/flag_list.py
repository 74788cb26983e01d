"""The lead's view of flags: a summary line for `status` and a table for `annotate flags`.

Names, notes and ids come from annotators and imported files: every cell goes through `one_line`.
"""

from __future__ import annotations

from collections.abc import Sequence

from annotate.flags import FLAG_KINDS, KIND_TEXT, Flag
from annotate.refs import parse_ref, ref_maker
from annotate.safe_text import one_line
from annotate.store import Store
from annotate.text import plural

NOTE_CHARS = 48
"""A note longer than this is cut (with an ellipsis) in the table; the export has it whole."""


def flag_summary(store: Store) -> str | None:
    """`flags     3 open on 2 items (identity leak 2, broken item 1); 1 cleared`, or None without any."""
    from annotate.store.flags import flag_counts

    counts = flag_counts(store)
    if not counts.total_open and not counts.cleared:
        return None
    kinds = ", ".join(f"{text} {counts.open[kind]}" for kind, text in FLAG_KINDS if counts.open[kind])
    head = f"{counts.total_open} open on {plural(counts.items, 'item')} ({kinds})" if counts.total_open else "none open"
    cleared = f"; {counts.cleared} cleared" if counts.cleared else ""
    return f"flags     {head}{cleared} (annotate flags)"


def flag_table(store: Store, flags: Sequence[Flag]) -> str:
    """The flags as an aligned table: id, ref, item, annotator, kind, note, when (and who cleared it)."""
    from annotate.store.refs import ref_key

    ref = ref_maker(ref_key(store))
    header = ("id", "ref", "item", "annotator", "kind", "note", "flagged", "cleared")
    rows = [
        (str(f.id), ref(f.item_id), one_line(f.item_id), one_line(f.annotator), KIND_TEXT.get(f.kind, f.kind),
         _cut(one_line(f.note)), f.created[:16].replace("T", " "),
         "" if f.cleared is None else f"{f.cleared[:16].replace('T', ' ')} by {one_line(f.cleared_by or '')}")
        for f in flags
    ]
    if not any(r[-1] for r in rows):
        header, rows = header[:-1], [r[:-1] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines)


def _cut(text: str) -> str:
    return text if len(text) <= NOTE_CHARS else text[: NOTE_CHARS - 1] + "…"


def resolve_item(store: Store, text: str) -> str:
    """The item id meant by `text`: an item id, else an item reference (`K7QM2X`, any case). ValueError
    when neither finds exactly one item."""
    from annotate.store.refs import items_with_ref

    try:
        return store.item(text).id
    except KeyError:
        pass
    ref = parse_ref(text)
    found = items_with_ref(store, ref) if ref is not None else []
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise ValueError(f"reference {ref} names {len(found)} items ({', '.join(one_line(i) for i in found)}):"
                         " give the item id")
    hint = "" if ref is not None else " (a reference is six characters, such as K7QM2X)"
    raise ValueError(f"no item with the id or reference {one_line(repr(text))}{hint}")
