"""Undo what later migrations made, so a test can stand a file at an older schema version."""

from __future__ import annotations

import sqlite3

from annotate.store.vote_tallies import VOTE_INDEXES, VOTE_TABLES


def drop_vote_tallies(conn: sqlite3.Connection) -> None:
    """Drop the vote tallies' triggers, tables and indexes (migration v12)."""
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'votes_%'"):
        conn.execute(f'DROP TRIGGER "{name}"')
    for table in VOTE_TABLES:
        conn.execute(f'DROP TABLE "{table}"')
    for index in VOTE_INDEXES:
        conn.execute(f'DROP INDEX "{index}"')


TRAINING_TABLES = ("training_answers", "training_overrides", "training_items")
"""Migration v11's tables, answers and overrides first (they refer to the items)."""


def drop_training_tables(conn: sqlite3.Connection) -> None:
    """Drop the training round's tables (migration v11)."""
    for table in TRAINING_TABLES:
        conn.execute(f'DROP TABLE "{table}"')


def drop_open_queue(conn: sqlite3.Connection) -> None:
    """Drop the open queue's triggers and table (migration v13)."""
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'open_%'"):
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute('DROP TABLE "open_queue"')


def drop_item_facts(conn: sqlite3.Connection) -> None:
    """Drop the item facts kept from the import (migration v14)."""
    conn.execute('DROP TABLE "item_facts"')
