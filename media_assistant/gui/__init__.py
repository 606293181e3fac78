"""The desktop app: the only package that imports PySide6. Widgets get their services injected
(from ``media_assistant.app``); none of them reaches for globals.

Packages, from the bottom (imports point down, tests/unit/test_layering.py holds them to it):
``common`` (style, words, translations) → ``bridge`` (events as signals, the controller,
jobs) → ``tasks``, ``timeline``, ``notices``, ``metrics`` → ``batches`` (→ ``tasks``),
``accounts`` → ``window`` (the main window, which assembles them all)."""
