"""Untrusted Markdown to lines of cells, safely and once per (document, width).

Why not Textual's `Markdown` widget: it mounts one widget per block, which takes hundreds of
milliseconds for a 10k-character response (bench/bench_tui.py). Here a document is rendered by
Rich into a list of `Strip`s once per width, off the UI thread when it is prefetched, and a
`DocView` paints only the lines in view; changing items swaps one list for another.

Safety: every text goes through `annotate.safe_text.sanitize` first (terminal controls become
visible placeholders); Markdown is parsed with raw HTML turned off, so tags show as typed and
nothing is hidden; links render as `text (url)`, never as terminal hyperlinks; and no text is
ever parsed as Rich console markup (`[bold]` stays literal). Headings that we add (role names)
are fixed strings.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from markdown_it import MarkdownIt
from rich.console import Console, Group, RenderableType
from rich.markdown import Markdown
from rich.styled import Styled
from rich.text import Text
from textual.strip import Strip

from annotate.safe_text import sanitize

CODE_THEME = "monokai"
"""Pygments theme for fenced code blocks."""

_local = threading.local()


class SafeMarkdown(Markdown):
    """Rich Markdown with raw HTML disabled and terminal hyperlinks off.

    Rich's own parser enables HTML, and then drops HTML blocks from the output, which would hide
    part of a response from the annotator. Here `<script>` shows as the text `<script>`. The
    parser is built once per thread (building one compiles linkify's regexes, ~1 ms).
    """

    def __init__(self, markup: str) -> None:
        # Rich's __init__ would build and run its own parser; set its attributes directly.
        self.markup = markup
        self.parsed = _parser().parse(markup)
        self.code_theme = CODE_THEME
        self.justify = None
        self.style = "none"
        self.hyperlinks = False
        self.inline_code_lexer = None
        self.inline_code_theme = CODE_THEME


def _parser() -> MarkdownIt:
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")
        _local.parser = parser
    return parser


@dataclass(frozen=True)
class Block:
    """One part of a document: an optional fixed heading and Markdown text from an item."""

    text: str
    heading: str = ""
    """A fixed label such as `User` or `Earlier turn · Assistant`; never item text."""
    dim: bool = False
    """Shown dimmed (context rather than the thing judged)."""


@dataclass(frozen=True)
class Doc:
    """A document to show in a `DocView`: cache key plus blocks."""

    key: tuple[str, ...]
    """Identifies the content for the line cache, e.g. (item id, "A")."""
    blocks: tuple[Block, ...]

    @property
    def chars(self) -> int:
        return sum(len(b.text) for b in self.blocks)


def _console() -> Console:
    """A private Console per thread (rendering happens on the UI thread and a prefetch thread)."""
    console = getattr(_local, "console", None)
    if console is None:
        console = Console(
            file=io.StringIO(), force_terminal=True, color_system="truecolor", width=120,
            legacy_windows=False, emoji=False, markup=False, highlight=False,
        )
        _local.console = console
    return console


def renderable(doc: Doc) -> RenderableType:
    """The Rich renderable for a document (sanitised, no markup)."""
    parts: list[RenderableType] = []
    for index, block in enumerate(doc.blocks):
        if block.heading:
            if index:
                parts.append(Text(""))
            parts.append(Text(block.heading, style="bold reverse"))
        body = SafeMarkdown(sanitize(block.text)) if block.text.strip() else Text("(empty)", style="italic dim")
        parts.append(Styled(body, "dim") if block.dim else body)
    return Group(*parts)


def render_lines(doc: Doc, width: int) -> list[Strip]:
    """The document as lines exactly `width` cells wide."""
    width = max(width, 8)
    console = _console()
    options = console.options.update(width=width, min_width=width, max_width=width, height=None)
    lines = console.render_lines(renderable(doc), options, pad=True, new_lines=False)
    strips = [Strip(line, width) for line in lines]
    while len(strips) > 1 and not strips[-1].text.strip():
        strips.pop()
    return strips


class LineCache:
    """Rendered lines by (doc key, width), least recently used dropped first. Thread-safe."""

    def __init__(self, capacity: int = 32, render: Callable[[Doc, int], list[Strip]] = render_lines) -> None:
        self.capacity = capacity
        self._render = render
        self._lines: OrderedDict[tuple[tuple[str, ...], int], list[Strip]] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, doc: Doc, width: int) -> list[Strip] | None:
        """The cached lines, or None."""
        with self._lock:
            key = (doc.key, width)
            lines = self._lines.get(key)
            if lines is not None:
                self._lines.move_to_end(key)
            return lines

    def get(self, doc: Doc, width: int) -> list[Strip]:
        """The lines, rendering them now when not cached."""
        lines = self.peek(doc, width)
        if lines is None:
            lines = self._render(doc, width)
            self.put(doc, width, lines)
        return lines

    def put(self, doc: Doc, width: int, lines: list[Strip]) -> None:
        with self._lock:
            self._lines[(doc.key, width)] = lines
            self._lines.move_to_end((doc.key, width))
            while len(self._lines) > self.capacity:
                self._lines.popitem(last=False)
