"""Keyring backends for tests (the real OS keyring is never touched): one in memory that counts
what it was asked, and one that never answers — a locked Secret Service waiting for a password
nobody types. Select one in a child process with ``PYTHON_KEYRING_BACKEND=
tests.support.keyrings.HangingKeyring``; in the test's own process with :func:`use_keyring`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import keyring
import keyring.core
from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    priority = -1  # type: ignore[assignment]  # never chosen by keyring on its own: set it

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}
        self.reads = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.reads += 1
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


class HangingKeyring(KeyringBackend):
    """Every call waits until :attr:`release` is set (in a child process: forever)."""

    priority = -1  # type: ignore[assignment]  # never chosen by keyring on its own: set it
    release = threading.Event()
    calls = 0

    def _wait(self) -> None:
        type(self).calls += 1
        self.release.wait()

    def get_password(self, service: str, username: str) -> str | None:
        self._wait()
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self._wait()

    def delete_password(self, service: str, username: str) -> None:
        self._wait()


@contextmanager
def use_keyring(backend: KeyringBackend) -> Iterator[KeyringBackend]:
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@contextmanager
def keyring_from_environment() -> Iterator[KeyringBackend]:
    """The backend ``PYTHON_KEYRING_BACKEND`` names (set it first), as an app process at its
    start would choose it."""
    previous = keyring.get_keyring()
    keyring.core.init_backend()
    try:
        yield keyring.get_keyring()
    finally:
        keyring.set_keyring(previous)
