"""Arena battles of a JSON Lines file, decoded a block of lines at a time, by a worker process when the file is large.

Half of an Arena import's time goes to decoding each line's JSON and making each plain battle's
row and facts (`annotate.formats.arena_batch`, `annotate.style_features.item_facts`), work that
depends on nothing but the line. With a worker, a process of its own (`annotate.formats.battle_worker`)
reads the file and parses it a block of lines at a time (`parse_block`) while this one stages the
rows of the blocks before; `battle_values` yields the records in file order, the same values
whether a worker parsed them or not. A line the parse does not take as it is (anything but one JSON
object alone on its line: broken JSON, space around it) comes back as its text and is read here by
`jsonl_values`, which raises the error a serial read raises at that line or decodes the record the
slower way; a block with a byte that is not UTF-8 comes back whole, for the same reason.
"""

from __future__ import annotations

import marshal
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import IO, Any

from annotate.formats.arena_batch import PlainBattle, battle_item, battle_row, plain_battle
from annotate.formats.reading import _plain_object, jsonl_values
from annotate.formats.streaming import Source, block_lines
from annotate.formats.text_scan import PlainPair

PARALLEL_BYTES = 16 << 20
"""The smallest file parsed by a worker by default: below it, starting one costs more than it saves."""
AHEAD = 8
"""Blocks the worker may parse before their records are needed (each about a MiB of lines)."""
END = b""
"""The message that ends the worker's output (a length of 0)."""

Row = tuple[str, str, str, str]
"""A plain battle's item id, conversation, responses and content hash (`battle_row`)."""
Parsed = tuple[int, int, dict[str, Any] | None, PlainBattle | None, Row | None, tuple[object, ...] | None]
"""(line, record number, then either the object (when not parsed further) or the plain battle,
its row and its facts)."""
Entry = tuple[int, dict[str, Any] | str | None, PlainBattle | None, Row | None, tuple[object, ...] | None]
"""A line of a block as `parse_block` gives it: (line, None, plain battle, row, facts), (line,
object, None, None, None) for any other object, (line, its text, None, None, None) for a line to
read again here."""
Message = tuple[int, int, list[Entry] | None, bytes | None]
"""What the worker sends for a block: the lines and bytes before it, what `parse_block` gave, and
the block itself when it could not be decoded."""


class WorkerError(RuntimeError):
    """The worker parsing a file stopped before it sent the whole file."""


def default_workers(source: Source) -> int:
    """One worker for a JSON Lines file of PARALLEL_BYTES or more when this process may use two
    cores or more; else none (everything is parsed in this process)."""
    if source.container != "jsonl" or len(os.sched_getaffinity(0)) < 2:
        return 0
    return 1 if source.path.stat().st_size >= PARALLEL_BYTES else 0


def battle_values(source: Source, workers: int) -> Iterator[Parsed]:
    """The records of the file in file order, with each plain battle of a JSON Lines file
    (`plain_battle`) parsed into its row and facts, by a worker process when `workers` is 1 or
    more (0: in this process). A record that is not a plain battle comes as its object; errors
    are those of `Source.values` at the same line. A file of another container (a JSON array) is
    read by `Source.values`, every record as its object."""
    if source.container != "jsonl":
        for line, index, data in source.values():
            yield line, index, data, None, None, None
        return
    if workers <= 0:
        yield from _records(source, ((block, number, offset, parse_block(block, number + 1))
                                     for block, number, offset in source.line_blocks()))
        return
    yield from _records(source, _worker_blocks(source))


def _worker_blocks(source: Source) -> Iterator[tuple[bytes, int, int, list[Entry] | None]]:
    """The file's blocks as the worker parsed them, in file order (a block's bytes only where it
    could not be decoded: it is read here). A thread reads the worker's messages as
    they come, up to AHEAD of them before they are needed, so the worker parses on while this
    process stages; the worker is stopped when this is."""
    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (package_root, os.environ.get("PYTHONPATH"))))}
    worker = subprocess.Popen([sys.executable, "-m", "annotate.formats.battle_worker", str(source.path)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env)
    assert worker.stdout is not None
    messages: queue.Queue[bytes | None] = queue.Queue(AHEAD)
    reader = threading.Thread(target=_read_messages, args=(worker.stdout, messages), daemon=True)
    reader.start()
    try:
        while (payload := messages.get()) != END:
            if payload is None:
                raise WorkerError(f"{source.file}: the process parsing it stopped (exit status {worker.wait()});"
                                  " nothing was imported (--workers 0 parses it in this process)")
            number, offset, parsed, block = marshal.loads(payload)
            yield block or b"", number, offset, parsed
    finally:
        if worker.poll() is None:
            worker.kill()
        while reader.is_alive():  # let it see the end of the pipe, room made for what it holds
            with suppress(queue.Empty):
                messages.get(timeout=0.05)
        worker.wait()
        worker.stdout.close()


def _read_messages(stream: IO[bytes], messages: queue.Queue[bytes | None]) -> None:
    """Put each message the worker writes (its length in 8 bytes, then its marshal) on `messages`,
    then END; None if the pipe ends before END came."""
    try:
        while True:
            head = stream.read(8)
            size = int.from_bytes(head, "little") if len(head) == 8 else -1
            payload = stream.read(size) if size > 0 else b""
            if size < 0 or len(payload) < size:
                messages.put(None)
                return
            messages.put(payload if size else END)
            if not size:
                return
    except (OSError, ValueError):
        messages.put(None)


def _records(source: Source, parsed: Iterator[tuple[bytes, int, int, list[Entry] | None]]) -> Iterator[Parsed]:
    """The records of the parsed blocks, numbered across the file; a line (or a block) the parse
    gave back read by `jsonl_values`."""
    index = 0
    for block, number, offset, entries in parsed:
        if entries is None:
            lines = block_lines(source.file, block, number, offset)  # raises for a byte that is not UTF-8
            entries = [(number + 1 + k, text, None, None, None) for k, text in enumerate(lines)]
        for line, data, battle, row, facts in entries:
            if type(data) is str:
                for _, record, value in jsonl_values(source.file, [(line, data)], source._whole_text, index):
                    index = record
                    yield line, record, value, None, None, None
                continue
            index += 1
            yield line, index, data, battle, row, facts  # type: ignore[misc]


def parse_block(block: bytes, first_line: int, facts: bool = True) -> list[Entry] | None:
    """The lines of a block of whole lines (the first numbered `first_line`) as Entries, blank
    lines left out (a plain battle's facts None unless `facts`: then the importing process finds
    them); None for a block that is not UTF-8."""
    from annotate.style_features import item_facts  # numpy: in the worker, or once a file is imported

    try:
        lines = block.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    if block.endswith(b"\n"):
        lines.pop()
    known: set[str] = set()
    entries: list[tuple[int, dict[str, Any] | str | None, PlainBattle | None, Row | None]] = []
    pairs: list[PlainPair] = []
    for place, line in enumerate(lines):
        data = _plain_object(line)
        if data is None:
            if line.strip():
                entries.append((first_line + place, line, None, None))
            continue
        battle = plain_battle(data, known)
        if battle is None:
            entries.append((first_line + place, data, None, None))
            continue
        entries.append((first_line + place, None, battle, battle_row(battle)))
        pairs.append(PlainPair(battle[7], battle[9], battle[6], battle[8], partial(battle_item, battle)))
    if not facts:
        return [(line, data, battle, row, None) for line, data, battle, row in entries]
    found = iter([facts for _, facts in item_facts(pairs)])
    return [(line, data, battle, row, None if battle is None else next(found)) for line, data, battle, row in entries]
