"""Themes: Textual's, picked with `--theme` (or `t` on the item screen), by name or as dark / light.

The chosen answer is marked in text (`▶ 1  Left better ◀`, `▶3◀`) and search matches in reverse
video, so every theme shows them, and so does a terminal with NO_COLOR set (Textual then renders in
monochrome).
"""

from __future__ import annotations

ALIASES = {"dark": "textual-dark", "light": "textual-light"}
"""Short names for the two default themes."""


def theme_name(text: str) -> str:
    """The Textual theme `text` names (`dark`, `light` or a theme's own name, e.g. `nord`);
    ValueError naming the choices otherwise."""
    from textual.theme import BUILTIN_THEMES

    from annotate.formats.errors import did_you_mean

    name = ALIASES.get(text.strip().lower(), text.strip().lower())
    if name not in BUILTIN_THEMES:
        choices = [*ALIASES, *sorted(BUILTIN_THEMES)]
        raise ValueError(f"--theme {text!r}: not a theme{did_you_mean(text, choices)}; "
                         f"expected one of {', '.join(choices)}")
    return name


def other_theme(dark: bool) -> str:
    """The theme `t` switches to: light from a dark theme, dark from a light one."""
    return ALIASES["light" if dark else "dark"]
