"""Checks shared by the importers: one function per kind of field, each raising a FormatError that
names the record and the field.

Limits (documented in docs/importing-exporting.md, "Getting data in and out"):
- a text (prompt, message, response) holds at most MAX_TEXT_CHARS characters: a longer one is
  almost always a mistake (a whole file pasted into a cell) and would make the annotation screen
  unusable;
- an id is at most MAX_ID_CHARS printable characters, not blank.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from annotate.formats.errors import did_you_mean
from annotate.formats.reading import Record
from annotate.model import ROLES, Message

MAX_TEXT_CHARS = 2_000_000
"""Longest accepted text field, in characters (about 2 MB of ASCII)."""
MAX_ID_CHARS = 256


def check_text(record: Record, field: str, value: Any, *, allow_blank: bool = False, field_kind: str = "field",
               what: str = "a non-empty string") -> str:
    """A string within the size limit, valid Unicode, and (unless allow_blank) not blank."""
    if not isinstance(value, str):
        raise record.error(what, field, got=value, field_kind=field_kind)
    if not allow_blank and (not value or value.isspace()):  # blank, without copying a long text
        raise record.error(what, field, got=value, field_kind=field_kind)
    if len(value) > MAX_TEXT_CHARS:
        raise record.error(
            f"at most {MAX_TEXT_CHARS:,} characters", field, field_kind=field_kind,
            found=f"{len(value):,} characters",
        )
    _check_unicode(record, field, value, field_kind)
    return value


def _check_unicode(record: Record, field: str, value: str, field_kind: str = "field") -> None:
    if value.isascii():  # no surrogate in it: skip the encoding (a check on every text of every record)
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise record.error(
            "valid Unicode text", field, field_kind=field_kind,
            found=f"a lone surrogate \\u{ord(value[exc.start]):04x} at character {exc.start}",
        ) from None


def optional_str(record: Record, field: str, value: Any, *, field_kind: str = "field") -> str | None:
    """None (or a missing / empty value) or a short string; numbers are written as text."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise record.error("a string or null", field, got=value, field_kind=field_kind)
    if len(value) > MAX_ID_CHARS * 4:
        raise record.error(f"at most {MAX_ID_CHARS * 4} characters", field, field_kind=field_kind,
                           found=f"{len(value):,} characters")
    _check_unicode(record, field, value, field_kind)
    return value


def check_id(record: Record, field: str, value: Any, *, field_kind: str = "field", what: str = "id") -> str:
    """A non-blank string of printable characters (an integer is accepted and written as text)."""
    expected = f"an {what}: a non-empty string or an integer"
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # then held to the same limit as an id written as text
    if not isinstance(value, str) or not value.strip():
        raise record.error(expected, field, got=value, field_kind=field_kind)
    if len(value) > MAX_ID_CHARS:
        raise record.error(f"an {what} of at most {MAX_ID_CHARS} characters", field, got=value, field_kind=field_kind)
    if not value.isprintable():
        raise record.error(f"an {what} of printable characters (no tabs, newlines or controls)", field,
                           got=value, field_kind=field_kind)
    _check_unicode(record, field, value, field_kind)
    return value


def check_keys(record: Record, prefix: str, obj: Mapping[str, Any], allowed: Collection[str]) -> None:
    """Refuse a key outside `allowed`, naming it with a did-you-mean."""
    for key in obj:
        if key not in allowed:
            raise record.error(
                f"one of {', '.join(allowed)}{did_you_mean(key, allowed)}", f"{prefix}{key}",
                found="an unknown field",
            )


def check_object(record: Record, field: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise record.error("a JSON object", field, got=value)
    return value


def check_messages(
    record: Record, field: str, value: Any, *, roles: Collection[str] = ROLES, allow_empty_list: bool = False,
) -> tuple[Message, ...]:
    """A list of {"role", "content"} objects; content may be blank only for system messages."""
    if not isinstance(value, list) or (not value and not allow_empty_list):
        raise record.error('a non-empty list of {"role": ..., "content": ...} messages', field, got=value)
    messages = []
    for index, raw in enumerate(value):
        where = f"{field}[{index}]"
        message = check_object(record, where, raw)
        check_keys(record, f"{where}.", message, ("role", "content"))
        role = message.get("role")
        if role not in roles:
            raise record.error(f"a role among {', '.join(roles)}", f"{where}.role", got=role)
        content = check_text(record, f"{where}.content", message.get("content"), allow_blank=role == "system")
        messages.append(Message(role, content))
    return tuple(messages)
