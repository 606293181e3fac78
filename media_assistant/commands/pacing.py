"""Pacing as ``status`` and ``accounts clear-pacing`` see it: the policy of each web account
(its adapter's ``[pacing]`` + its own ``pacing`` keys) and the state the web lane saved."""

from __future__ import annotations

from typing import Any

from media_assistant.core.config.schema import FAKE_SITE, AccountConfig
from media_assistant.core.model.errors import ConfigError
from media_assistant.core.model.states import ModelKind
from media_assistant.core.rules.pacing import (
    PacingConfig,
    PacingPolicy,
    PacingState,
    clear_holds,
    describe,
    rebase,
    resolve_policy,
    view,
)
from media_assistant.core.store.pacing import PacingStore
from media_assistant.services import Services


def adapter_pacing(services: Services, account: AccountConfig) -> PacingConfig | None:
    """The account's adapter's ``[pacing]``; None when it has none or cannot be read (the
    scheduler reports an unreadable adapter on the account itself)."""
    if account.kind is not ModelKind.WEB or account.site == FAKE_SITE:
        return None
    from media_assistant.providers.web.adapter import load_adapter

    try:
        adapter = load_adapter(
            site=account.site, site_file=account.site_file, user_dir=services.paths.sites
        )
    except ConfigError:
        return None
    return adapter.pacing


def policy_of(services: Services, account: AccountConfig) -> PacingPolicy:
    return resolve_policy(
        adapter_pacing(services, account),
        account.pacing,
        headless=services.config.browser.headless,
    )


def pacing_status(services: Services) -> dict[str, dict[str, Any] | None]:
    """Per web account: its pacing view as JSON plus ``text`` (None: not paced)."""
    states = PacingStore(services.engine).load_all()
    now = services.clock.now()
    out: dict[str, dict[str, Any] | None] = {}
    for account in services.config.accounts:
        if account.kind is not ModelKind.WEB:
            continue
        policy = policy_of(services, account)
        if not policy.limits_anything:
            out[account.id] = None
            continue
        state = states.get(account.id) or PacingState()
        rebase(state, now)  # as the lane will (a clock moved back): shown, not saved here
        v = view(policy, state, now)
        out[account.id] = {**v.to_json(), "text": describe(v, now)}
    return out


def clear_pacing(services: Services, account: AccountConfig) -> bool:
    """End the account's cooldown and risk pause (a running scheduler notices within 1 s)."""
    store = PacingStore(services.engine)
    state = store.load(account.id)
    if state is None:
        return False
    clear_holds(state)
    store.save(account.id, state, services.clock.now())
    return True
