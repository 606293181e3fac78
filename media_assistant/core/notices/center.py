"""Notices that reach people: a batch ended (done, or with failures), an account needs the
operator, the disk is nearly full. Derived in the core from the store's events, so the
headless ``run`` and the window raise the same ones; the window lists them, the tray shows
them, webhooks carry them to a group chat (providers/webhooks.py). Pure Python, no I/O but the
awaited store reads and one ``disk_usage`` on a worker thread.

Where they come from:

- **batch_done / batch_failed**: every state change (this process's ``TasksChanged``, the
  follower's ``TasksSynced`` for other processes' changes) names tasks; a moment later
  (:data:`SETTLE_S`, so one look covers a burst) the counts of their batches are read on a
  database reader. A batch that had unfinished work and now has none has ended: ``batch_failed``
  when any task failed, else ``batch_done``. Batches with work at start are known from one
  read (:meth:`Store.open_batches`); a retried batch ends again and is announced again.
- **account_attention**: an ``AccountChanged`` whose state is "needs login", "key rejected" or
  "needs attention", or a cool-down because its proxy fails (issue 32: ``code``
  proxy_unreachable / proxy_auth), once until the account is back.
- **poison_pill**: a task of this process failed the same way on every attempt
  (core/rules/excuses.py): its ``TasksChanged`` to ``failed`` whose message says so, once per
  task and failure (a teammate's process announces its own).
- **disk_low**: the data folder's disk has less than ``disk_low_mb`` free (checked every
  :data:`DISK_EVERY_S`), once until it has 20 % more than that again.

Message words (:func:`notice_text`) are here too, in Chinese and English, for webhooks and the
terminal; the window words its list through its own translations.
"""

from __future__ import annotations

import asyncio
import contextlib
import locale
import logging
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from media_assistant.core.model.events import (
    AccountChanged,
    Event,
    TasksAdded,
    TasksChanged,
    TasksSynced,
)
from media_assistant.core.model.states import AccountState, NoticeKind, TaskState
from media_assistant.core.notices.alarm_words import alarm_text
from media_assistant.core.rules.excuses import poison_accounts
from media_assistant.core.rules.site_breakage import verdict_step

if TYPE_CHECKING:
    from media_assistant.core.store.facade import AsyncStore

log = logging.getLogger(__name__)

SETTLE_S = 0.5  # a burst of changes is looked at once
DISK_EVERY_S = 60.0
DISK_REARM = 1.2  # a disk_low notice comes again only after free space rose 20 % above the limit
ATTENTION_STATES = frozenset(
    {AccountState.NEEDS_LOGIN, AccountState.CREDENTIALS_REJECTED, AccountState.NEEDS_ATTENTION}
)
_UNFINISHED = (TaskState.PENDING.value, TaskState.RUNNING.value)


@dataclass(frozen=True, slots=True)
class Notice:
    kind: NoticeKind
    subject: str  # the batch id, the account id, or the data folder
    at: float
    params: Mapping[str, str | int | float] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.kind.value}:{self.subject}:{self.at:.3f}"


def batch_notice(batch_id: str, counts: Mapping[str, int], at: float) -> Notice:
    params = {
        "total": sum(counts.values()),
        "succeeded": counts.get(TaskState.SUCCESS.value, 0),
        "failed": counts.get(TaskState.FAILED.value, 0),
        "canceled": counts.get(TaskState.CANCELED.value, 0),
    }
    kind = NoticeKind.BATCH_FAILED if params["failed"] else NoticeKind.BATCH_DONE
    return Notice(kind, batch_id, at, params)


# ------------------------------------------------------------------------------- the words

_STATE_WORDS = {
    "zh": {
        "needs_login": "需要登录",
        "credentials_rejected": "密钥被拒绝",
        "needs_attention": "需要人工处理",
    },
    "en": {
        "needs_login": "needs login",
        "credentials_rejected": "key rejected",
        "needs_attention": "needs attention",
    },
}


# Our own reasons an account needs the operator (``accounts.problem_code``), in Chinese: the
# English detail behind them is ours, or a site's English, and a Chinese group chat gets words.
_REASON_WORDS_ZH = {
    "captcha": "出现验证码，需要人工处理",
    "login_required": "已退出登录，请重新登录",
    "auth_rejected": "API 密钥被拒绝，请保存有效的密钥",
    "profile_in_use": "浏览器配置文件被其他程序占用",
    "bad_config": "无法启动，请检查账号设置",
    "no_api_key": "没有 API 密钥，请在“账号…”中为它保存密钥",
    "key_env_unset": "存放 API 密钥的环境变量在本程序的环境中未设置",
    "adapter_unreadable": "站点适配文件无法使用",
    "model_choice_missing": "站点适配文件无法选择模型",
    "no_simulated_site": "需要内置的模拟站点",
    "provider_failed": "无法启动（内部错误，见日志）",
    "no_proxy_password": "代理需要密码：请在“账号…”中为它保存代理密码",
}
# A failing proxy (issue 32): the account waits and tries again by itself, but a person may
# have to fix the proxy or its password; said once until the account works again.
PROXY_REASONS = frozenset({"proxy_unreachable", "proxy_auth"})
_PROXY_WORDS = {
    "zh": {
        "proxy_unreachable": "代理无法连接（或代理无法访问网站），账号暂停并会自动重试",
        "proxy_auth": "代理拒绝了用户名或密码（407），请保存正确的代理密码",
    },
    "en": {
        "proxy_unreachable": "its proxy cannot be reached (or cannot reach the site); the "
        "account waits and tries again by itself",
        "proxy_auth": "its proxy refused the user name or password (407); store the right "
        "proxy password",
    },
}
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _step_zh(reason: str) -> str:
    """Where a verdict's English reason says the page changed, in Chinese ("" if it names no
    step)."""
    step = verdict_step(reason)
    return f"在步骤“{step.words_zh}”处" if step is not None else ""


def message_language(setting: str) -> str:
    """``zh`` or ``en`` from the ``[ui] language`` setting (auto: the system's locale)."""
    if setting.startswith("zh"):
        return "zh"
    if setting == "en":
        return "en"
    with contextlib.suppress(ValueError):
        name = locale.getlocale()[0] or ""
        if name.lower().startswith("zh"):
            return "zh"
    return "en"


def notice_text(notice: Notice, language: str = "en") -> tuple[str, str]:
    """(title, text) of a notice in ``zh`` or ``en``: for webhooks and the terminal."""
    if notice.kind in (NoticeKind.ALARM, NoticeKind.ALARM_CLEARED):
        return alarm_text(
            notice.kind is NoticeKind.ALARM_CLEARED, notice.subject, notice.params, language
        )
    p = notice.params
    s = notice.subject
    zh = language == "zh"
    if notice.kind in (NoticeKind.BATCH_DONE, NoticeKind.BATCH_FAILED):
        counts = (
            p.get("total", 0),
            p.get("succeeded", 0),
            p.get("failed", 0),
            p.get("canceled", 0),
        )
        if zh:
            title = (
                f"批次 {s} 已完成"
                if notice.kind is NoticeKind.BATCH_DONE
                else f"批次 {s} 已结束，{counts[2]} 个失败"
            )
            text = f"共 {counts[0]} 个任务：成功 {counts[1]}，失败 {counts[2]}，取消 {counts[3]}"
        else:
            title = (
                f"Batch {s} finished"
                if notice.kind is NoticeKind.BATCH_DONE
                else f"Batch {s} ended with {counts[2]} failed"
            )
            text = (
                f"{counts[0]} tasks: {counts[1]} succeeded, {counts[2]} failed, "
                f"{counts[3]} canceled"
            )
        return title, text
    if notice.kind is NoticeKind.POISON_PILL:
        kind, accounts = p.get("error_kind", ""), p.get("accounts", 0)
        if zh:
            return (
                f"任务 {s} 失败：每次都以同样的方式失败",
                f"在 {accounts} 个账号上每次都出现同样的错误，不会再自动重试；请检查提示词或网站",
            )
        where = "account" if accounts == 1 else "accounts"
        return (
            f"Task {s} failed the same way every time",
            f"{kind} on {accounts} {where}; not retried again: check its prompt or the site",
        )
    if notice.kind is NoticeKind.ACCOUNT_ATTENTION:
        words = _STATE_WORDS["zh" if zh else "en"]
        state = words.get(str(p.get("state", "")), str(p.get("state", "")))
        reason = str(p.get("reason", "") or "")
        if p.get("code") == "site_changed":  # a verdict: the reason names the step
            if zh:
                # The English reason is ours; its step in words, the selector is in the log.
                return (
                    f"账号 {s}：网站页面已改版",
                    f"{_step_zh(reason)}页面与适配文件不符；请安装修正后的适配文件，然后重置账号",
                )
            return (
                f"Account {s}: the site's page changed",
                f"{reason}; install a fixed adapter file, then reset the account",
            )
        if p.get("code") in PROXY_REASONS:
            proxy_words = _PROXY_WORDS["zh" if zh else "en"][str(p["code"])]
            if zh:
                return f"账号 {s} 的代理出现问题", proxy_words
            return f"Account {s}: its proxy fails", proxy_words
        if zh:
            # Our reason in words; a site's own detail only when it speaks Chinese itself.
            reason = _REASON_WORDS_ZH.get(str(p.get("code") or ""), reason)
            reason = reason if _CJK.search(reason) else ""
            return f"账号 {s} 需要处理", f"{state}" + (f"：{reason}" if reason else "")
        return f"Account {s} needs you", state + (f": {reason}" if reason else "")
    free = p.get("free_mb", 0)
    if zh:
        return "磁盘空间不足", f"数据目录所在磁盘仅剩 {free} MB（{s}）"
    return "Disk almost full", f"only {free} MB free on the disk of {s}"


# ------------------------------------------------------------------------------- the center

Listener = Callable[[Notice], None]


class NoticeCenter:
    """Turns store events into notices and hands them to listeners (the window's list and
    tray, a webhook sender, ``run``'s output), on the event loop."""

    def __init__(
        self,
        store: AsyncStore,
        *,
        disk_path: Path | None = None,
        disk_low_mb: float = 0.0,
        settle_s: float = SETTLE_S,
        disk_every_s: float = DISK_EVERY_S,
        disk_usage: Callable[[Path], float] | None = None,
    ) -> None:
        self.store = store
        self.disk_path = disk_path
        self.disk_low_mb = disk_low_mb
        self.settle_s = settle_s
        self.disk_every_s = disk_every_s
        self._disk_free_mb = disk_usage or _free_mb
        self._listeners: list[Listener] = []
        self._open: set[str] = set()
        self._touched: set[str] = set()
        # Tasks seen going back to pending/running (a retry, a claim): their batch is open
        # again even if they ended again before the next look.
        self._reopened: set[str] = set()
        self._wake = asyncio.Event()
        self._attention: set[str] = set()
        self._disk_low = False
        self._unsubscribe: Callable[[], None] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.sent: list[Notice] = []  # every notice of this run, in order

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    async def start(self) -> None:
        self._open = await self.store.open_batches()
        self._unsubscribe = self.store.bus.subscribe(self.on_event)
        self._tasks = [asyncio.ensure_future(self._settle_loop())]
        if self.disk_path is not None and self.disk_low_mb > 0:
            self._tasks.append(asyncio.ensure_future(self._disk_loop()))

    async def stop(self) -> None:
        """Stop listening; changes already heard are still looked at (a batch that ended just
        before ``run`` stops is announced)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        await self.check_batches()

    # ---------------------------------------------------------------- events (on the loop)

    def on_event(self, event: Event) -> None:
        if isinstance(event, TasksAdded):
            for row in event.rows:
                if row.get("state") in _UNFINISHED:
                    self._open.add(str(row["batch_id"]))
            if event.batch_id and not event.rows:
                self._open.add(event.batch_id)
        elif isinstance(event, TasksChanged) and not event.heartbeat:
            changed = [c for c in event.changes if "state" in c.values]
            self._reopened.update(c.task_id for c in changed if c.values["state"] in _UNFINISHED)
            if changed:
                self._touched.update(c.task_id for c in changed)
                self._wake.set()
            for change in changed:
                self._poison_pill(change.task_id, change.values)
        elif isinstance(event, TasksSynced):
            rows = [r for r in event.rows if "state" in r]
            for row in rows:
                if row["state"] in _UNFINISHED:
                    self._open.add(str(row["batch_id"]))
            if rows:
                self._touched.update(str(r["task_id"]) for r in rows)
                self._wake.set()
        elif isinstance(event, AccountChanged) and event.status is not None:
            self._on_account(event)

    def _poison_pill(self, task_id: str, values: Mapping[str, object]) -> None:
        if values.get("state") != TaskState.FAILED.value:
            return
        accounts = poison_accounts(str(values.get("error_message") or ""))
        if accounts is not None:
            params: dict[str, str | int | float] = {
                "error_kind": str(values.get("error_kind") or ""),
                "accounts": accounts,
                "detail": str(values.get("error_message") or ""),
            }
            self._post(Notice(NoticeKind.POISON_PILL, task_id, self.store.clock.now(), params))

    def _on_account(self, event: AccountChanged) -> None:
        status = event.status
        assert status is not None
        now = self.store.clock.now()
        state = status.state(now)
        proxy = state is AccountState.COOLING_DOWN and status.cooldown_reason in PROXY_REASONS
        if state in ATTENTION_STATES or proxy:
            if event.account_id not in self._attention:
                self._attention.add(event.account_id)
                reason = status.problem_detail or ""
                self._post(
                    Notice(
                        NoticeKind.ACCOUNT_ATTENTION,
                        event.account_id,
                        now,
                        # code: the reason in a word (the window and Chinese messages word it);
                        # version: the row's, the same on every workstation (a team's webhook
                        # sends it once: notices_runtime.team_key)
                        {
                            "state": state.value,
                            "reason": reason,
                            "code": (status.cooldown_reason if proxy else status.problem_code)
                            or "",
                            "version": status.version,
                        },
                    )
                )
        else:
            self._attention.discard(event.account_id)

    def post(self, notice: Notice) -> None:
        """A notice raised outside the center (an alarm: core/metrics/watch.py)."""
        self._post(notice)

    def _post(self, notice: Notice) -> None:
        self.sent.append(notice)
        log.info("notice: %s %s", notice.kind.value, notice.subject)
        for listener in list(self._listeners):
            try:
                listener(notice)
            except Exception:  # a broken listener must not stop the others
                log.exception("notice listener %r failed", listener)

    # ---------------------------------------------------------------- batches

    async def _settle_loop(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(self.settle_s)
            try:
                await self.check_batches()
            except Exception:  # a busy database: look again at the next change
                log.exception("could not read batch counts for notices")

    async def check_batches(self) -> list[Notice]:
        """Look at the batches of the tasks changed since the last look; announce the ended."""
        self._wake.clear()
        touched, self._touched = self._touched, set()
        reopened, self._reopened = self._reopened, set()
        if reopened:  # a retried task may have ended again already: its batch was open
            self._open.update(await self.store.batches_of(sorted(reopened)))
        if not touched:
            return []
        counts = await self.store.batch_counts(sorted(touched))
        now = self.store.clock.now()
        posted = []
        for batch, by_state in sorted(counts.items()):
            if any(by_state.get(s, 0) for s in _UNFINISHED):
                self._open.add(batch)
            elif batch in self._open:
                self._open.discard(batch)
                notice = batch_notice(batch, by_state, now)
                posted.append(notice)
                self._post(notice)
        return posted

    # ---------------------------------------------------------------- disk

    async def _disk_loop(self) -> None:
        while True:
            await self.check_disk()
            await asyncio.sleep(self.disk_every_s)

    async def check_disk(self) -> Notice | None:
        if self.disk_path is None or self.disk_low_mb <= 0:
            return None
        try:
            free = await asyncio.to_thread(self._disk_free_mb, self.disk_path)
        except OSError:
            return None
        if free < self.disk_low_mb and not self._disk_low:
            self._disk_low = True
            notice = Notice(
                NoticeKind.DISK_LOW,
                str(self.disk_path),
                self.store.clock.now(),
                {"free_mb": int(free), "limit_mb": int(self.disk_low_mb)},
            )
            self._post(notice)
            return notice
        if free >= self.disk_low_mb * DISK_REARM:
            self._disk_low = False
        return None


def _free_mb(path: Path) -> float:
    return shutil.disk_usage(path).free / 1_000_000
