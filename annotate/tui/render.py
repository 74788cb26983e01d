"""Untrusted Markdown to lines of cells, safely, once per (document, width), a part at a time.

Why not Textual's `Markdown` widget: it mounts one widget per block, which takes hundreds of
milliseconds for a 10k-character response (bench/bench_tui.py). Here a document is rendered by
Rich into `Strip`s per width and a `DocView` paints only the lines in view; changing items swaps
one list for another.

Lazily: rendering a 10k-character response takes ~25 ms and a 50k one ~200 ms, too long to sit
between a key press and the next item. A `DocLines` cuts the document into parts (fixed
headings, and runs of top-level Markdown blocks cut where CommonMark must start a new block, see
`markdown_runs`), renders them in order only as far as asked (`ensure`: the view asks for its
first screenful), cutting the text only that far too, and estimates the height of the rest until
it is rendered (by the render thread, `prefetch.Prefetcher`). All parts together give exactly the
lines of rendering the whole document in one go (`render_lines`; tests/tui/test_render_lazy.py
compares them).

Safety: every text goes through `annotate.safe_text.sanitize` first (terminal controls become
visible placeholders); Markdown is parsed with raw HTML turned off, so tags show as typed and
nothing is hidden; links render as `text (url)`, never as terminal hyperlinks; and no text is
ever parsed as Rich console markup (`[bold]` stays literal). Headings that we add (role names)
are fixed strings.
"""

from __future__ import annotations

import io
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.markdown import Markdown, MarkdownElement
from rich.segment import Segment
from rich.style import Style
from rich.styled import Styled
from rich.text import Text
from textual.strip import Strip

from annotate.safe_text import sanitize
from annotate.tui.markdown_runs import iter_runs

CODE_THEME = "monokai"
"""Pygments theme for fenced code blocks."""

_local = threading.local()


class _BlankLineNext(MarkdownElement):
    """Renders nothing; Rich puts a blank line before the next block (see `DocLines`)."""

    new_line = True


_BLANK_LINE_NEXT = "annotate_blank_line_next"
"""Token type of `_BlankLineNext`; not one markdown-it makes."""


class SafeMarkdown(Markdown):
    """Rich Markdown with raw HTML disabled and terminal hyperlinks off.

    Rich's own parser enables HTML, and then drops HTML blocks from the output, which would hide
    part of a response from the annotator. Here `<script>` shows as the text `<script>`. The
    parser is built once per thread (building one compiles linkify's regexes, ~1 ms).

    references: link reference definitions of the whole document (label -> href and title), for a
    part of it parsed on its own; None when the document has none.
    """

    def __init__(self, markup: str, references: dict[str, Any] | None = None) -> None:
        # Rich's __init__ would build and run its own parser; set its attributes directly.
        self.markup = markup
        env = {"references": dict(references)} if references else {}
        self.parsed = _parser().parse(markup, env)
        self.code_theme = CODE_THEME
        self.justify = None
        self.style = "none"
        self.hyperlinks = False
        self.inline_code_lexer = None
        self.inline_code_theme = CODE_THEME

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {**Markdown.elements, _BLANK_LINE_NEXT: _BlankLineNext}


def _parser(blocks_only: bool = False) -> MarkdownIt:
    name = "block_parser" if blocks_only else "parser"
    parser = getattr(_local, name, None)
    if parser is None:
        parser = MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")
        if blocks_only:
            parser.disable("inline")
        setattr(_local, name, parser)
    return parser


@dataclass(frozen=True)
class Block:
    """One part of a document: an optional fixed heading and Markdown text from an item."""

    text: str
    heading: str = ""
    """A fixed label such as `User` or `Earlier turn · Assistant`; never item text."""
    dim: bool = False
    """Shown dimmed (context rather than the thing judged)."""
    empty: str = "(empty)"
    """A fixed placeholder shown (dim, italic) when the text is empty or blank; never item text."""


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


def _options(console: Console, width: int) -> ConsoleOptions:
    return console.options.update(width=width, min_width=width, max_width=width, height=None)


def renderable(doc: Doc) -> RenderableType:
    """The Rich renderable for a document (sanitised, no markup)."""
    parts: list[RenderableType] = []
    for index, block in enumerate(doc.blocks):
        if block.heading:
            if index:
                parts.append(Text(""))
            parts.append(Text(block.heading, style="bold reverse"))
        body = SafeMarkdown(sanitize(block.text)) if block.text.strip() else Text(block.empty, style="italic dim")
        parts.append(Styled(body, "dim") if block.dim else body)
    return Group(*parts)


def render_lines(doc: Doc, width: int) -> list[Strip]:
    """The whole document as lines exactly `width` cells wide, rendered in one go."""
    width = max(width, 8)
    console = _console()
    lines = console.render_lines(renderable(doc), _options(console, width), pad=True, new_lines=False)
    strips = [_strip(line, width) for line in lines]
    _strip_trailing_blanks(strips)
    return strips


_NULL = Style()


def _strip(line: list[Segment], width: int) -> Strip:
    """A rendered line as a Strip whose segments all have a style: Textual's monochrome filter
    (NO_COLOR) reads every segment's style and fails on None."""
    return Strip([seg if seg.style is not None else Segment(seg.text, _NULL, seg.control) for seg in line], width)


def _strip_trailing_blanks(strips: list[Strip]) -> None:
    while len(strips) > 1 and not strips[-1].text.strip():
        strips.pop()


def _references(text: str) -> dict[str, Any] | None:
    """The link reference definitions in `text` (a block-level parse; only when it may have some)."""
    if "]:" not in text:
        return None
    env: dict[str, Any] = {}
    _parser(blocks_only=True).parse(text, env)
    return env.get("references") or None


def _estimate(text: str, width: int) -> int:
    """A guess at the lines a run of Markdown takes at `width`: one per source line, more when long."""
    usable = max(1, width - 4)
    return sum(1 + len(line) // usable for line in text.split("\n"))


@dataclass(frozen=True)
class _Run:
    """A run of top-level Markdown blocks of one `Block` (already sanitised)."""

    text: str
    dim: bool
    first: bool
    """The block's first run (Rich starts each Markdown without a blank line)."""
    references: dict[str, Any] | None


@dataclass(frozen=True)
class _Text:
    """A `Block`'s Markdown text, sanitised, before it is cut into runs."""

    text: str
    dim: bool
    references: dict[str, Any] | None


def _pieces(doc: Doc) -> list[RenderableType | _Text]:
    """The document as fixed lines and whole Markdown texts, in order (what `renderable` puts in a
    Group, the texts not yet cut: `_parts`)."""
    pieces: list[RenderableType | _Text] = []
    for index, block in enumerate(doc.blocks):
        if block.heading:
            if index:
                pieces.append(Text(""))
            pieces.append(Text(block.heading, style="bold reverse"))
        if not block.text.strip():
            empty = Text(block.empty, style="italic dim")
            pieces.append(Styled(empty, "dim") if block.dim else empty)
            continue
        text = sanitize(block.text)
        pieces.append(_Text(text, block.dim, _references(text)))
    return pieces


def _parts(pieces: list[RenderableType | _Text]) -> Iterator[RenderableType | _Run]:
    """The fixed lines and the Markdown runs of `pieces`, in order, each text cut only as far as its
    runs are asked for."""
    for piece in pieces:
        if isinstance(piece, _Text):
            for i, run in enumerate(iter_runs(piece.text)):
                yield _Run(run, piece.dim, i == 0, piece.references)
        else:
            yield piece


class DocLines:
    """A document's lines at one width, rendered a part at a time, in order. Thread-safe.

    `lines` grows as parts are rendered (never changes otherwise, except that blank lines at the
    very end are dropped when the last part is rendered); `height` is the number of lines so far
    plus an estimate for the rest, exact once `complete`. Every part rendered gives exactly
    `render_lines(doc, width)`.
    """

    def __init__(self, doc: Doc, width: int) -> None:
        self.doc = doc
        self.width = width
        """The width asked for; lines are `max(width, 8)` cells wide."""
        self.lines: list[Strip] = []
        """The lines rendered so far, from the top."""
        self._cells = max(width, 8)
        pieces = _pieces(doc)
        # A text's estimate is the sum of its runs' (they are its lines, cut into consecutive runs),
        # so the texts are cut only as far as they are rendered.
        self._rest = sum(_estimate(p.text, self._cells) if isinstance(p, _Text) else 1 for p in pieces)
        self._chars = [0, sum(len(p.text) for p in pieces if isinstance(p, _Text))]
        self._parts = _parts(pieces)
        self._part = next(self._parts, None)
        """The next part to render; None once every part is rendered."""
        self._blank_line_next = False
        """Rich's state between the runs of one Markdown: a blank line before the next block."""
        self._complete = self._part is None
        self._callbacks: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    @property
    def complete(self) -> bool:
        """Every part is rendered: `lines` is the whole document."""
        return self._complete

    @property
    def height(self) -> int:
        """Lines rendered plus the estimated lines of the parts not yet rendered."""
        return len(self.lines) + (0 if self._complete else self._rest)

    @property
    def progress(self) -> tuple[int, int]:
        """(characters of Markdown rendered, characters of Markdown in all), sanitised, for tests and
        benchmarks."""
        return self._chars[0], self._chars[1]

    def ensure(self, count: int) -> bool:
        """Render parts until there are `count` lines or the document is complete; True if it
        rendered anything."""
        if self._complete or len(self.lines) >= count:
            return False
        with self._lock:
            while not self._complete and len(self.lines) < count:
                self._render_next()
        self._run_callbacks()
        return True

    def render_next(self) -> bool:
        """Render the next part; False when there was none left."""
        if self._complete:
            return False
        with self._lock:
            if self._complete:
                return False
            self._render_next()
        self._run_callbacks()
        return True

    def finish(self) -> list[Strip]:
        """Render every part left; the whole document's lines."""
        self.ensure(sys.maxsize)
        return self.lines

    def when_complete(self, callback: Callable[[], None]) -> None:
        """Call `callback()` once every part is rendered: now if it is, else from the thread
        rendering the last part."""
        with self._lock:
            if not self._complete:
                self._callbacks.append(callback)
                return
        callback()

    def _run_callbacks(self) -> None:
        if not self._complete:
            return
        with self._lock:
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def _render_next(self) -> None:
        """Render the next part (the lock is held)."""
        part = self._part
        assert part is not None
        console = _console()
        options = _options(console, self._cells)
        shown: RenderableType
        if isinstance(part, _Run):
            markdown = SafeMarkdown(part.text, part.references)
            tokens = markdown.parsed
            if tokens and self._blank_line_next and not part.first:
                # Rich decides on the blank line before a block from the last element it closed;
                # a run parsed alone would start without one, so carry it over from the last run.
                markdown.parsed = [Token(_BLANK_LINE_NEXT, "", 0), *tokens]
            if part.first:
                self._blank_line_next = False
            if tokens:  # the last token closes a top-level block; after an hr, Rich adds no blank line
                self._blank_line_next = tokens[-1].type != "hr"
            shown = Styled(markdown, "dim") if part.dim else markdown
        else:
            shown = part
        lines = console.render_lines(shown, options, pad=True, new_lines=False)
        self.lines.extend(_strip(line, self._cells) for line in lines)
        if isinstance(part, _Run):
            self._rest -= _estimate(part.text, self._cells)
            self._chars[0] += len(part.text) + (0 if part.first else 1)  # the newline cut before it
        else:
            self._rest -= 1
        self._part = next(self._parts, None)
        if self._part is None:
            _strip_trailing_blanks(self.lines)
            self._complete = True


class LineCache:
    """`DocLines` by (doc key, width), least recently used dropped first. Thread-safe."""

    def __init__(self, capacity: int = 32) -> None:
        self.capacity = capacity
        self._docs: OrderedDict[tuple[tuple[str, ...], int], DocLines] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, doc: Doc, width: int) -> DocLines | None:
        """The document's lines at `width` if cached (complete or not), else None."""
        with self._lock:
            key = (doc.key, width)
            lines = self._docs.get(key)
            if lines is not None:
                self._docs.move_to_end(key)
            return lines

    def get(self, doc: Doc, width: int) -> DocLines:
        """The document's lines at `width`, made (not yet rendered) when not cached."""
        lines = self.peek(doc, width)
        if lines is not None:
            return lines
        made = DocLines(doc, width)
        with self._lock:
            key = (doc.key, width)
            lines = self._docs.setdefault(key, made)
            self._docs.move_to_end(key)
            while len(self._docs) > self.capacity:
                self._docs.popitem(last=False)
            return lines


def whole_lines(doc: Doc, width: int) -> DocLines:
    """The document's lines at `width`, every part rendered now (no render thread to finish them)."""
    lines = DocLines(doc, width)
    lines.finish()
    return lines
