"""Batch files in: a CSV, TSV, XLSX or JSONL file (or pasted lines) decoded into a table and
built into tasks, where any problem rejects the whole file with its row and column.

``table`` (the table as read, the headers every format accepts) ← ``delimited`` (CSV, TSV),
``xlsx``, ``jsonl`` (one decoder per format) ← ``batch_import`` (the entry: read a file, build
tasks, preview, templates, title column). May import ``core.model``, ``rules`` and ``store``
(the format of generated task ids)."""
