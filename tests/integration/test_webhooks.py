"""Webhooks against a local HTTP receiver (real HTTP on 127.0.0.1): each service's message
format, its signature checked the way the service checks it, retries, and no address or secret
in the log."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

import pytest

from media_assistant.core.config.notifications import WebhookConfig
from media_assistant.core.model.states import NoticeKind
from media_assistant.core.notices.center import Notice
from media_assistant.providers.webhooks import (
    WebhookSender,
    dingtalk_sign,
    feishu_sign,
)
from tests.support.webhook_receiver import webhook_receiver

NOTICE = Notice(
    NoticeKind.BATCH_FAILED,
    "节日-1",
    1_764_483_900.0,
    {"total": 3, "succeeded": 1, "failed": 1, "canceled": 1},
)
SECRET = "SECf00dcafe0123456789abcdef"


def async_get(values: Mapping[str, str]) -> Callable[[str], Awaitable[str | None]]:
    """A secret look-up as the sender makes it (awaited), from a dict."""

    async def get(name: str) -> str | None:
        return values.get(name)

    return get


def hook(kind: str, **extra: object) -> WebhookConfig:
    return WebhookConfig.model_validate(
        {"kind": kind, "url_env": f"MA_{kind.upper()}_URL", **extra}
    )


async def test_each_service_gets_its_documented_format_signed_as_it_checks(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    with webhook_receiver(secrets={"dingtalk": SECRET, "feishu": SECRET, "json": SECRET}) as rx:
        urls = {
            "MA_WECOM_URL": rx.url("wecom", "key=wecom-key-123"),
            "MA_DINGTALK_URL": rx.url("dingtalk", "access_token=ding-token-456"),
            "MA_FEISHU_URL": rx.url("feishu/open-apis/bot/v2/hook/feishu-hook-789"),
            "MA_JSON_URL": rx.url("json"),
            "MA_SECRET": SECRET,
        }
        sender = WebhookSender(
            [
                hook("wecom"),
                hook("dingtalk", secret_env="MA_SECRET"),
                hook("feishu", secret_env="MA_SECRET"),
                hook("json", secret_env="MA_SECRET"),
            ],
            language="zh",
            lookup=async_get(urls),
        )
        sender.send_soon(NOTICE)
        await sender.close()
        got = {r.service: r for r in rx.received}
    assert set(got) == {"wecom", "dingtalk", "feishu", "json"}
    assert all(d.ok and d.tries == 1 for _, _, d in sender.results)

    wecom = got["wecom"].body
    assert wecom["msgtype"] == "markdown"
    assert wecom["markdown"]["content"].startswith("**批次 节日-1 已结束，1 个失败**\n")
    assert got["wecom"].query == {"key": "wecom-key-123"}

    ding = got["dingtalk"]
    assert ding.signature_ok is True and ding.query["access_token"] == "ding-token-456"
    assert ding.body["msgtype"] == "markdown" and ding.body["markdown"]["title"].startswith("批次")
    assert "共 3 个任务：成功 1，失败 1，取消 1" in ding.body["markdown"]["text"]

    feishu = got["feishu"]
    assert feishu.signature_ok is True
    assert feishu.body["msg_type"] == "text" and "失败 1" in feishu.body["content"]["text"]

    plain = got["json"]
    assert plain.signature_ok is True
    assert plain.body["event"] == "batch_failed" and plain.body["subject"] == "节日-1"
    assert plain.body["params"] == {"total": 3, "succeeded": 1, "failed": 1, "canceled": 1}

    log_text = caplog.text
    for secret in ("wecom-key-123", "ding-token-456", "feishu-hook-789", SECRET):
        assert secret not in log_text
    assert "webhook #2 (dingtalk, $MA_DINGTALK_URL): batch_failed sent" in log_text


@pytest.mark.expect_errors(r"not delivered after 1 tries")
async def test_a_wrong_secret_is_refused_by_the_receiver_and_not_retried() -> None:
    with webhook_receiver(secrets={"dingtalk": SECRET, "feishu": SECRET}) as rx:
        lookup = {
            "MA_DINGTALK_URL": rx.url("dingtalk", "access_token=t"),
            "MA_FEISHU_URL": rx.url("feishu"),
            "WRONG": "SECnot-the-right-one",
        }
        sender = WebhookSender(
            [hook("dingtalk", secret_env="WRONG"), hook("feishu", secret_env="WRONG")],
            lookup=async_get(lookup),
            retry_delays_s=(0.01, 0.01),
        )
        sender.send_soon(NOTICE)
        await sender.close()
    results = sorted((i, d.ok, d.tries, d.detail) for i, _, d in sender.results)
    assert results[0][:3] == (0, False, 1) and "310000" in results[0][3]
    assert results[1][:3] == (1, False, 1) and "19021" in results[1][3]
    assert all(r.signature_ok is False for r in rx.received)


async def test_server_errors_are_retried_then_delivered() -> None:
    with webhook_receiver(fail_first=2) as rx:
        sender = WebhookSender(
            [hook("wecom")],
            lookup=async_get({"MA_WECOM_URL": rx.url("wecom")}),
            retry_delays_s=(0.01, 0.02, 0.03),
        )
        result = await sender.deliver(0, sender.hooks[0], NOTICE)
        await sender.close()
    assert result.ok and result.tries == 3 and rx.requests == 3


@pytest.mark.expect_errors(r"not delivered after 4 tries")
async def test_a_dead_address_gives_up_after_the_retries_without_blocking_the_loop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Nothing listens: every try fails at once; the loop keeps turning meanwhile."""
    sender = WebhookSender(
        [hook("json")],
        lookup=async_get({"MA_JSON_URL": "http://127.0.0.1:9/hook?token=zzsecret"}),
        retry_delays_s=(0.05, 0.05, 0.05),
    )
    sender.send_soon(NOTICE)
    ticks = 0
    while sender._running:
        await asyncio.sleep(0.01)
        ticks += 1
    ((_, _, result),) = sender.results
    assert not result.ok and result.tries == 4 and "network" in result.detail
    assert ticks >= 10  # the loop ran on while the deliveries waited
    assert "zzsecret" not in caplog.text and "not delivered after 4 tries" in caplog.text


async def test_only_the_events_a_webhook_asked_for_are_sent() -> None:
    with webhook_receiver() as rx:
        sender = WebhookSender(
            [hook("json", events=["account_attention"])],
            lookup=async_get({"MA_JSON_URL": rx.url("json")}),
        )
        sender.send_soon(NOTICE)
        sender.send_soon(
            Notice(NoticeKind.ACCOUNT_ATTENTION, "web-1", 1.0, {"state": "needs_login"})
        )
        await sender.close()
        (only,) = rx.received
    assert (
        only.body["event"] == "account_attention"
        and only.body["title"] == "Account web-1 needs you"
    )


@pytest.mark.expect_errors(r"\$MA_WECOM_URL is not set")
async def test_a_missing_variable_is_named_and_nothing_is_sent() -> None:
    sender = WebhookSender([hook("wecom")], lookup=async_get({}))
    result = await sender.deliver(0, sender.hooks[0], NOTICE)
    assert not result.ok and "$MA_WECOM_URL is not set" in result.detail


def test_signatures_match_the_documented_examples_shape() -> None:
    """Base64 of a 32-byte HMAC-SHA256 (44 characters); DingTalk's is URL-encoded in the query."""
    assert len(dingtalk_sign("SECabc", 1_599_360_473_000)) == 44
    assert len(feishu_sign("abc", 1_599_360_473)) == 44
    assert dingtalk_sign("SECabc", 1) != dingtalk_sign("SECabc", 2)
    assert "+" not in urllib.parse.quote_plus(dingtalk_sign("SECabc", 1_599_360_473_000))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"url_env": "https://oapi.dingtalk.com/robot/send?access_token=x"}, "a web address"),
        ({"secret_env": "SEC0123456789abcdef0123456789"}, "a secret"),
        ({"kind": "wecom", "secret_env": "OK_NAME"}, "no signing secret"),
        ({"events": ["batch_done", "batch_done"]}, "twice"),
        ({"events": ["everything"]}, "batch_done"),
    ],
)
def test_config_refuses_values_where_names_belong(extra: dict[str, object], message: str) -> None:
    from pydantic import ValidationError

    data = {"kind": "dingtalk", "url_env": "MA_URL", **extra}
    with pytest.raises(ValidationError, match=message) as info:
        WebhookConfig.model_validate(data)
    assert "access_token=x" not in str(info.value).split("input_value")[0]


def test_a_headless_run_sends_batch_done_and_batch_failed_to_the_webhooks(tmp_path: Path) -> None:
    """``run`` derives "batch ended" from the store's events (no window) and delivers it, the
    URL coming from the environment; the terminal gets a ``notice:`` line too."""
    from tests.integration.test_cli import write_batch, write_config

    data = tmp_path / "data"
    hooks = (
        '\n[[webhooks]]\nkind = "json"\nurl_env = "MA_TEST_HOOK_URL"\n'
        'secret_env = "MA_TEST_HOOK_SECRET"\n'
        '\n[[webhooks]]\nkind = "dingtalk"\nurl_env = "MA_TEST_DING_URL"\n'
        'secret_env = "MA_TEST_HOOK_SECRET"\nevents = ["batch_failed"]\n'
    )
    write_config(data, lo=0.05, hi=0.1, extra=hooks)
    batch = write_batch(tmp_path / "ok.csv", 2)
    with webhook_receiver(secrets={"json": SECRET, "dingtalk": SECRET}) as rx:
        env = {
            **os.environ,
            "MA_TEST_HOOK_URL": rx.url("json", "token=run-secret-token"),
            "MA_TEST_DING_URL": rx.url("dingtalk", "access_token=ding"),
            "MA_TEST_HOOK_SECRET": SECRET,
        }
        result = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
            [
                sys.executable,
                "-m",
                "media_assistant",
                "--data-dir",
                str(data),
                "run",
                str(batch),
                "--batch-id",
                "night-1",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert result.returncode == 0, result.stderr
        (done,) = rx.wait_for(1)
    assert done.service == "json" and done.signature_ok is True
    assert done.body["event"] == "batch_done" and done.body["subject"] == "night-1"
    assert done.body["params"]["succeeded"] == 2
    assert "notice: Batch night-1 finished: 2 tasks: 2 succeeded" in result.stdout
    log_text = (data / "logs" / "cli.log").read_text("utf-8")
    assert "run-secret-token" not in log_text and SECRET not in log_text
    assert "webhook #1 (json, $MA_TEST_HOOK_URL): batch_done sent" in log_text


@pytest.mark.expect_errors(r"\$MA_WECOM_URL is not set")
async def test_a_locked_keyring_does_not_freeze_the_window_while_a_notice_goes_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The address is in a keyring that does not answer (a locked Secret Service): the loop —
    the window's — goes on turning while the delivery waits, and the delivery gives up."""
    import threading

    from media_assistant.providers import secrets
    from tests.support.keyrings import HangingKeyring, use_keyring

    monkeypatch.delenv("MA_WECOM_URL", raising=False)
    monkeypatch.setattr(secrets, "KEYRING_TIMEOUT_S", 0.3)
    HangingKeyring.release.clear()
    unlocked = threading.Timer(3.0, HangingKeyring.release.set)  # a keyring unlocked later
    unlocked.start()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    try:
        with use_keyring(HangingKeyring()):
            ticker = asyncio.ensure_future(tick())
            sender = WebhookSender([hook("wecom")])  # the app's own look-up
            result = await sender.deliver(0, sender.hooks[0], NOTICE)
            ticker.cancel()
    finally:
        unlocked.cancel()
        HangingKeyring.release.set()
    assert not result.ok and "$MA_WECOM_URL is not set" in result.detail
    assert ticks >= 10, ticks
