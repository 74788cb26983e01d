"""Precomputed LLM labels as suggestions: `annotate labels import ... --as-suggestions`.

The file is read exactly as `labels import` reads it (long or wide layout, --map, --label-map;
`annotate.formats.labels`), but each vote becomes a `Suggestion` instead of an external label:
the rater (a column name in the wide layout) is the `source_model`, the cell as written is kept in
`raw`, and `prompt_hash` is `import:<source>` (the source defaults to the file name), so suggestions
from different files or runs are told apart. Atomic (all or nothing) and idempotent: a suggestion
already stored for the same item, model and source is counted as unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from annotate.formats.importing import skipped_warning
from annotate.formats.labels import read_votes
from annotate.model import INVALID_LABEL, Suggestion
from annotate.spec import LabelSchema
from annotate.store import Store
from annotate.text import plural

__all__ = ["SuggestionImport", "import_suggestions"]


@dataclass(frozen=True)
class SuggestionImport:
    """What an import of suggestions did."""

    added: int
    unchanged: int
    models: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    left_out: int = 0
    """Labels mapped to invalid, or outside the map with --skip-unmapped: not suggestions."""

    def summary(self) -> str:
        models = ", ".join(self.models) if self.models else "no model"
        left_out = f"; {self.left_out} left out (invalid or unmapped)" if self.left_out else ""
        return f"added {plural(self.added, 'suggestion')} ({self.unchanged} unchanged) from {models}{left_out}"


def import_suggestions(
    store: Store,
    schema: LabelSchema,
    path: Path | str,
    *,
    layout: str = "long",
    raters: Sequence[str] | None = None,
    field_map: Sequence[str] = (),
    label_map: Sequence[str] = (),
    source: str | None = None,
    format: str | None = None,
    skip_unmapped: bool = False,
) -> SuggestionImport:
    """Import an LLM judge's labels as suggestions (see the module docstring).

    A label mapped to `invalid` (the judge gave no usable verdict) is never a suggestion: it is
    left out and counted, as are labels outside the map with ``skip_unmapped``.
    """
    path = Path(path)
    source = source or path.name
    read = read_votes(
        path, schema, cohort="llm", source=source, known_items=set(store.item_ids()), layout=layout,
        raters=raters, field_map=field_map, label_map=label_map, format=format, skip_unmapped=skip_unmapped,
    )
    if read.empty:
        return SuggestionImport(0, 0, (), (read.empty,))
    table = read.table
    votes = [(vote, record) for vote, record in read.votes if vote.label != INVALID_LABEL]
    invalid = len(read.votes) - len(votes)
    prompt_hash = f"import:{source}"
    stored = {
        (s.item_id, s.source_model): s.label
        for s in store.suggestions() if s.prompt_hash == prompt_hash and not s.planted
    }
    new: dict[tuple[str, str], Suggestion] = {}
    unchanged = 0
    conflicts: list[str] = []
    for vote, record in votes:
        key = (vote.item_id, vote.rater)
        if key in stored or key in new:
            earlier = stored.get(key) or new[key].label
            if earlier != vote.label:
                conflicts.append(f"{vote.rater} on {vote.item_id}: {vote.label} at {record.where}, kept {earlier}")
            unchanged += 1
            continue
        raw = json.dumps({"source": source, "cell": vote.raw, "where": record.where}, ensure_ascii=False,
                         sort_keys=True)
        new[key] = Suggestion(
            item_id=vote.item_id, source_model=vote.rater, label=vote.label, prompt_hash=prompt_hash, raw=raw,
        )
    warnings = []
    if read.skipped:
        warnings.append(skipped_warning(table.file, read.skipped))
    if invalid:
        warnings.append(f"{table.file}: {plural(invalid, 'label')} mapped to {INVALID_LABEL} left out (no verdict)")
    if conflicts:
        shown = "; ".join(conflicts[:20])
        warnings.append(f"{plural(len(conflicts), 'repeated label')} with a different value (kept the first): {shown}")
    if not read.votes and not read.skipped:
        warnings.append(f"{table.file}: no labels found (every cell empty?)")
    if new:
        store.add_suggestions(list(new.values()))
    models = tuple(sorted({v.rater for v, _ in votes}))
    return SuggestionImport(len(new), unchanged, models, tuple(warnings), len(read.skipped) + invalid)
