"""Batch files in: a CSV, TSV, XLSX or JSONL file (or pasted lines) decoded into a table and
built into tasks, where any problem rejects the whole file with its row and column. May import
``core.model``, ``rules`` and ``store`` (the format of generated task ids)."""
