"""Keeping the judge's API key out of everything we store or print.

`Redactor(key)` replaces the key in any text, and in any JSON-like value at any depth (keys and
values of dicts, items of lists), with `[API key]`. A server may echo the key back in ways other
than verbatim, so it also replaces:

- the key in any case (`BEARER SK-...`, a lower-cased header dump);
- the key percent-encoded (a URL or form body quoting it) and with `/` escaped as `\\/` (JSON);
- any run of at least `PARTIAL` consecutive characters of the key (a key cut short, or masked in
  the middle as some error pages do), in any case. Shorter keys are replaced only whole.

`env_var_problem(name)` tells whether what was passed as the *name* of the environment variable
holding the key is not a name at all, and in particular whether it looks like the key itself; the
message it returns never contains the value.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any
from urllib.parse import quote

__all__ = ["PARTIAL", "PLACEHOLDER", "Redactor", "env_var_problem", "looks_like_key"]

PLACEHOLDER = "[API key]"
PARTIAL = 12
"""Consecutive characters of the key that are replaced wherever they appear."""

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_KEY_PREFIXES = ("sk-", "sk_", "pk-", "rk-", "hf_", "ghp_", "gho_", "github_pat_", "xoxb-", "xoxp-", "glpat-",
                 "aiza", "akia", "gsk_", "key-")


class Redactor:
    """Replaces one secret (and its variants, see the module docstring) in text and JSON values."""

    def __init__(self, secret: str | None) -> None:
        self._secret = (secret or "").strip()
        self._lower = self._secret.translate(_ASCII_LOWER)
        self._window = min(PARTIAL, len(self._lower))
        variants = {self._secret, quote(self._secret, safe=""), self._secret.replace("/", "\\/")}
        self._variants = [
            re.compile(re.escape(v), re.IGNORECASE) for v in sorted(variants, key=len, reverse=True)
            if v and v != self._secret
        ]

    def __repr__(self) -> str:
        return "Redactor([hidden])"

    def text(self, text: str) -> str:
        """`text` with the secret replaced."""
        if not self._secret or not text:
            return text
        for pattern in self._variants:
            text = pattern.sub(PLACEHOLDER, text)
        spans = self._matches(text)
        if not spans:
            return text
        pieces, position = [], 0
        for start, end in spans:
            pieces += [text[position:start], PLACEHOLDER]
            position = end
        pieces.append(text[position:])
        return "".join(pieces)

    def value(self, value: Any) -> Any:
        """A JSON-like value with the secret replaced in every string, dict keys included."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.value(k) if isinstance(k, str) else k: self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    def _matches(self, text: str) -> list[tuple[int, int]]:
        """Merged (start, end) spans of `text` that repeat at least `_window` characters of the key.

        Any such run contains one of the key's aligned blocks of half the window, so each block is
        searched for with str.find and every hit grown both ways while it agrees with the key.
        """
        lowered = text.translate(_ASCII_LOWER)  # ASCII only: same length as text
        key, window = self._lower, self._window
        block = max(1, window // 2)
        found: list[tuple[int, int]] = []
        for offset in range(0, len(key) - block + 1, block):
            piece = key[offset : offset + block]
            hit = lowered.find(piece)
            while hit >= 0:
                start, key_start = hit, offset
                while start > 0 and key_start > 0 and lowered[start - 1] == key[key_start - 1]:
                    start, key_start = start - 1, key_start - 1
                end, key_end = hit + block, offset + block
                while end < len(lowered) and key_end < len(key) and lowered[end] == key[key_end]:
                    end, key_end = end + 1, key_end + 1
                if end - start >= window:
                    found.append((start, end))
                hit = lowered.find(piece, hit + 1)
        found.sort()
        merged: list[tuple[int, int]] = []
        for start, end in found:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        return merged


def looks_like_key(value: str) -> bool:
    """Whether `value` looks like an API key or token rather than a variable name.

    Yes for `Bearer ...`; for a known key prefix (`sk-`, `hf_`, `ghp_`, ...) followed by what is
    not a name (`sk-proj-...`) or looks random; and for 20 or more characters that look random:
    letters and digits (at least two) mixed, case or digit changing on a third of them or more, as
    in tokens and unlike names (`OPENAI_API_KEY`, `hf_api_token_v2`, `MyJudgeKey`).
    """
    text = value.strip()
    if text.lower().startswith("bearer "):
        return True
    if len(text) >= 12 and text.lower().startswith(_KEY_PREFIXES):
        return not _ENV_NAME.match(text) or _random_looking(text)
    return len(text) >= 20 and _random_looking(text)


def _random_looking(text: str) -> bool:
    classes = ["d" if c.isdigit() else "u" if c.isupper() else "l" for c in text if c.isalnum()]
    changes = sum(1 for a, b in pairwise(classes) if a != b)
    return classes.count("d") >= 2 and changes * 3 >= len(classes)


def env_var_problem(name: str) -> str | None:
    """Why `name` cannot be the name of the environment variable holding the key, or None.

    The message names the option, never the value (it may be the key itself).
    """
    if looks_like_key(name):
        return ("--api-key-env: the value looks like a key, not a variable name. Put the key in an"
                " environment variable (export OPENAI_API_KEY=...) and pass its name: --api-key-env OPENAI_API_KEY")
    if not _ENV_NAME.match(name.strip()):
        return ("--api-key-env: not an environment variable name (letters, digits and _, not starting with a"
                " digit); pass the name of the variable that holds the key, e.g. OPENAI_API_KEY")
    return None
