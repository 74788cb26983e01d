"""A corpus of malformed inputs (files, specs, guidelines, names): each gives a clear one-line
error naming the file, the line (or record) and the field, and leaves the session files
byte-identical."""
