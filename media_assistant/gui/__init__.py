"""The desktop app: the only package that imports PySide6. Widgets get their services injected
(from ``media_assistant.app``); none of them reaches for globals."""
