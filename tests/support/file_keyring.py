"""A keyring backend for tests: a JSON file named by $MA_TEST_KEYRING_FILE, so a key stored by
one ``media-assistant`` process is found by the next (the real OS keyring is never touched).

Select it with ``PYTHON_KEYRING_BACKEND=tests.support.file_keyring.FileKeyring``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend


class FileKeyring(KeyringBackend):
    priority = -1  # type: ignore[assignment]  # never chosen by keyring on its own: set it

    def _path(self) -> Path:
        return Path(os.environ["MA_TEST_KEYRING_FILE"])

    def _load(self) -> dict[str, str]:
        path = self._path()
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._path().write_text(json.dumps(data), encoding="utf-8")

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        data.pop(f"{service}/{username}", None)
        self._path().write_text(json.dumps(data), encoding="utf-8")
