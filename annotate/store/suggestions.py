"""The Store's LLM suggestions and the replies that gave none (`annotate suggest`), and clearing
planted suggestions a redrawn design left unused. Mixed into Store (store.py), whose `db` and
`transaction` it uses."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from annotate.model import Suggestion
from annotate.store.records import SuggestionFailure, utc_now

if TYPE_CHECKING:
    from annotate.store._sqlite_utils import sqlite_utils


class SuggestionsMixin:
    """Suggestions and suggestion failures; part of Store."""

    db: sqlite_utils.Database

    # -- suggestions -----------------------------------------------------------------------

    def add_suggestions(self, suggestions: Sequence[Suggestion]) -> list[Suggestion]:
        created = utc_now()
        stored = []
        with self.transaction() as db:
            for s in suggestions:
                cursor = db.execute(
                    "INSERT INTO suggestions (item_id, source_model, label, rationale,"
                    " swapped_label, planted, prompt_hash, raw, created)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [s.item_id, s.source_model, s.label, s.rationale, s.swapped_label,
                     int(s.planted), s.prompt_hash, s.raw, created],
                )
                stored.append(replace(s, id=int(cursor.lastrowid or 0)))
        return stored

    def suggestions(self, item_id: str | None = None) -> list[Suggestion]:
        return list(self.iter_suggestions(item_id))

    def iter_suggestions(self, item_id: str | None = None) -> Iterator[Suggestion]:
        """Suggestions in the order they were stored (for one item or all), read a batch at a time."""
        sql = ("SELECT id, item_id, source_model, label, rationale, swapped_label, planted,"
               " prompt_hash, raw FROM suggestions")
        params: list[Any] = []
        if item_id is not None:
            sql += " WHERE item_id = ?"
            params.append(item_id)
        cursor = self.db.conn.execute(sql + " ORDER BY id", params)
        while rows := cursor.fetchmany(1000):
            yield from (
                Suggestion(r[1], r[2], r[3], r[4] or "", r[5], bool(r[6]), r[7] or "", r[8] or "", id=r[0])
                for r in rows
            )

    def suggestion(self, suggestion_id: int) -> Suggestion:
        """One suggestion by id; KeyError when there is none."""
        for s in self._suggestions_where("id = ?", [suggestion_id]):
            return s
        raise KeyError(f"no suggestion {suggestion_id}")

    def _suggestions_where(self, clause: str, params: Sequence[Any]) -> list[Suggestion]:
        sql = ("SELECT id, item_id, source_model, label, rationale, swapped_label, planted,"
               f" prompt_hash, raw FROM suggestions WHERE {clause} ORDER BY id")
        return [
            Suggestion(r[1], r[2], r[3], r[4] or "", r[5], bool(r[6]), r[7] or "", r[8] or "", id=r[0])
            for r in self.db.execute(sql, list(params)).fetchall()
        ]

    def add_suggestion_failure(self, failure: SuggestionFailure) -> None:
        """Record an LLM reply that gave no verdict (the raw reply kept for audit, never a label)."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO suggestion_failures (item_id, source_model, prompt_hash, error, raw, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [failure.item_id, failure.source_model, failure.prompt_hash, failure.error, failure.raw,
                 utc_now()],
            )

    def suggestion_failures(self, item_id: str | None = None) -> list[SuggestionFailure]:
        """Recorded failures in the order they happened, for one item or all."""
        sql = "SELECT item_id, source_model, prompt_hash, error, raw, created FROM suggestion_failures"
        params: list[Any] = []
        if item_id is not None:
            sql += " WHERE item_id = ?"
            params.append(item_id)
        return [SuggestionFailure(*r) for r in self.db.execute(sql + " ORDER BY id", params).fetchall()]

    def delete_unused_planted_suggestions(self) -> int:
        """Delete planted suggestions no assignment points to (left over when a design is redrawn)."""
        with self.transaction() as db:
            cursor = db.execute(
                "DELETE FROM suggestions WHERE planted = 1 AND id NOT IN"
                " (SELECT suggestion_id FROM assignments WHERE suggestion_id IS NOT NULL)"
            )
        return int(cursor.rowcount or 0)
