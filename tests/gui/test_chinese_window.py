"""Chinese everywhere in a Chinese window (issue 20, item 10). Every source of text the operator
reads is walked under zh_CN — the catalogue's translations, the words for every kind and code the
core returns (task and account states, error kinds, lanes, event kinds, account problems and our
own reasons), the notices (in the list and as webhooks send them), account tooltips, export
values with Chinese headers, Qt's own catalogue (the file picker), the demo's answers — and a
Latin-only word outside a short allow list fails the test.

Allowed: names of products and formats (API, Chromium, Excel, Markdown…), what the operator types
or reads as a name (ids, variable names and commands with ``-``/``_``/digits, file names, URLs),
placeholders and keyboard accelerators. Everything else in Latin letters is English that leaked.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QTranslator
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel

from media_assistant.core.exports.fields import ZH_VALUES
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.accounts import AccountStatus
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.states import (
    AccountProblem,
    AccountState,
    ModelKind,
    NoticeKind,
    TaskState,
)
from media_assistant.core.notices.center import Notice, notice_text
from media_assistant.gui.common import labels
from media_assistant.gui.common.event_text import coded_text
from media_assistant.gui.common.i18n import i18n_dir, install_translators
from media_assistant.gui.notices.notification_list import NoticeWords
from media_assistant.services import Services
from media_assistant.sim.api_content import make_reply
from media_assistant.sim.chat_generation import compose_answer
from media_assistant.sim.chat_markdown import compose_markdown

ALLOWED = {
    word.lower()
    for word in (
        # products, formats, units, platforms the operator knows by these names
        "AI API ID URL Base HTTP HTTPS HTML MB KB GB Token Tokens CSV TSV XLSX JSON JSONL Lines "
        "Markdown Excel Word Zip Webhook Webhooks Chromium Chrome Edge Google Microsoft "
        "Playwright Windows macOS Linux Open WebUI DeepSeek ChatGPT Kimi Qwen Doubao Yuanbao "
        "OpenAI Ctrl Enter Shift Alt Esc Tab PostgreSQL TLS SSL"
        # libpq and its own names (a team database: its parameters, where a password may be kept)
        " PGPASSWORD pgpass libpq sslmode"
        # the one command a damaged store's notice names (store_recovery.py)
        " restore"
        # Windows' device names, which an account id cannot be (config_text.py)
        " CON PRN AUX NUL"
    ).split()
}
CJK = re.compile(r"[\u4e00-\u9fff]")
_REMOVED = (
    re.compile(r"<[^>]+>"),  # rich-text markup
    re.compile(r"(?:https?|postgres(?:ql)?)://\S*"),  # addresses
    re.compile(r"(?<![\w/])(?:[A-Za-z]:)?[\\/][^\s，。：）]*"),  # paths: /data, C:\Users
    re.compile(r"%\w+%\S*"),  # Windows paths through a variable: %APPDATA%\postgresql
    re.compile(r"%L?n|%\d"),  # placeholders
    re.compile(r"&\w"),  # keyboard accelerators
    re.compile(r"\S+\.(toml|csv|tsv|xlsx|jsonl|json|md|docx|zip|db|txt|log|qm)\b"),  # files
    re.compile(r"`[^`]*`"),  # code
    re.compile(r"GRANT [A-Z ]+ ON SCHEMA \w+ TO"),  # SQL for a database's administrator
    re.compile(r"\?\w+=[\w-]+"),  # a URL's parameters: ?sslmode=require
    re.compile(r"\b[\w.]*[-_0-9.][\w.-]*\b"),  # ids, variables, commands: ds-web-1, API_KEY
)


def english_words(text: str) -> list[str]:
    """The Latin-only words of ``text`` that are not allowed."""
    for pattern in _REMOVED:
        text = pattern.sub(" ", text)
    words = re.findall(r"[A-Za-z][A-Za-z']*", text)
    return [w for w in words if w.lower() not in ALLOWED and len(w) > 1]


def chinese(text: str, where: str) -> None:
    assert not english_words(text), f"{where}: English in the Chinese window: {text!r}"


@pytest.fixture
def zh(qapp: QApplication) -> Iterator[None]:
    before = set(qapp.findChildren(QTranslator))
    locale = QLocale()
    assert install_translators(qapp, "zh_CN") == "zh_CN"
    yield
    for translator in set(qapp.findChildren(QTranslator)) - before:
        qapp.removeTranslator(translator)
        translator.deleteLater()
    QLocale.setDefault(locale)


def test_the_check_itself_finds_english() -> None:
    assert english_words("配置有误：the base URL must start with http:// or https://") == [
        "the",
        "must",
        "start",
        "with",
        "or",
    ]
    assert not english_words("账号 ds-web-1 的 API 密钥（DEEPSEEK_API_KEY）保存在 config.toml")
    assert english_words("ConnectError: All connection attempts failed")


def test_every_chinese_translation_is_chinese() -> None:
    import xml.etree.ElementTree as ET

    root = ET.parse(i18n_dir() / "media_assistant_zh_CN.ts").getroot()
    for context in root.iter("context"):
        for message in context.iter("message"):
            translation = message.find("translation")
            assert translation is not None
            forms = [f.text or "" for f in translation.iter("numerusform")] or [
                translation.text or ""
            ]
            for form in forms:
                chinese(form, f"{context.findtext('name')}: {message.findtext('source')!r}")


def test_every_kind_and_code_the_core_returns_reads_chinese(zh: None) -> None:
    for state in TaskState:
        chinese(labels.task_state(state), f"task state {state}")
    for kind in ErrorKind:
        chinese(labels.error_kind(kind), f"error kind {kind}")
        # Our own English message behind a kind never shows beside it.
        if kind not in labels_with_server_words():
            chinese(labels.error_text(kind, "ConnectError: All connection attempts failed"), kind)
    for account_state in AccountState:
        chinese(labels.account_state(account_state), f"account state {account_state}")
    for lane in ModelKind:
        chinese(labels.lane(lane) + labels.lane_title(lane), f"lane {lane}")
    for word in labels.event_kinds():
        chinese(word, "event kind")
    for rule in ("too_short", "refusal", "truncated"):
        chinese(labels.quality_rule(rule), rule)
    for code in labels.problem_codes():
        status = account(problem=AccountProblem.NEEDS_ATTENTION, code=code)
        chinese(labels.problem_text(status), f"problem {code}")
        chinese(labels.account_reason(status, 0.0), f"problem {code}")
    for kind in ErrorKind:  # a cool-down names its kind and counts down
        status = account(cooldown=(95.0, kind.value))
        chinese(labels.account_reason(status, 0.0), f"cool-down {kind}")
    for code in (
        "connect_failed",
        "connect_timeout",
        "idle_timeout",
        "send_timeout",
        "dropped",
        "invalid_http",
        "url_scheme",
        "no_api_key",
    ):
        text = labels.provider_error_text("network", "ConnectError: x", code, {"seconds": 10})
        chinese(text, f"reason {code}")


def labels_with_server_words() -> set[str]:
    """Kinds whose message is the site's or API's own words (shown as they came)."""
    return {
        ErrorKind.AUTH_REJECTED,
        ErrorKind.BAD_REQUEST,
        ErrorKind.CONTEXT_TOO_LONG,
        ErrorKind.CONTENT_POLICY,
        ErrorKind.INSUFFICIENT_QUOTA,
        ErrorKind.RATE_LIMITED,
        ErrorKind.SITE_BUSY,
        ErrorKind.SERVER_ERROR,
        ErrorKind.BAD_INPUT,
        ErrorKind.QUALITY_REJECTED,
    }


def account(
    *,
    problem: AccountProblem = AccountProblem.NONE,
    code: str | None = None,
    cooldown: tuple[float, str] | None = None,
    detail: str = "run 'media-assistant accounts set-key api-1' or set MA_KEY",
) -> AccountStatus:
    return AccountStatus(
        account_id="api-1",
        kind=ModelKind.API,
        enabled=True,
        problem=problem,
        problem_detail=detail if problem is not AccountProblem.NONE else None,
        cooldown_until=cooldown[0] if cooldown else None,
        cooldown_reason=cooldown[1] if cooldown else None,
        concurrency=None,
        browser_pid=None,
        browser_started_at=None,
        problem_code=code,
    )


EVENT_PARAMS: dict[str, Any] = {
    "attempt": 2,
    "max_attempts": 3,
    "base": 0,
    "retries": 1,
    "account": "ds-web-1",
    "step": "composer_found",
    "chars": 917,
    "seconds": 6.9,
    "error_kind": "network",
    "detail": "ConnectError: All connection attempts failed",
    "delay": 4.2,
    "pause": 20.0,
    "batch": "周报-1",
    "round": 1,
    "edited": True,
    "priority": 5,
    "pid": 4242,
    "files": 2,
    "task": "t-1",
    "why": "conversation_unknown",
    "state": "stopped",
    "finding": "leftover_stopped",
    "model": "deepseek-chat",
    "system": "with",
    "reasoning_chars": 0,
    "truncated": True,
    "risk": "captcha",
    "repeats": 2,
    "count": 3,
    "until": 1_764_483_900.0,
    "rule": "refusal",
    "then": "fallback",
    "cause": "heartbeat",
    "adapter": "my-site",  # ids are the operator's names: written like one
    "accounts": 2,
    "attempts": 3,
}


def test_every_event_code_reads_chinese(zh: None) -> None:
    for code in EventCode:
        params = {**EVENT_PARAMS, "state": "pending"} if code is EventCode.LOST else EVENT_PARAMS
        text = coded_text(code.value, params, "ENGLISH FALLBACK")
        assert text != "ENGLISH FALLBACK", f"{code}: no words"
        chinese(text, f"event {code}")


def test_notices_read_chinese_in_the_list_and_in_group_chats(zh: None) -> None:
    words = NoticeWords()
    counts = {"total": 3, "succeeded": 2, "failed": 1, "canceled": 0}
    codes = ["", *labels.problem_codes()]
    notices = [
        Notice(NoticeKind.BATCH_DONE, "周报-1", 1.0, counts),
        Notice(NoticeKind.BATCH_FAILED, "周报-1", 1.0, counts),
        Notice(NoticeKind.DISK_LOW, "/data", 1.0, {"free_mb": 12}),
        Notice(
            NoticeKind.POISON_PILL,
            "周报-1-00003",
            1.0,
            {"error_kind": "server_error", "accounts": 2},
        ),
        *(
            Notice(
                NoticeKind.ACCOUNT_ATTENTION,
                "api-1",
                1.0,
                {
                    "state": state,
                    "reason": "needs attention: no API key for account 'api-1'",
                    "code": code,
                },
            )
            for state in ("needs_login", "credentials_rejected", "needs_attention")
            for code in codes
        ),
    ]
    for notice in notices:
        title, text = words.title(notice), words.text(notice)
        chinese(f"{title}\n{text}", f"notice {notice.kind} {notice.params.get('code')}")
        assert text.count("需要处理") <= 1, text  # no doubled prefix
        chinese("\n".join(notice_text(notice, "zh")), f"webhook {notice.kind}")


@pytest.mark.expect_errors(r"no API key for account .api-1.")  # the account the test leaves keyless
async def test_account_tooltips_name_no_command_to_type(
    zh: None, tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from media_assistant.gui.bridge.controller import AppController
    from media_assistant.gui.window.log_panel import LogModel
    from media_assistant.gui.window.main_window import MainWindow

    monkeypatch.delenv("MA_ZH_KEY", raising=False)  # no key anywhere: the account says so
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(
        '[[models]]\nname = "api-model"\nkind = "api"\n\n[[accounts]]\nid = "api-1"\n'
        'kind = "api"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "MA_ZH_KEY"\n'
        'models = ["api-model"]\n',
        encoding="utf-8",
    )
    services = Services.open(Paths.resolve(data))
    services.bind_loop()
    scheduler = services.scheduler()
    window = MainWindow(AppController(services, scheduler), LogModel())
    qtbot.addWidget(window)
    try:
        await window.controller.follower.start(await window.load())
        await scheduler.start()  # builds the provider: no key, the account needs attention
        for _ in range(100):
            status = window.controller.account_status("api-1")
            if status is not None and status.problem_code == "no_api_key":
                break
            await asyncio.sleep(0.05)
        window.accounts.refresh()
        item = window.accounts.table.item(0, 1)
        assert item is not None
        chinese(item.text(), "account row")
        chinese(item.toolTip(), "account tooltip")
        assert "set-key" not in item.toolTip()
    finally:
        await scheduler.stop()
        await window.controller.close()
        window.close()
        services.close()


def test_export_values_in_chinese_are_the_window_s_words(zh: None) -> None:
    assert set(ZH_VALUES["state"]) == {s.value for s in TaskState}
    assert set(ZH_VALUES["model_kind"]) == {k.value for k in ModelKind}
    assert set(ZH_VALUES["error_kind"]) == {k.value for k in ErrorKind}
    for state, word in ZH_VALUES["state"].items():
        assert word == labels.task_state(state)
    for lane, word in ZH_VALUES["model_kind"].items():
        assert word == labels.lane(lane)
    for kind, word in ZH_VALUES["error_kind"].items():
        assert word == labels.error_kind(kind)


def test_qt_s_own_dialogs_speak_chinese(zh: None, qtbot: Any) -> None:
    """The file picker is Qt's (non-native under Xvfb, and on Linux desktops without a portal):
    its own catalogue must be loaded, or it says "Look in:" and "Files of type:"."""
    for context, text in (
        ("QFileDialog", "Look in:"),
        ("QFileDialog", "Files of type:"),
        ("QFileDialog", "File &name:"),
        ("QPlatformTheme", "Cancel"),
        ("QPlatformTheme", "Save"),
        ("QPlatformTheme", "Open"),
    ):
        translated = QCoreApplication.translate(context, text)
        assert CJK.search(translated), (context, text, translated)
    dialog = QFileDialog(None, "", str(Path.home()), "CSV (*.csv)")
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
    qtbot.addWidget(dialog)
    shown = [label.text() for label in dialog.findChildren(QLabel) if label.text()]
    assert shown and all(CJK.search(t) for t in shown), shown


def test_the_demo_answers_a_chinese_prompt_in_chinese() -> None:
    prompt = "为“春季新品连衣裙”写一段 120 字左右的小红书风格文案，附 3 个标题备选。"
    reply = make_reply(1, "demo-chat-api", [{"role": "user", "content": prompt}], (300, 600))
    assert reply.content.startswith(f"回答：{prompt}")
    chinese(reply.content, "API simulator")
    rng = random.Random(3)
    chinese(compose_answer(prompt, rng, 400), "chat site")
    markdown = compose_markdown(prompt, rng, 600)
    chinese(re.sub(r"```.*?```", "", markdown, flags=re.S), "chat site (Markdown)")
    english = make_reply(1, "m", [{"role": "user", "content": "hello there"}], (300, 600))
    assert english.content.startswith("Answer to: hello there")  # English stays English


# What a site check writes at its steps (providers/web/canary.py), one of each sentence, with
# the adapter's selectors and numbers in them as the check fills them in.
SITE_FINDINGS = [
    "52 characters with input.method fill, read back equal",
    "52 characters with input.method type (input.verify off)",
    "clicked button[data-testid=send]; the page showed the message",
    "send control button.send matched nothing: pressed Enter, and the page showed the message",
    "pressed Enter; the page showed the message",
    "the adapter declares no generating indicator",
    ".stop-button showed",
    ".stop-button matched nothing while the answer was written",
    "the adapter declares no done marker (the generating indicator went away)",
    "the adapter declares no done marker (the text held still)",
    ".copy-button appeared",
    ".copy-button matched nothing (the answer was taken after done_grace_s 8 s of stable text)",
    'answer.format = "text": taken as shown',
    "the answer's HTML gave no Markdown",
    "118 characters of Markdown",
    "the answer had no markup: its text as shown",
    "the adapter declares no New chat control (a page load per task)",
    "a.new-chat gave no empty chat within 10 s",
    "a.new-chat: an empty chat",
    "no sign-in marker showed (.login-button, url /login)",
    "no sign-in marker showed (the adapter declares none)",
    "textarea#prompt visible",
    "96 characters",
    "passed",
    "canceled",
    "browser/page error: Target page, context or browser has been closed",
    ".answer matched nothing: no answer element appeared",
]


FINDING_CODE = (
    "button[data-testid=send]",
    "button.send",
    ".stop-button",
    ".copy-button",
    "a.new-chat",
    ".login-button, url /login",
    "textarea#prompt",
    ".answer",
    "Target page, context or browser has been closed",
)


def test_the_site_checks_findings_read_chinese(zh: None) -> None:
    """Issue 26 item 6: the findings column said "no sign-in marker showed", "the answer had
    no markup…" in the Chinese window."""
    from media_assistant.gui.common.site_findings import finding_sources, finding_text

    for source in finding_sources():
        assert CJK.search(QCoreApplication.translate("SiteFinding", source)), source
    for detail in SITE_FINDINGS:
        words = finding_text(detail)
        assert words != detail and CJK.search(words), detail
        for code in FINDING_CODE:  # selectors and the browser's own words stay as they are
            words = words.replace(code, " ")
        chinese(words, f"finding {detail!r}")


def test_the_site_checks_own_sentences_are_all_worded(zh: None) -> None:
    """Every fixed sentence the check writes (a string literal handed to a step in canary.py)
    is one the window words: a new sentence there cannot reach the window in English."""
    import media_assistant.providers.web.canary as canary
    from media_assistant.gui.common.site_findings import finding_text

    source = Path(canary.__file__).read_text(encoding="utf-8")
    literals = re.findall(r'\bsteps\.(?:ok|failed|skipped)\(\s*[\w.]+,\s*"([^"{}]+)"\s*\)', source)
    literals += re.findall(r'return "([^"{}]+)"', source)
    assert len(literals) >= 6, literals
    for text in literals:
        assert CJK.search(finding_text(text)), text


def test_an_adapter_file_the_schema_refuses_is_said_in_chinese(zh: None) -> None:
    """Issue 26 item 6: *Install adapter file…* listed "Field required", "Input should be a
    valid list"."""
    from media_assistant.core.model.errors import ConfigError
    from media_assistant.gui.accounts.config_text import adapter_error_text
    from media_assistant.providers.web.adapter import parse_adapter
    from tests.integration.test_sites_cli import adapter_text

    text = adapter_text(version="1")
    broken = re.sub(r"(?m)^answer = .*$", "", text, count=1)  # [selectors] answer: required
    broken = re.sub(r"(?m)^input = .*$", "input = 5", broken, count=1)  # not a list
    with pytest.raises(ConfigError) as caught:
        parse_adapter(broken, "fixed.toml")
    assert "Field required" in str(caught.value)  # the CLI's English is unchanged
    said = adapter_error_text(caught.value)
    assert "Field required" not in said and "Input should be" not in said, said
    for line in said.splitlines():
        chinese(line, "adapter problem")


def test_the_file_dialogs_type_column_says_folder_in_chinese(zh: None, tmp_path: Path) -> None:
    """Issue 26 item 6: Qt's "Folder" in the file dialog's type column."""
    from PySide6.QtCore import QFileInfo
    from PySide6.QtWidgets import QFileIconProvider

    assert QFileIconProvider().type(QFileInfo(str(tmp_path))) == "文件夹"
