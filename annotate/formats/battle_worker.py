"""The worker process of an Arena import (`annotate.formats.battle_blocks`): `python -m
annotate.formats.battle_worker FILE` reads FILE a block of lines at a time, after its byte-order
mark, and writes what `parse_block` makes of each block to its standard output: its length in 8
bytes (little-endian), then its `marshal` (as fast to write as a pickle without its memo, and
of the same size); a length of 0 ends the output. The facts of every other block's battles are
left to the importing process, which otherwise waits for the worker a fifth of its time.

It reads only the file it is given, and writes only to the pipe its parent reads.
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path
from typing import BinaryIO

from annotate.formats.battle_blocks import parse_block
from annotate.formats.streaming import line_blocks, skip_bom

MARSHAL_VERSION = 4
"""Tuples, lists, dicts, texts, numbers and None, as the records hold them (the worker and the
importing process are the same Python)."""


def serve(path: Path, out: BinaryIO) -> None:
    """Parse the file's blocks and send each, in file order (with its bytes where it is not UTF-8)."""
    with path.open("rb") as handle:
        skip_bom(handle)
        for k, (block, number, offset) in enumerate(line_blocks(handle)):
            parsed = parse_block(block, number + 1, facts=k % 2 == 0)
            message = marshal.dumps((number, offset, parsed, block if parsed is None else None), MARSHAL_VERSION)
            out.write(len(message).to_bytes(8, "little"))
            out.write(message)
    out.write(bytes(8))
    out.flush()


if __name__ == "__main__":
    try:
        serve(Path(sys.argv[1]), sys.stdout.buffer)
    except BrokenPipeError:  # the import stopped reading (an error in an earlier record, or an interrupt)
        sys.exit(1)
