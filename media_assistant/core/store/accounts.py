"""Runtime state of accounts (the operator's toggle, automatic cool-downs, sticky problems).

Accounts are defined in the config file; this table remembers what happened to them, so a
``disable`` from the CLI reaches a running scheduler and survives a restart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, case, or_, select, true, update

from media_assistant.core.model.accounts import (
    MAX_CONCURRENCY,
    MIN_CONCURRENCY,
    AccountDeclaration,
    AccountStatus,
)
from media_assistant.core.model.clock import Clock
from media_assistant.core.model.events import AccountChanged, EventBus
from media_assistant.core.model.states import AccountProblem, ModelKind
from media_assistant.core.rules.recheck import RECHECK_REASON
from media_assistant.core.store import api_gate, key_gate
from media_assistant.core.store.db import read_tx, write_tx
from media_assistant.core.store.schema import AccountRow
from media_assistant.core.store.upsert import upsert

A = AccountRow.__table__  # type: ignore[attr-defined]


class AccountStore:
    def __init__(self, engine: Engine, clock: Clock, bus: EventBus) -> None:
        self.engine = engine
        self.clock = clock
        self.bus = bus

    def sync(
        self,
        accounts: Sequence[AccountDeclaration | tuple[str, ModelKind, bool]],
        *,
        workstation: str | None = None,
        take_over: bool = True,
        dead_after: float = 90.0,
    ) -> list[key_gate.Disagreement]:
        """Make sure every configured account has a row; existing rows keep their state, except
        that an account whose kind changed (an id reused for the other lane) starts clean.

        Team mode: a web account belongs to ``workstation`` — a new row is ours, a row no
        workstation holds becomes ours; one held by another stays theirs unless ``take_over``
        (a workstation's own SQLite file: there is no other). An API account's limits are
        the config's; in a team (``take_over`` False) an API account whose declaration names
        its key's identity shares the key's gate and the stricter limits of every workstation
        online (core/store/key_gate.py): the disagreements are returned."""
        declared = [
            a if isinstance(a, AccountDeclaration) else AccountDeclaration(*a) for a in accounts
        ]
        if not declared:
            return []
        now = self.clock.now()
        rows = [
            {
                "account_id": a.account_id,
                "kind": a.kind.value,
                "enabled": a.enabled,
                "problem": "",
                "updated_at": now,
                "workstation": workstation if a.kind is ModelKind.WEB else None,
                "limit_concurrency": a.concurrency,
                "limit_rpm": a.rpm,
                "limit_tpm": a.tpm,
                "key_id": a.key_id if a.kind is ModelKind.API else None,
            }
            for a in declared
        ]
        with write_tx(self.engine) as conn:
            upsert(
                conn,
                A,
                rows,
                key=["account_id"],
                update=lambda new: {
                    "kind": new.kind,
                    "problem": case((A.c.kind != new.kind, ""), else_=A.c.problem),
                    "updated_at": new.updated_at,
                    "version": A.c.version + 1,
                    "workstation": (
                        new.workstation
                        if take_over
                        else case(
                            (A.c.workstation.is_(None), new.workstation), else_=A.c.workstation
                        )
                    ),
                    "limit_concurrency": new.limit_concurrency,
                    "limit_rpm": new.limit_rpm,
                    "limit_tpm": new.limit_tpm,
                    "key_id": new.key_id,
                },
                where=lambda new: or_(
                    A.c.kind != new.kind,
                    A.c.workstation.is_distinct_from(new.workstation)
                    & (A.c.workstation.is_(None) if not take_over else true()),
                    A.c.limit_concurrency.is_distinct_from(new.limit_concurrency),
                    A.c.limit_rpm.is_distinct_from(new.limit_rpm),
                    A.c.limit_tpm.is_distinct_from(new.limit_tpm),
                    A.c.key_id.is_distinct_from(new.key_id),
                ),
            )
            api = [a for a in declared if a.kind is ModelKind.API]
            api_gate.ensure_rows(conn, [a.key_id or a.account_id for a in api])
            if take_over or workstation is None:
                return []
            return key_gate.declare(conn, workstation, api, now=now, dead_after=dead_after)

    def release(self, account_id: str) -> bool:
        """``accounts release``: the web account belongs to no workstation any more; the next
        workstation that starts with it in its config takes it (its browser profile, its
        login)."""
        return self._update(account_id, workstation=None)

    def all(self) -> dict[str, AccountStatus]:
        with read_tx(self.engine) as conn:
            rows = conn.execute(select(A)).mappings().all()
        return {r["account_id"]: _status(r) for r in rows}

    def get(self, account_id: str) -> AccountStatus | None:
        with read_tx(self.engine) as conn:
            row = conn.execute(select(A).where(A.c.account_id == account_id)).mappings().first()
        return _status(row) if row else None

    def _update(self, account_id: str, _where: Any = None, **values: Any) -> bool:
        values["updated_at"] = self.clock.now()
        values["version"] = A.c.version + 1
        which = A.c.account_id == account_id
        if _where is not None:
            which = which & _where
        with write_tx(self.engine, durable=True) as conn:
            row = (
                conn.execute(update(A).where(which).values(**values).returning(A))
                .mappings()
                .first()
            )
        if row is not None:
            self.bus.publish(AccountChanged(account_id, _status(row)))
        return row is not None

    def set_enabled(self, account_id: str, enabled: bool) -> bool:
        """The operator's toggle. Enabling also clears a sticky problem ("I fixed it") and asks
        every scheduler serving the account for a fresh provider: what was fixed (a key, an
        adapter file, a login) must not meet the provider built before the fix."""
        if enabled:
            return self._update(
                account_id,
                enabled=True,
                problem="",
                problem_detail=None,
                problem_code=None,
                cooldown_until=None,
                cooldown_reason=None,
                rebuild_generation=A.c.rebuild_generation + 1,
            )
        return self._update(account_id, enabled=False)

    def reset(self, account_id: str) -> bool:
        """``accounts reset``: clear the account's problem and cool-down and ask every scheduler
        serving it (this process or another: they notice the row) to rebuild its provider. The
        on/off toggle and pacing state are left as they are."""
        return self._update(
            account_id,
            problem="",
            problem_detail=None,
            problem_code=None,
            cooldown_until=None,
            cooldown_reason=None,
            rebuild_generation=A.c.rebuild_generation + 1,
        )

    def request_rebuild(self, account_id: str) -> bool:
        """A fresh provider at the next chance (a new key was stored): clears a problem too."""
        return self._update(
            account_id,
            problem="",
            problem_detail=None,
            problem_code=None,
            rebuild_generation=A.c.rebuild_generation + 1,
        )

    def adapter_replaced(self, account_id: str, *, workstation: str | None = None) -> bool:
        """A new adapter file for the account's site was installed (``sites install``, a
        rollback): every scheduler serving the account builds its provider anew, so its next
        task loads the file. The verdict "the site's page changed" (problem code
        ``site_changed``) is what the file fixes, so it goes; any other problem (a login to
        redo, a captcha) stays for the operator.

        ``workstation`` (team mode): the one the file was installed on. Only a web account it
        runs (its row's workstation, or none yet) has the new file: another workstation's
        account of the same site is left as it is (its verdict stands until the file is
        installed there; issue 27 item 8). False: the row is not this workstation's."""
        fixed = A.c.problem_code == "site_changed"
        return self._update(
            account_id,
            _where=(
                or_(A.c.workstation.is_(None), A.c.workstation == workstation)
                if workstation is not None
                else None
            ),
            **_RECHECK_ENDS,
            problem=case((fixed, ""), else_=A.c.problem),
            problem_detail=case((fixed, None), else_=A.c.problem_detail),
            problem_code=case((fixed, None), else_=A.c.problem_code),
            rebuild_generation=A.c.rebuild_generation + 1,
        )

    def set_problem(
        self, account_id: str, problem: AccountProblem, detail: str, code: str | None = None
    ) -> bool:
        """``code``: the error kind behind it (captcha, profile_in_use…), for the window."""
        return self._update(
            account_id, problem=problem.value, problem_detail=detail, problem_code=code
        )

    def clear_problem(self, account_id: str, *, cool_down_too: bool = False) -> bool:
        """End the account's problem (``cool_down_too``: and the cool-down that came with it,
        as when a verification page it waited on is past)."""
        ended = (
            {"cooldown_until": None, "cooldown_reason": None} if cool_down_too else _RECHECK_ENDS
        )
        return self._update(account_id, problem="", problem_detail=None, problem_code=None, **ended)

    def cool_down(self, account_id: str, seconds: float, reason: str) -> bool:
        """Cool the account down for ``seconds``, unless it already cools down at least that
        long (one statement: two workstations meeting 429s at once keep the longer one)."""
        until = self.clock.now() + seconds
        with write_tx(self.engine, durable=True) as conn:
            row = (
                conn.execute(
                    update(A)
                    .where(
                        A.c.account_id == account_id,
                        or_(A.c.cooldown_until.is_(None), A.c.cooldown_until < until),
                    )
                    .values(
                        cooldown_until=until,
                        cooldown_reason=reason,
                        updated_at=self.clock.now(),
                        version=A.c.version + 1,
                    )
                    .returning(A)
                )
                .mappings()
                .first()
            )
        if row is not None:
            self.bus.publish(AccountChanged(account_id, _status(row)))
        return row is not None

    def set_concurrency(self, account_id: str, concurrency: int | None) -> bool:
        if concurrency is not None and not MIN_CONCURRENCY <= concurrency <= MAX_CONCURRENCY:
            raise ValueError(
                f"concurrency must be between {MIN_CONCURRENCY} and {MAX_CONCURRENCY}, "
                f"got {concurrency}"
            )
        return self._update(account_id, concurrency=concurrency)

    def set_browser(self, account_id: str, pid: int | None, started_at: float | None) -> bool:
        return self._update(account_id, browser_pid=pid, browser_started_at=started_at)


# A problem that ends ends the wait for its re-check too (core/lanes/site_recheck.py); any
# other cool-down stays.
_RECHECK_ENDS: dict[str, Any] = {
    "cooldown_until": case((A.c.cooldown_reason == RECHECK_REASON, None), else_=A.c.cooldown_until),
    "cooldown_reason": case(
        (A.c.cooldown_reason == RECHECK_REASON, None), else_=A.c.cooldown_reason
    ),
}


def _status(row: Any) -> AccountStatus:
    return AccountStatus(
        account_id=row["account_id"],
        kind=ModelKind(row["kind"]),
        enabled=bool(row["enabled"]),
        problem=AccountProblem(row["problem"] or ""),
        problem_detail=row["problem_detail"],
        cooldown_until=row["cooldown_until"],
        cooldown_reason=row["cooldown_reason"],
        concurrency=row["concurrency"],
        browser_pid=row["browser_pid"],
        browser_started_at=row["browser_started_at"],
        problem_code=row.get("problem_code"),
        version=row.get("version") or 0,
        rebuild_generation=row.get("rebuild_generation") or 0,
        workstation=row.get("workstation"),
        limit_concurrency=row.get("limit_concurrency"),
        limit_rpm=row.get("limit_rpm"),
        limit_tpm=row.get("limit_tpm"),
        key_id=row.get("key_id"),
    )
