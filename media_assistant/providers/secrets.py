"""Secrets — API keys, webhook addresses and signing secrets, and any kind added later (team
mode's database password) — from an environment variable, else the OS keyring. Never logged.

One module asks the keyring, for every kind of secret: a kind is one :class:`SecretKind` line
(its keyring service and the words for it), so a new one costs a line, not a fourth copy of
the look-up. The keyring is never asked on an event loop's thread: a locked Secret Service, or
a Linux desktop without one, can keep a call waiting for many seconds (seen: 13 s, then an
error), and the window would freeze. Every keyring call runs on one daemon thread of this
module (a stuck call cannot keep the process from exiting, as an executor's thread would) and
is waited for at most :data:`KEYRING_TIMEOUT_S`; a keyring that did not answer is then said
to be so, as a :class:`SecretStoreUnavailable` with ``reason`` ``"timeout"``.

Values read from the keyring are kept for the session (a webhook delivery, *Test connection*
after *Fetch the model list*, a provider's rebuild ask once), and forgotten or replaced when
this process stores or deletes one; ``fresh=True`` reads past the cache (a provider is
rebuilt because another process stored a new key). A secret not found is not cached: the
operator stores it, the next look finds it. Environment variables are read each time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from media_assistant.core.model.errors import ConfigError, ErrorKind, ProviderError

T = TypeVar("T")

KEYRING_TIMEOUT_S = 10.0  # a keyring call that has not answered by then is given up on


@dataclass(frozen=True, slots=True)
class SecretKind:
    """What a secret is: where the keyring keeps it (``service``, entries named by ``name``)
    and how messages call it."""

    service: str
    what: str


# The keyring services are those earlier versions stored under: entries stay readable.
API_KEY = SecretKind("media-assistant", "API key")
WEBHOOK = SecretKind("media-assistant-webhooks", "webhook address or secret")
STORE_PASSWORD = SecretKind("media-assistant", "database password")  # team mode's store
KINDS = (API_KEY, WEBHOOK, STORE_PASSWORD)

KEYRING_SERVICE = API_KEY.service

# Windows' Credential Manager keeps a secret of at most 2,560 bytes (CRED_MAX_CREDENTIAL_BLOB_SIZE,
# 5 × 512), stored as UTF-16: refused on every platform, so a config moves between PCs unchanged.
MAX_SECRET_BYTES = 2560  # kept for callers that name the API keys' service


class SecretStoreUnavailable(ConfigError):
    """The OS keyring cannot keep (or give) a secret here. ``reason``: ``"none"`` (no keyring
    on this system), ``"timeout"`` (it did not answer: locked, or its service is missing),
    ``"refused"`` (it said no: locked, access denied)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(slots=True)
class Lookup:
    """A secret looked for: its value (None: not found) and where it was looked for, in words
    for an error message (never the value)."""

    value: str | None
    looked: list[str] = field(default_factory=list)
    keyring_problem: str | None = None  # a SecretStoreUnavailable reason, if the keyring failed


# ------------------------------------------------------------------------------ the keyring thread


class _KeyringThread:
    """One daemon thread that makes every keyring call, in order."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]]
        self._jobs = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, call: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="keyring", daemon=True)
                self._thread.start()
        self._jobs.put((call, future))
        return future

    def _run(self) -> None:
        while True:
            call, future = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call())
            except BaseException as exc:  # handed to the waiting caller
                future.set_exception(exc)


_THREAD = _KeyringThread()
_cache: dict[tuple[str, str], str] = {}
_cache_lock = threading.Lock()


_WHY = {
    "none": "none available on this system",
    "timeout": "no answer: locked, or no keyring service running",
    "refused": "it refused",
}


def _keyring_call(call: Callable[[], T], timeout_s: float | None = None) -> T:
    """``call`` on the keyring thread, waited for at most ``timeout_s`` (default
    :data:`KEYRING_TIMEOUT_S`). Raises SecretStoreUnavailable when there is no keyring or it
    does not answer; other keyring errors as they are."""
    import keyring.errors

    limit = KEYRING_TIMEOUT_S if timeout_s is None else timeout_s
    future = _THREAD.submit(call)
    try:
        return future.result(limit)
    except concurrent.futures.TimeoutError:
        future.cancel()  # if it has not started (behind a stuck call), it never will
        raise SecretStoreUnavailable(
            f"the OS keyring did not answer within {limit:.0f} s (locked, or no keyring "
            "service running)",
            "timeout",
        ) from None
    except keyring.errors.NoKeyringError:
        raise SecretStoreUnavailable("no OS keyring is available on this system", "none") from None


def _is_no_keyring(backend: object) -> bool:
    import keyring.backends.chainer
    import keyring.backends.fail

    if isinstance(backend, keyring.backends.fail.Keyring):
        return True
    return isinstance(backend, keyring.backends.chainer.ChainerBackend) and not backend.backends


def keyring_available(timeout_s: float | None = None) -> str | None:
    """None if this system has a keyring that answers, else why not (a
    :class:`SecretStoreUnavailable` reason). Blocking: call it off the event loop."""
    import keyring

    try:
        backend = _keyring_call(keyring.get_keyring, timeout_s)
    except SecretStoreUnavailable as exc:
        return exc.reason
    except Exception:
        return "refused"
    return "none" if _is_no_keyring(backend) else None


# ------------------------------------------------------------------------------ reading


def lookup(kind: SecretKind, name: str, env: str | None = None, *, fresh: bool = False) -> Lookup:
    """``$env`` if given and set, else the keyring's entry ``name`` of ``kind`` (cached for the
    session unless ``fresh``). Blocking: call it off the event loop (:func:`alookup`)."""
    found = Lookup(None)
    if env:
        value = os.environ.get(env, "").strip()
        if value:
            return Lookup(value)
        found.looked.append(f"environment variable {env} (not set)")
    if not fresh:
        with _cache_lock:
            cached = _cache.get((kind.service, name))
        if cached is not None:
            return Lookup(cached)
    import keyring

    try:
        stored = _keyring_call(lambda: keyring.get_password(kind.service, name))
    except SecretStoreUnavailable as exc:
        found.keyring_problem = exc.reason
        found.looked.append(f"the OS keyring ({_WHY[exc.reason]})")
        return found
    except Exception as exc:  # a locked or broken keyring backend: say so, go on without it
        found.keyring_problem = "refused"
        found.looked.append(f"the OS keyring (unreadable: {type(exc).__name__})")
        return found
    value = (stored or "").strip()
    if not value:
        found.looked.append(f"the OS keyring (no entry {name!r} for service {kind.service!r})")
        return found
    with _cache_lock:
        _cache[(kind.service, name)] = value
    return Lookup(value)


async def alookup(
    kind: SecretKind, name: str, env: str | None = None, *, fresh: bool = False
) -> Lookup:
    """:func:`lookup` from an event loop: the loop's thread never waits for the keyring."""
    if env and (value := os.environ.get(env, "").strip()):
        return Lookup(value)
    if not fresh:
        with _cache_lock:
            cached = _cache.get((kind.service, name))
        if cached is not None:
            return Lookup(cached)
    return await asyncio.to_thread(lookup, kind, name, env, fresh=fresh)


def forget(kind: SecretKind, name: str) -> None:
    """The next look-up of this secret asks the keyring again (a delivery with it failed)."""
    with _cache_lock:
        _cache.pop((kind.service, name), None)


def forget_all() -> None:
    with _cache_lock:
        _cache.clear()


# ------------------------------------------------------------------------------ storing


def store(kind: SecretKind, name: str, value: str, *, label: str | None = None) -> None:
    """Keep ``value`` in the keyring as ``name`` (and in this session's cache). Raises
    :class:`SecretStoreUnavailable` (no keyring, no answer, refused) with a message naming
    ``label`` (default: the kind and the name) and the way out: an environment variable."""
    import keyring
    import keyring.errors

    value = value.strip()
    subject = label or f"{kind.what} {name!r}"
    size = len(value.encode("utf-16-le"))  # how Windows' Credential Manager stores it
    if size > MAX_SECRET_BYTES:
        raise ConfigError(
            f"{subject}: too long for the OS keyring ({size:,} bytes as Windows keeps it; "
            f"Credential Manager holds at most {MAX_SECRET_BYTES:,}, about "
            f"{MAX_SECRET_BYTES // 2:,} characters): put it in an environment variable instead"
        )
    try:
        _keyring_call(lambda: keyring.set_password(kind.service, name, value))
    except SecretStoreUnavailable as exc:
        raise SecretStoreUnavailable(f"{subject}: cannot be kept here: {exc}", exc.reason) from None
    except keyring.errors.KeyringError as exc:
        raise SecretStoreUnavailable(
            f"{subject}: the OS keyring refused it ({type(exc).__name__}); unlock it and try again",
            "refused",
        ) from None
    with _cache_lock:
        _cache[(kind.service, name)] = value


def delete(kind: SecretKind, name: str) -> bool:
    """Remove the keyring's entry ``name`` (an account removed: a later account of the same
    name must not find its key). True if one was removed; no keyring, none stored: False."""
    import keyring
    import keyring.errors

    forget(kind, name)
    try:
        if _keyring_call(lambda: keyring.get_password(kind.service, name)) is None:
            return False
        _keyring_call(lambda: keyring.delete_password(kind.service, name))
    except (SecretStoreUnavailable, keyring.errors.PasswordDeleteError):
        return False
    return True


# ------------------------------------------------------------------------------ API keys


def resolve_api_key(account_id: str, api_key_env: str | None, *, fresh: bool = False) -> str:
    """The key for ``account_id``: ``$api_key_env`` if configured and set, else the keyring.
    Raises ``ProviderError(BAD_CONFIG)`` naming the account and where it looked."""
    found = lookup(API_KEY, account_id, api_key_env, fresh=fresh)
    if found.value:
        return found.value
    hint = f"set {api_key_env}" if api_key_env else "set 'api_key_env' in the config"
    raise ProviderError(
        ErrorKind.BAD_CONFIG,
        f"no API key for account {account_id!r}: looked in {' and '.join(found.looked)}; "
        f"run 'media-assistant accounts set-key {account_id}' or {hint}",
    )


def store_api_key(account_id: str, key: str) -> None:
    """Save ``key`` in the OS keyring (``accounts set-key``, the set-up window); raises
    ConfigError (a :class:`SecretStoreUnavailable` when the keyring cannot keep it)."""
    if not key.strip():
        raise ConfigError(f"account {account_id!r}: the API key is empty")
    try:
        store(API_KEY, account_id, key, label=f"account {account_id!r}: the API key")
    except SecretStoreUnavailable as exc:
        raise SecretStoreUnavailable(
            f"{exc}; put the key in an environment variable and name it with "
            f'api_key_env = "..." in the account\'s config instead',
            exc.reason,
        ) from None


# ------------------------------------------------------------------------------ team mode's store


def store_password_key(url: str) -> str:
    """The keyring entry of a team database's password: its user, host, port and database (the
    URL's query — sslmode and such — does not change whose password it is)."""
    from sqlalchemy.engine import make_url

    u = make_url(url)
    return f"store:{u.username or ''}@{u.host or ''}:{u.port or 5432}/{u.database or ''}"


def read_store_password(url: str) -> str | None:
    """The password ``store set-password`` kept for this database, or None (libpq then looks in
    PGPASSWORD, ~/.pgpass and service files itself). A keyring that cannot be read (none, locked,
    not answering) is None too: the connection attempt says what is missing."""
    return lookup(STORE_PASSWORD, store_password_key(url)).value


def save_store_password(url: str, password: str) -> None:
    """``store set-password``: keep it in the OS keyring; ConfigError if impossible."""
    if not password:
        raise ConfigError("the password is empty")
    try:
        store(STORE_PASSWORD, store_password_key(url), password, label="the database password")
    except SecretStoreUnavailable as exc:
        raise SecretStoreUnavailable(
            f"{exc}; put the password in PGPASSWORD or ~/.pgpass instead", exc.reason
        ) from None


def without_secret(error: ProviderError, secret: str | None) -> ProviderError:
    """``error`` with ``secret`` cut out of its message: a server may echo the key it refused,
    and the message reaches logs and the window."""
    if not secret or secret not in error.message:
        return error
    return ProviderError(
        error.kind,
        error.message.replace(secret, "***"),
        retry_after=error.retry_after,
        status=error.status,
        code=error.code,
        params=error.params,
    )
