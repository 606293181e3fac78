"""API keys: from the account's environment variable, else the OS keyring. Never logged.

``accounts set-key ID`` stores a key with :func:`store_api_key`; lanes and the CLI read it with
:func:`resolve_api_key`. Error messages name the account and where we looked, never a key.
"""

from __future__ import annotations

import os

from media_assistant.core.model.errors import ConfigError, ErrorKind, ProviderError

KEYRING_SERVICE = "media-assistant"


def resolve_api_key(account_id: str, api_key_env: str | None) -> str:
    """The key for ``account_id``: ``$api_key_env`` if configured and set, else the keyring."""
    if api_key_env:
        value = os.environ.get(api_key_env, "").strip()
        if value:
            return value
    import keyring
    import keyring.errors

    looked = [f"environment variable {api_key_env} (not set)"] if api_key_env else []
    try:
        stored = keyring.get_password(KEYRING_SERVICE, account_id)
    except keyring.errors.NoKeyringError:
        stored = None
        looked.append("the OS keyring (none available on this system)")
    except Exception as exc:  # a locked or broken keyring backend: say so, go on without it
        stored = None
        looked.append(f"the OS keyring (unreadable: {type(exc).__name__})")
    else:
        if not stored:
            looked.append(f"the OS keyring (no entry for service {KEYRING_SERVICE!r})")
    if stored and stored.strip():
        return stored.strip()
    hint = f"set {api_key_env}" if api_key_env else "set 'api_key_env' in the config"
    raise ProviderError(
        ErrorKind.BAD_CONFIG,
        f"no API key for account {account_id!r}: looked in {' and '.join(looked)}; "
        f"run 'media-assistant accounts set-key {account_id}' or {hint}",
    )


def store_api_key(account_id: str, key: str) -> None:
    """Save ``key`` in the OS keyring (``accounts set-key``); raises ConfigError if impossible."""
    key = key.strip()
    if not key:
        raise ConfigError(f"account {account_id!r}: the API key is empty")
    import keyring
    import keyring.errors

    try:
        keyring.set_password(KEYRING_SERVICE, account_id, key)
    except keyring.errors.NoKeyringError:
        raise ConfigError(
            f"account {account_id!r}: no OS keyring is available on this system; put the key in "
            f'an environment variable and name it with api_key_env = "..." in the account\'s '
            f"config instead"
        ) from None
    except keyring.errors.KeyringError as exc:
        raise ConfigError(
            f"account {account_id!r}: the OS keyring refused the key ({type(exc).__name__}); "
            f"unlock it and retry, or use api_key_env in the account's config"
        ) from None


def store_password_key(url: str) -> str:
    """The keyring entry of a team database's password: its user, host, port and database (the
    URL's query — sslmode and such — does not change whose password it is)."""
    from sqlalchemy.engine import make_url

    u = make_url(url)
    return f"store:{u.username or ''}@{u.host or ''}:{u.port or 5432}/{u.database or ''}"


def read_store_password(url: str) -> str | None:
    """The password ``store set-password`` kept for this database, or None (libpq then looks in
    PGPASSWORD, ~/.pgpass and service files itself). A keyring that cannot be read is None too:
    the connection attempt says what is missing."""
    import keyring

    try:
        value = keyring.get_password(KEYRING_SERVICE, store_password_key(url))
    except Exception:  # no keyring, a locked one: libpq's own ways still work
        return None
    return value or None


def save_store_password(url: str, password: str) -> None:
    """``store set-password``: keep it in the OS keyring; ConfigError if impossible."""
    if not password:
        raise ConfigError("the password is empty")
    import keyring
    import keyring.errors

    try:
        keyring.set_password(KEYRING_SERVICE, store_password_key(url), password)
    except keyring.errors.NoKeyringError:
        raise ConfigError(
            "no OS keyring is available on this system: put the password in PGPASSWORD or "
            "~/.pgpass instead"
        ) from None
    except keyring.errors.KeyringError as exc:
        raise ConfigError(
            f"the OS keyring refused the password ({type(exc).__name__}); unlock it and retry, "
            "or use PGPASSWORD or ~/.pgpass"
        ) from None
