"""Headless commands behind ``media_assistant.cli`` (no Qt)."""
