"""Results out: task records with their input rows as CSV, JSONL, XLSX, Markdown, DOCX or a
folder of Markdown files, written atomically and privately; the window's exports run in a child
process (``child``). May import ``core.model``, ``files``, ``rules``, ``config`` and
``store``."""
