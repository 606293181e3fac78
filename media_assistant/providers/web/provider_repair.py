"""The web provider's part in locator repair (issue 33), apart so provider.py stays small:
recording what worked after a successful task or check (:mod:`fingerprint`), repairing the
adapter from the account's page (:mod:`repair`), installing a proven repair."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from media_assistant.providers.web.fingerprint import capture
from media_assistant.providers.web.page import ChatPage
from media_assistant.providers.web.repair import RepairResult, repair_adapter
from media_assistant.providers.web.repair import install_repair as _install

if TYPE_CHECKING:
    from media_assistant.providers.web.provider import WebProvider

log = logging.getLogger(__name__)


async def remember(provider: WebProvider, chat: ChatPage) -> None:
    """The elements every step used, recorded for a repair (never fails a task)."""
    if provider.fingerprints is None:
        return
    try:
        found = await provider.driver.service.call(capture(chat.page, provider.adapter))
        await asyncio.to_thread(provider.fingerprints.record, provider.adapter, found)
    except Exception as exc:  # noqa: BLE001 - a fingerprint is never worth a task
        log.warning("[web %s] fingerprints not recorded: %s", provider.account_id, exc)


async def repair_site(provider: WebProvider) -> RepairResult | None:
    """Check, repair and prove the adapter from the account's page (repair.py); the caller
    holds the account, as for a check. None: no adapter file or fingerprints to work with."""
    if provider.adapter_file is None or provider.fingerprints is None:
        return None
    path, store = provider.adapter_file, provider.fingerprints
    text = await asyncio.to_thread(path.read_text, encoding="utf-8-sig")
    fingerprint = await asyncio.to_thread(store.load, provider.adapter.id)
    make = type(provider)  # a provider per candidate adapter, on the same browser
    driver, account, origin = provider.driver, provider.account_id, provider.origin
    profile = provider.browser.profile_dir
    return await repair_adapter(
        lambda adapter: make(driver, account, profile, adapter, origin=origin),
        account,
        text,
        fingerprint,
        source=str(path),
    )


async def install_repair(provider: WebProvider, result: RepairResult) -> str | None:
    """Install a proven repair as the site's adapter (``[sites] auto_repair``); its version,
    or None for an account with its own site_file (never written over)."""
    if provider.sites_dir is None:
        return None
    installed = await asyncio.to_thread(_install, result, provider.sites_dir)
    return installed.version
