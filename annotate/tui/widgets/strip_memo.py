"""StripMemo: a small widget remembers the lines it painted for each state it has shown.

The bars under the panes (keys, outcomes) go back to the same few states on every item (nothing
chosen yet, Submit greyed out), yet Textual draws them again from a Rich or Content renderable
each time, a few milliseconds on the key path. A widget with this mixin names its state in
`memo_key()`; the lines painted for a state (with everything else that changes them: size,
theme, colours, hover, crop) are kept, a few states at most, and given back instead.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

MEMO_STATES = 8
"""Painted states kept per widget (the first state an item shows, a chosen answer, a few more)."""


def _own_reactives(cls: type[Widget]) -> tuple[str, ...]:
    names = cls.__dict__.get("_memo_reactives")
    if names is None:
        names = tuple(name for name in cls._reactives if name not in Widget._reactives)
        cls._memo_reactives = names  # type: ignore[attr-defined]
    return names


class StripMemo(Widget):
    """A Widget whose painted lines are looked up by `memo_key()` before they are drawn."""

    def memo_key(self) -> Hashable:
        """What the widget shows now: equal keys paint equal lines. By default the values of the
        reactives its classes declare (a widget that shows anything else overrides this)."""
        return tuple(getattr(self, name) for name in _own_reactives(type(self)))

    def render_lines(self, crop: Region) -> list[Strip]:
        app = self.app
        key = (self.memo_key(), crop, self.size, app.theme, app.ansi_color, self.rich_style, self.background_colors,
               self.hover_style, tuple(app.get_line_filters()))
        memo: dict[Hashable, list[Strip]] = self.__dict__.setdefault("_strip_memo", {})
        strips = memo.get(key)
        if strips is None:
            if len(memo) >= MEMO_STATES:
                memo.pop(next(iter(memo)))
            self._styles_cache.clear()  # the lines for this state are drawn afresh
            strips = memo[key] = super().render_lines(crop)
        return strips
