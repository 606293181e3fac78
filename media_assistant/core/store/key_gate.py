"""A shared API key's identity and limits across the team's configs (issue 27 item 5).

The team-wide gate (core/store/api_gate.py) holds an API key's concurrency and rpm/tpm for
every workstation together. It used to be keyed by the account's id in each config, so two
PCs naming one key differently got twice its limits, and the latest start rewrote the limits.

**Identity.** An API account's key and base URL make its identity: HMAC-SHA-256 under a fixed
application salt (:func:`key_identity`), cut to 128 bits and prefixed ``key:`` (an account id
never has a colon, core/config/schema.py). The key itself is never stored, logged or exported;
what is stored cannot be turned back into it (an HMAC of a high-entropy provider key: guessing
it means guessing the key). The standard library's :mod:`hmac` does it: no dependency needed.
Accounts with one identity — under one name or several, on one workstation or many — share one
set of slot and rate rows.

**Limits.** Each workstation's start writes what its config says of each key
(``api_key_limits``: key, workstation, its name for the key, concurrency, rpm, tpm). The gate
then holds the **stricter** of what the workstations online (a live session) and this one say:
the smallest concurrency, the smallest rpm and tpm (a limit is stricter than none), written to
every account row of the key. Two configs that disagree are a :class:`Disagreement`: ``run``
says it at the start (a warning naming both workstations and both limits), ``store info``
lists it. A workstation that stops leaves the stricter value in force until a start rewrites
it (the safe side).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from sqlalchemy import Connection, and_, delete, or_, select, update

from media_assistant.core.model.accounts import AccountDeclaration
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store.schema import AccountRow, ApiKeyLimitRow, SessionRow
from media_assistant.core.store.upsert import upsert

A = AccountRow.__table__  # type: ignore[attr-defined]
K = ApiKeyLimitRow.__table__  # type: ignore[attr-defined]
S = SessionRow.__table__  # type: ignore[attr-defined]

# Fixed for the application: the same key gives the same identity on every workstation.
_SALT = b"media-assistant/api-key-identity/v1"
PREFIX = "key:"
DEFAULT_CONCURRENCY = 3  # as core/store/api_gate.py


def key_identity(key: str, base_url: str) -> str:
    """The identity of an API key at a base URL: ``key:`` and 32 hex digits, never the key.
    The URL's scheme and host are compared without case, and without a trailing slash."""
    parts = urlsplit(base_url.strip())
    url = urlunsplit(
        (parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"), parts.query, "")
    )
    digest = hmac.new(_SALT, f"{url}\n{key.strip()}".encode(), hashlib.sha256).hexdigest()
    return PREFIX + digest[:32]


@dataclass(frozen=True, slots=True)
class Declared:
    """What one workstation's config says of a key."""

    workstation: str
    account_id: str
    concurrency: int | None
    rpm: int | None
    tpm: int | None

    @property
    def limits(self) -> tuple[int, int | None, int | None]:
        return (self.concurrency or DEFAULT_CONCURRENCY, self.rpm, self.tpm)

    def words(self) -> str:
        """ "ds-api on pc-01 (concurrency 2, rpm 60)" """
        concurrency, rpm, tpm = self.limits
        said = [f"concurrency {concurrency}"]
        said += [f"{name} {value}" for name, value in (("rpm", rpm), ("tpm", tpm)) if value]
        return f"{self.account_id} on {self.workstation} ({', '.join(said)})"


def _stricter(values: Sequence[int | None]) -> int | None:
    given = [v for v in values if v]
    return min(given) if given else None


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Workstations whose configs give one API key different limits; the gate holds
    ``held`` (the stricter of each)."""

    key_id: str
    declared: tuple[Declared, ...]

    @property
    def held(self) -> tuple[int, int | None, int | None]:
        return (
            min(d.limits[0] for d in self.declared),
            _stricter([d.rpm for d in self.declared]),
            _stricter([d.tpm for d in self.declared]),
        )

    def message(self) -> str:
        concurrency, rpm, tpm = self.held
        held = [f"concurrency {concurrency}"]
        held += [f"{name} {value}" for name, value in (("rpm", rpm), ("tpm", tpm)) if value]
        return (
            "one API key, different limits in two configs: "
            + " and ".join(d.words() for d in self.declared)
            + f"; the team holds the stricter: {', '.join(held)}"
        )

    def to_json(self) -> dict[str, Any]:
        concurrency, rpm, tpm = self.held
        return {
            "key_id": self.key_id,
            "declared": [
                {
                    "workstation": d.workstation,
                    "account": d.account_id,
                    "concurrency": d.limits[0],
                    "rpm": d.rpm,
                    "tpm": d.tpm,
                }
                for d in self.declared
            ],
            "held": {"concurrency": concurrency, "rpm": rpm, "tpm": tpm},
        }


def _disagreements(rows: Sequence[Any]) -> list[Disagreement]:
    by_key: dict[str, list[Declared]] = {}
    for r in rows:
        by_key.setdefault(r.key_id, []).append(
            Declared(r.workstation, r.account_id, r.concurrency, r.rpm, r.tpm)
        )
    return [
        Disagreement(key, tuple(sorted(said, key=lambda d: d.workstation)))
        for key, said in sorted(by_key.items())
        if len({d.limits for d in said}) > 1
    ]


def declare(
    conn: Connection,
    workstation: str,
    declared: Sequence[AccountDeclaration],
    *,
    now: float,
    dead_after: float,
) -> list[Disagreement]:
    """This workstation's config's API keys and their limits (in the caller's transaction):
    recorded, then each key's account rows given the stricter limits of this workstation and
    the others online; the disagreements among them are returned."""
    mine = {a.key_id: a for a in declared if a.kind is ModelKind.API and a.key_id}
    stale = K.c.workstation == workstation
    if mine:
        stale = and_(stale, K.c.key_id.not_in(list(mine)))
    conn.execute(delete(K).where(stale))
    if not mine:
        return []
    upsert(
        conn,
        K,
        [
            {
                "key_id": key,
                "workstation": workstation,
                "account_id": a.account_id,
                "concurrency": a.concurrency,
                "rpm": a.rpm,
                "tpm": a.tpm,
                "updated_at": now,
            }
            for key, a in mine.items()
        ],
        key=["key_id", "workstation"],
        update=["account_id", "concurrency", "rpm", "tpm", "updated_at"],
    )
    rows = conn.execute(
        select(K).where(
            K.c.key_id.in_(list(mine)),
            or_(K.c.workstation == workstation, K.c.workstation.in_(_online(now, dead_after))),
        )
    ).all()
    by_key: dict[str, list[Declared]] = {}
    for r in rows:
        by_key.setdefault(r.key_id, []).append(
            Declared(r.workstation, r.account_id, r.concurrency, r.rpm, r.tpm)
        )
    for key, said in by_key.items():
        held = Disagreement(key, tuple(said)).held
        conn.execute(
            update(A)
            .where(
                A.c.key_id == key,
                or_(
                    A.c.limit_concurrency.is_distinct_from(held[0]),
                    A.c.limit_rpm.is_distinct_from(held[1]),
                    A.c.limit_tpm.is_distinct_from(held[2]),
                ),
            )
            .values(
                limit_concurrency=held[0],
                limit_rpm=held[1],
                limit_tpm=held[2],
                updated_at=now,
                version=A.c.version + 1,
            )
        )
    return _disagreements(rows)


def _online(now: float, dead_after: float) -> Any:
    return select(S.c.workstation).where(
        S.c.ended_at.is_(None), S.c.heartbeat_at >= now - dead_after
    )


def disagreements(conn: Connection, *, now: float, dead_after: float) -> list[Disagreement]:
    """Every key the configs of workstations online give different limits (``store info``)."""
    return _disagreements(
        conn.execute(select(K).where(K.c.workstation.in_(_online(now, dead_after)))).all()
    )
