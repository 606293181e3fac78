"""The rule that tells a broken adapter (issue 21 item 2): the same adapter step failing on
consecutive tasks of one account; and the redaction of what a failing step's page showed."""

from __future__ import annotations

from media_assistant.core.model.errors import ErrorKind, ProviderError
from media_assistant.core.model.states import NoticeKind
from media_assistant.core.notices.center import Notice, notice_text
from media_assistant.core.rules.retry import Backoff, Hold, decide
from media_assistant.core.rules.site_breakage import (
    AdapterStep,
    BreakageWatch,
    verdict_message,
    verdict_step,
)
from media_assistant.providers.web.diagnose import cap, redact_text


def test_the_second_task_in_a_row_failing_at_one_step_is_the_verdict() -> None:
    watch = BreakageWatch()
    assert watch.failed(AdapterStep.COMPOSER_FOUND, "div#composer", "t1") is None
    verdict = watch.failed(AdapterStep.COMPOSER_FOUND, "div#composer", "t2")
    assert verdict is not None and verdict.failures == 2
    assert verdict.message == "the site's page changed: composer found (div#composer)"


def test_at_a_prompts_step_the_same_task_failing_again_is_not_a_second_task() -> None:
    """A prompt the page cannot take (its retry came back to the account) is not a site that
    changed: at the steps a prompt can fail, it takes another task failing there."""
    watch = BreakageWatch()
    for step in (AdapterStep.TEXT_ENTERED, AdapterStep.SENT):
        assert watch.failed(step, "x", "t1") is None
        assert watch.failed(step, "x", "t1") is None
        assert watch.streak == (step, 1)
        assert watch.failed(step, "x", "t2") is not None


def test_at_a_pages_step_a_retry_of_the_same_task_counts() -> None:
    """A batch of one task on a page without its composer: held, not failed."""
    watch = BreakageWatch()
    assert watch.failed(AdapterStep.COMPOSER_FOUND, "div#composer", "t1") is None
    assert watch.failed(AdapterStep.COMPOSER_FOUND, "div#composer", "t1") is not None


def test_another_step_or_a_task_that_went_through_starts_over() -> None:
    watch = BreakageWatch()
    watch.failed(AdapterStep.COMPOSER_FOUND, "a", "t1")
    assert watch.failed(AdapterStep.SENT, "b", "t2") is None  # a different step: one of it
    assert watch.streak == (AdapterStep.SENT, 1)
    watch.passed()
    assert watch.failed(AdapterStep.SENT, "b", "t3") is None
    assert watch.failed(AdapterStep.SENT, "b", "t4") is not None


def test_every_step_has_words_and_a_verdict_without_a_selector_reads_well() -> None:
    assert all(step.words for step in AdapterStep)
    assert verdict_message(AdapterStep.DONE_SEEN, "") == "the site's page changed: done seen"


def test_a_verdict_holds_the_task_without_a_deadline_or_an_attempt() -> None:
    import random

    decision = decide(
        ProviderError(ErrorKind.SITE_CHANGED, "the site's page changed: sent (button)"),
        attempt=3,
        max_attempts=3,
        cancel_requested=False,
        now=1000.0,
        deadline_at=900.0,  # past: a deferral would fail now; a held task waits for the fix
        backoff=Backoff(1.0, 10.0),
        default_pause=30.0,
        rng=random.Random(1),
    )
    assert isinstance(decision, Hold) and decision.kind is ErrorKind.SITE_CHANGED


def test_a_saved_page_keeps_no_secret_and_no_more_than_its_cap() -> None:
    html = (
        '<a href="https://x.example/cb?token=abc123&x=1">x</a> Authorization: Bearer '
        "abcdefghijklmnop sk-live-ABCDEFGH12345 eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2"
    )
    clean = redact_text(html)
    for secret in ("abc123", "abcdefghijklmnop", "sk-live-ABCDEFGH12345", "eyJhbGci"):
        assert secret not in clean
    assert "x=1" in clean and "[redacted]" in clean
    big = "字" * 300_000  # 900 KB of UTF-8
    capped = cap(big, limit=100_000)
    assert len(capped.encode("utf-8")) < 100_200 and "cut at 100 KB of 900 KB" in capped
    assert cap("small") == "small"


def test_a_chinese_group_chat_hears_the_step_in_chinese_not_the_selector() -> None:
    reason = verdict_message(AdapterStep.COMPOSER_FOUND, "textarea#outdated")
    notice = Notice(
        NoticeKind.ACCOUNT_ATTENTION,
        "ds-web-1",
        1.0,
        {"state": "needs_attention", "reason": reason, "code": "site_changed"},
    )
    title, text = notice_text(notice, "zh")
    assert title == "账号 ds-web-1：网站页面已改版"
    assert text.startswith("在步骤“找到输入框”处页面与适配文件不符；"), text
    assert "textarea" not in text
    assert notice_text(notice, "en")[1].startswith(reason)


def test_a_verdict_names_its_step_back_and_its_chinese_words_are_the_windows() -> None:
    import xml.etree.ElementTree as ET
    from pathlib import Path

    catalogue = Path(__file__).parents[2] / "resources/i18n/media_assistant_zh_CN.ts"
    [context] = [
        c
        for c in ET.parse(catalogue).getroot().iter("context")
        if c.findtext("name") == "AdapterStep"
    ]
    window = {m.findtext("source"): m.findtext("translation") for m in context.iter("message")}
    for step in AdapterStep:
        assert verdict_step(verdict_message(step, "div#x, [role='textbox']")) is step
        assert verdict_step(verdict_message(step, "")) is step
        assert step.words_zh == window[step.words], step
    assert verdict_step("needs attention: no API key") is None
    assert verdict_step("the site's page changed: something else") is None
