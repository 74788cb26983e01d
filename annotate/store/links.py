"""Private links for `annotate serve`: who may open the app in a browser, kept as hashes.

A link carries a random secret (`secrets.token_urlsafe(32)`: 256 bits). The session file keeps
only its SHA-256, so reading the file (or a copy handed to an offline annotator) gives no way in.
Each annotator has at most one live link, and the lead one; issuing a new one revokes the old
(`renewed`), `revoke_link` ends one (`revoked`). A secret is checked against the live link of the
one it claims to open, in constant time: one annotator's secret never opens another's queue.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Literal

from annotate.store.store import Store, utc_now

Role = Literal["annotator", "lead"]
SECRET_BYTES = 32
"""Random bytes in a secret (256 bits; the issue asks for at least 128)."""


@dataclass(frozen=True)
class Link:
    """A live link as the session file knows it: no secret, only who and since when."""

    role: Role
    annotator: str | None
    """The annotator's name; None for the lead's link."""
    created: str


@dataclass(frozen=True)
class IssuedLink:
    """A link just issued: the only moment its secret exists outside the browser that opens it."""

    role: Role
    annotator: str | None
    secret: str
    replaced: bool
    """An older live link was revoked to make room for this one."""


def secret_hash(secret: str) -> str:
    """What the file keeps of a secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def issue_link(store: Store, role: Role, annotator: str | None = None) -> IssuedLink:
    """A new link for `annotator` (role `annotator`) or the lead (role `lead`, no annotator);
    the live one it replaces, if any, stops working at once."""
    annotator_id = _annotator_id(store, role, annotator, create=True)
    secret = secrets.token_urlsafe(SECRET_BYTES)
    now = utc_now()
    with store.transaction() as db:
        replaced = db.execute(
            "UPDATE links SET revoked = ?, revoke_reason = 'renewed' WHERE role = ? AND annotator_id IS ?"
            " AND revoked IS NULL", [now, role, annotator_id],
        ).rowcount
        db.execute(
            "INSERT INTO links (role, annotator_id, secret_sha256, created) VALUES (?, ?, ?, ?)",
            [role, annotator_id, secret_hash(secret), now],
        )
    return IssuedLink(role, annotator, secret, bool(replaced))


def revoke_link(store: Store, role: Role, annotator: str | None = None) -> bool:
    """End the live link of `annotator` (or the lead's); False when there was none."""
    annotator_id = _annotator_id(store, role, annotator, create=False)
    if role == "annotator" and annotator_id is None:
        return False
    with store.transaction() as db:
        ended = db.execute(
            "UPDATE links SET revoked = ?, revoke_reason = 'revoked' WHERE role = ? AND annotator_id IS ?"
            " AND revoked IS NULL", [utc_now(), role, annotator_id],
        ).rowcount
    return bool(ended)


def check_secret(store: Store, role: Role, annotator: str | None, secret: str | None) -> bool:
    """Does `secret` open the live link of `annotator` (or the lead's)? Unknown names, revoked
    links and missing secrets are all simply False."""
    if not secret:
        return False
    return same_hash(secret_hash(secret), live_hash(store, role, annotator))


def same_hash(given: str, live: str | None) -> bool:
    """Constant-time comparison of a secret's hash with a live link's (None: no live link)."""
    if live is None:
        hmac.compare_digest(given, given)  # the same work whether or not the link exists
        return False
    return hmac.compare_digest(given, live)


def live_hash(store: Store, role: Role, annotator: str | None) -> str | None:
    """The stored hash of the live link of `annotator` (or the lead's), None when there is none."""
    if role == "annotator":
        row = store.db.execute(
            "SELECT l.secret_sha256 FROM links l JOIN annotators n ON n.id = l.annotator_id"
            " WHERE l.role = 'annotator' AND n.name = ? AND l.revoked IS NULL", [annotator],
        ).fetchone()
    else:
        row = store.db.execute("SELECT secret_sha256 FROM links WHERE role = 'lead' AND revoked IS NULL").fetchone()
    return None if row is None else str(row[0])


def live_links(store: Store) -> list[Link]:
    """Every link that works now, the lead's first, then the annotators' by name."""
    rows = store.db.execute(
        "SELECT l.role, n.name, l.created FROM links l LEFT JOIN annotators n ON n.id = l.annotator_id"
        " WHERE l.revoked IS NULL ORDER BY l.role = 'annotator', n.name"
    ).fetchall()
    return [Link(role, name, created) for role, name, created in rows]


def planned_annotators(store: Store) -> list[str]:
    """Who the session's plan gives a queue (or names): the people a link can be issued to."""
    import json

    raw = store.get_meta("plan_inputs")  # annotate.plan.PLAN_INPUTS_KEY
    named = set(json.loads(raw).get("annotators", [])) if raw else set()
    rows = store.db.execute(
        "SELECT DISTINCT n.name FROM assignments a JOIN annotators n ON n.id = a.annotator_id"
        " WHERE a.purpose != 'adjudication'"
    ).fetchall()
    return sorted(named | {r[0] for r in rows})


def _annotator_id(store: Store, role: Role, annotator: str | None, *, create: bool) -> int | None:
    if role == "lead":
        if annotator is not None:
            raise ValueError("the lead's link names no annotator")
        return None
    if role != "annotator" or not annotator:
        raise ValueError(f"link role {role!r} with annotator {annotator!r}")
    if create:
        return store.ensure_annotator(annotator).id
    found = store.annotator(annotator)
    if found is None:
        return None
    return found.id

