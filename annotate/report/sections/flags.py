"""Flags: what annotators said was wrong with items (broken, identity leak, offensive, guideline
unclear, other), open and cleared, and the items with open flags.

Flags are not votes: no figure of the report counts them; this section lists them for the lead.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from annotate.flags import FLAG_KINDS, KIND_TEXT
from annotate.report.model import Column, Section, Table

if TYPE_CHECKING:
    from annotate.report.context import Context
    from annotate.store import Store

NOTE_CHARS = 80
"""Notes are cut to this many characters in the readable formats (JSON has them whole)."""


def flags_section(ctx: Context, store: Store) -> tuple[Section, dict[str, Any]] | None:
    """The section and its JSON, or None when nobody flagged anything."""
    from annotate.refs import ref_maker
    from annotate.store.flags import flags
    from annotate.store.refs import ref_key

    found = flags(store, include_cleared=True)
    if not found:
        return None
    ref = ref_maker(ref_key(store))
    by_kind = {kind: [0, 0] for kind, _ in FLAG_KINDS}
    items: dict[str, list[Any]] = defaultdict(list)
    for flag in found:
        counts = by_kind.setdefault(flag.kind, [0, 0])
        counts[flag.cleared is not None] += 1
        if flag.cleared is None:
            items[flag.item_id].append(flag)
    kind_rows = tuple((KIND_TEXT.get(k, k), n_open, n_cleared) for k, (n_open, n_cleared) in by_kind.items()
                      if n_open or n_cleared)
    item_rows = tuple(
        (ref(item), item, ", ".join(sorted({KIND_TEXT.get(f.kind, f.kind) for f in open_})),
         len({f.annotator for f in open_}), _notes(open_))
        for item, open_ in sorted(items.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    )
    shown = item_rows[: ctx.max_rows]
    notes = ["Flags are the annotators' word that an item has a problem; they are not votes and no figure counts"
             " them. Clear them with `annotate flags SESSION --clear-item REF` once dealt with."]
    if len(item_rows) > len(shown):
        notes.append(f"{len(item_rows) - len(shown)} more flagged items in the JSON report and"
                     " `annotate export --what flags`.")
    tables = (
        Table("flags_kinds", "Flags by kind", (Column("kind"), Column("open", "int"), Column("cleared", "int")),
              kind_rows),
        Table("flags_items", "Items with open flags", (Column("ref"), Column("item"), Column("kinds"),
                                                       Column("annotators", "int"), Column("notes")),
              shown, tuple(notes), empty="No open flags: every flag was cleared."),
    )
    payload = {
        "by_kind": {k: {"open": n_open, "cleared": n_cleared} for k, (n_open, n_cleared) in by_kind.items()},
        "items": [
            {"item": item, "ref": ref(item), "kinds": sorted({f.kind for f in open_}),
             "annotators": sorted({f.annotator for f in open_}), "notes": [f.note for f in open_ if f.note]}
            for item, open_ in sorted(items.items())
        ],
    }
    return Section("flags", "Flags", tables), payload


def _notes(flags: list[Any]) -> str:
    text = " | ".join(f.note for f in flags if f.note)
    return text if len(text) <= NOTE_CHARS else text[: NOTE_CHARS - 1] + "…"
