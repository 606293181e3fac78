"""The whole self-check at app start (and ``media-assistant selfcheck``): every web account's
profile, the browser executable, and site adapters that have not been verified for a while."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from media_assistant.core.config.schema import FAKE_SITE, AppConfig
from media_assistant.core.files.locks import ProfileLock
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import ConfigError
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store.accounts import AccountStore
from media_assistant.providers.web.adapter import load_adapter
from media_assistant.providers.web.executable import BrowserNotFound, resolve_browser
from media_assistant.providers.web.selfcheck import RecordedBrowser, SelfCheckReport, run_selfcheck


@dataclass
class Checkup:
    report: SelfCheckReport | None
    browser: str | None
    skipped: dict[str, str] = field(default_factory=dict)  # account → why not checked
    notes: list[str] = field(default_factory=list)
    browser_downloadable: bool = False  # no browser, and the frozen app may download Chromium

    @property
    def ok(self) -> bool:
        return (self.report is None or self.report.ok) and self.browser is not None

    def problems(self) -> list[str]:
        """What an operator should see at start (empty when all is well)."""
        lines = [
            f.message() for f in (self.report.findings if self.report else ()) if f.kind != "ok"
        ]
        if self.browser is None:
            lines.append("no browser found for web models")
        return lines + self.notes

    def lines(self) -> list[str]:
        out = [f"browser: {self.browser or 'NOT FOUND'}"]
        out += self.report.lines() if self.report else ["no web accounts configured"]
        out += [f"self-check {a}: {why}" for a, why in self.skipped.items()]
        out += [f"note: {n}" for n in self.notes]
        return out

    def to_json(self) -> str:
        data: dict[str, Any] = json.loads(self.report.to_json()) if self.report else {}
        data.update(browser=self.browser, skipped=self.skipped, notes=self.notes, ok=self.ok)
        return json.dumps(data, ensure_ascii=False, indent=2)


def run_checkup(config: AppConfig, paths: Paths, accounts: AccountStore) -> Checkup:
    web = [a for a in config.accounts if a.kind is ModelKind.WEB and a.site != FAKE_SITE]
    if not web:
        return Checkup(None, "not needed (no browser-driven accounts)")
    notes: list[str] = []
    downloadable = False
    try:
        browser: str | None = resolve_browser(config.browser.executable).description
    except BrowserNotFound as exc:
        browser = None
        downloadable = exc.downloadable
        notes.append(str(exc))
    locks: dict[str, ProfileLock] = {}
    skipped: dict[str, str] = {}
    for a in web:
        lock = ProfileLock(paths.profile(a.id))
        if lock.try_acquire():
            locks[a.id] = lock
        else:  # a running scheduler (or another instance) drives it: not ours to touch
            skipped[a.id] = "profile in use by a running Media Assistant: skipped"
    try:
        statuses = accounts.all()
        recorded = {
            account_id: RecordedBrowser(st.browser_pid, st.browser_started_at)
            for account_id, st in statuses.items()
            if account_id in locks and st.browser_pid
        }
        report = run_selfcheck({aid: paths.profile(aid) for aid in locks}, recorded)
        blocked = report.blocked_accounts()
        for account_id in recorded:
            if account_id not in blocked:
                accounts.set_browser(account_id, None, None)  # stopped, or gone already
    finally:
        for lock in locks.values():
            lock.release()
    for a in web:
        try:
            adapter = load_adapter(site=a.site, site_file=a.site_file, user_dir=paths.sites)
        except ConfigError as exc:
            notes.append(f"{a.id}: {exc}")
            continue
        warning = adapter.staleness_warning()
        if warning:
            notes.append(f"{a.id}: {warning}")
    return Checkup(report, browser, skipped, notes, downloadable)
