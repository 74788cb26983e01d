"""Readers and writers of items and labels: native JSON Lines, CSV / JSON through field maps,
Chatbot Arena battles, MT-Bench judgments, ratings made elsewhere, and exports.

Every import is atomic (one bad record: an error naming the file, line or record and field, and
nothing written) and idempotent (importing the same file twice changes nothing). Untrusted text is
stored exactly as written and never interpreted. No module here imports pandas.
"""

from annotate.formats.errors import FormatError
from annotate.formats.export import EXPORT_FORMATS, WHATS, ExportError, export
from annotate.formats.fields import MAX_TEXT_CHARS
from annotate.formats.importing import ITEM_FORMATS, ImportReport, import_items, import_labels
from annotate.formats.leaks import Leak, find_identity_leaks
from annotate.formats.mapped import OptionError

__all__ = [
    "EXPORT_FORMATS",
    "ITEM_FORMATS",
    "MAX_TEXT_CHARS",
    "WHATS",
    "ExportError",
    "FormatError",
    "ImportReport",
    "Leak",
    "OptionError",
    "export",
    "find_identity_leaks",
    "import_items",
    "import_labels",
]
