"""Login sessions of the fake chat site: signed cookies that a persistent profile keeps.

A session token is ``<user, base64url>.<issued ns>.<HMAC>``; nothing is stored per login, so with
a fixed ``session_secret`` a browser profile stays logged in across simulator restarts too (the
demo mode relies on it). ``revoke`` (the ``login_expired`` fault) invalidates every token a user was
issued until then; logging in again issues a fresh one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

COOKIE_NAME = "sim_session"
COOKIE_MAX_AGE_S = 90 * 24 * 3600  # long-lived, like the real sites' "remember me"


@dataclass(frozen=True, slots=True)
class Identity:
    user: str  # whose token it is (its signature checked out)
    valid: bool  # False once revoked or when the user is no longer configured


class SessionBook:
    """Thread-safe: tests revoke from their thread while handlers check on the simulator's."""

    def __init__(self, secret: bytes, users: Mapping[str, str] | None) -> None:
        self._secret = secret
        self._users = dict(users) if users is not None else None
        self._lock = threading.Lock()
        self._revoked_before: dict[str, int] = {}  # user → tokens issued before this are dead
        self._all_revoked_before = 0

    def check_password(self, user: str, password: str) -> bool:
        if not user.strip() or not password:
            return False
        if self._users is None:
            return True
        expected = self._users.get(user)
        return expected is not None and hmac.compare_digest(expected, password)

    def known(self, user: str) -> bool:
        return bool(user.strip()) and (self._users is None or user in self._users)

    def issue(self, user: str) -> str:
        name = base64.urlsafe_b64encode(user.encode("utf-8")).decode("ascii").rstrip("=")
        with self._lock:
            # Strictly after any revocation, even within the clock's resolution.
            issued = max(
                time.time_ns(),
                self._revoked_before.get(user, 0) + 1,
                self._all_revoked_before + 1,
            )
        payload = f"{name}.{issued}"
        return f"{payload}.{self._sign(payload)}"

    def identify(self, token: str | None) -> Identity | None:
        """Whose token this is, or None when it is missing, malformed or forged."""
        if not token:
            return None
        name, _, rest = token.partition(".")
        issued_text, _, signature = rest.partition(".")
        if not hmac.compare_digest(self._sign(f"{name}.{issued_text}"), signature):
            return None
        try:
            user = base64.urlsafe_b64decode(name + "=" * (-len(name) % 4)).decode("utf-8")
            issued = int(issued_text)
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return None
        with self._lock:
            revoked = max(self._revoked_before.get(user, 0), self._all_revoked_before)
        return Identity(user, issued > revoked and self.known(user))

    def valid_user(self, token: str | None) -> str | None:
        identity = self.identify(token)
        return identity.user if identity is not None and identity.valid else None

    def revoke(self, user: str | None) -> None:
        """Log ``user`` (None: everyone) out of every session issued so far."""
        now = time.time_ns()
        with self._lock:
            if user is None:
                self._all_revoked_before = now
            else:
                self._revoked_before[user] = now

    def _sign(self, payload: str) -> str:
        digest = hmac.new(self._secret, payload.encode("utf-8"), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:24]).decode("ascii")
