"""Translations: the catalogues hold every user-facing string of the GUI, all translated and
compiled; with the Chinese catalogue installed the main window speaks Chinese, and English
plurals read "1 task" / "3 tasks".

The catalogue checks run the real lupdate and lrelease (well under a second each).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, Qt, QTranslator
from PySide6.QtWidgets import QApplication, QToolBar

import media_assistant
from media_assistant.core.config.schema import check_config
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import ErrorKind
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import AccountProblem, AccountState, ModelKind, TaskState
from media_assistant.core.rules.eta import Slot
from media_assistant.gui.accounts import config_text
from media_assistant.gui.accounts.panel import COL_STATE
from media_assistant.gui.batches.dialog import NewBatchDialog
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.common import labels
from media_assistant.gui.common.i18n import i18n_dir, install_translators
from media_assistant.gui.tasks.rows import COL_LANE, LaneIndex
from media_assistant.gui.tasks.rows import COL_STATE as COL_TASK_STATE
from media_assistant.gui.window.lane_panel import LanePanel
from media_assistant.gui.window.log_panel import LogModel
from media_assistant.gui.window.main_window import MainWindow
from media_assistant.services import Services

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SOURCES = [
    *sorted((ROOT / "media_assistant" / "gui").rglob("*.py")),
    ROOT / "media_assistant" / "app.py",
]
LANGUAGES = ("zh_CN", "en")
PLURAL_FORMS = {"zh_CN": 1, "en": 2}
PLACEHOLDER = re.compile(r"%L?n|%\d")
ACCELERATOR = re.compile(r"&[^&\s]")
CJK = re.compile(r"[\u4e00-\u9fff]")

Message = tuple[str, str, str, bool]  # context, source, comment, plural


def ts_file(language: str) -> Path:
    return i18n_dir() / f"media_assistant_{language}.ts"


def qm_file(language: str) -> Path:
    return i18n_dir() / f"media_assistant_{language}.qm"


def entries(ts: Path) -> Iterator[tuple[Message, ET.Element]]:
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            key = (
                name,
                message.findtext("source") or "",
                message.findtext("comment") or "",
                message.get("numerus") == "yes",
            )
            translation = message.find("translation")
            assert translation is not None, key
            yield key, translation


def tool(name: str, *args: str | Path) -> None:
    subprocess.run([BIN / name, *map(str, args)], check=True, capture_output=True, timeout=60)


# ------------------------------------------------------------------------------ catalogues


def test_the_catalogues_hold_exactly_the_strings_of_the_sources(tmp_path: Path) -> None:
    """A new or changed string shows up here until scripts/i18n.sh has been run (and the new
    entries translated: see the next test)."""
    fresh = tmp_path / "media_assistant_zh_CN.ts"
    tool("pyside6-lupdate", "-silent", "-no-obsolete", "-locations", "none", *SOURCES, "-ts", fresh)
    extracted = {key for key, _ in entries(fresh)}
    assert len(extracted) > 200  # lupdate really read the sources
    for language in LANGUAGES:
        committed = {key for key, _ in entries(ts_file(language))}
        assert sorted(extracted - committed) == [], f"not in the {language} catalogue"
        assert sorted(committed - extracted) == [], f"obsolete in the {language} catalogue"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_entry_is_translated_with_its_placeholders_and_accelerators(language: str) -> None:
    checked = 0
    for key, translation in entries(ts_file(language)):
        checked += 1
        _context, source, _comment, plural = key
        assert translation.get("type") is None, f"{language}: unfinished {key}"
        forms = (
            [f.text or "" for f in translation.iter("numerusform")]
            if plural
            else [translation.text or ""]
        )
        if plural:
            assert len(forms) == PLURAL_FORMS[language], f"{language}: plural forms of {key}"
        for form in forms:
            assert form.strip(), f"{language}: empty translation of {key}"
            wanted = sorted(PLACEHOLDER.findall(source))
            assert sorted(PLACEHOLDER.findall(form)) == wanted, f"{language}: {key} → {form!r}"
            if ACCELERATOR.search(source):
                assert ACCELERATOR.search(form), f"{language}: accelerator lost in {form!r}"
    assert checked > 200  # the loop above really looked at the catalogue


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalogues_are_up_to_date(tmp_path: Path, language: str) -> None:
    rebuilt = tmp_path / f"{language}.qm"
    tool("pyside6-lrelease", "-silent", ts_file(language), "-qm", rebuilt)
    assert rebuilt.read_bytes() == qm_file(language).read_bytes(), "run scripts/i18n.sh"


# ------------------------------------------------------------------------------ at run time


@pytest.fixture
def use_language(qapp: QApplication) -> Iterator[Callable[[str], None]]:
    """Install the app's translators as the app does; take them away again afterwards (the
    QApplication outlives this test)."""
    before = set(qapp.findChildren(QTranslator))
    locale = QLocale()

    def install(language: str) -> None:
        assert install_translators(qapp, language) == language

    yield install
    for translator in set(qapp.findChildren(QTranslator)) - before:
        qapp.removeTranslator(translator)
        translator.deleteLater()
    QLocale.setDefault(locale)


CONFIG = """
[[models]]
name = "web-model"
kind = "web"

[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "web-1"
kind = "web"
site = "fake"
models = ["web-model"]

[[accounts]]
id = "web-2"
kind = "web"
site = "fake"
models = ["web-model"]

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_I18N_TEST_KEY"
models = ["api-model"]
"""


@pytest.fixture
def services(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    monkeypatch.setenv("MA_I18N_TEST_KEY", "sk-i18n-test")
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(CONFIG, encoding="utf-8")
    services = Services.open(Paths.resolve(data))
    yield services
    services.close()


async def build_window(services: Services, qtbot: Any) -> MainWindow:
    """As the app builds it (the scheduler is not started: nothing here needs to run)."""
    controller = AppController(services, services.scheduler())
    window = MainWindow(controller, LogModel())
    qtbot.addWidget(window)
    await window.load()
    return window


async def test_the_main_window_speaks_chinese(
    use_language: Callable[[str], None], services: Services, qtbot: Any
) -> None:
    use_language("zh_CN")
    accounts = services.accounts
    accounts.set_problem("web-1", AccountProblem.NEEDS_LOGIN, "the chat page shows the login form")
    accounts.set_enabled("web-2", False)
    accounts.cool_down("api-1", 95, ErrorKind.RATE_LIMITED.value)
    services.store.submit(
        [
            NewTask("w1", "web-model", ModelKind.WEB, "写一篇春季护肤笔记", "i18n"),
            NewTask("a1", "api-model", ModelKind.API, "为保温杯写五个标题", "i18n"),
        ]
    )
    window = await build_window(services, qtbot)

    toolbar = window.findChild(QToolBar, "actions")
    assert toolbar is not None
    texts = [a.text() for a in toolbar.actions() if not a.isSeparator()]
    assert texts == [
        "新建批次…",
        "取消",
        "取消批次",
        "重试",
        "重试失败任务…",
        "全部暂停",
        "导出…",
        "账号…",
        "设置…",
        "运行指标",
    ]
    assert window.windowTitle().endswith("AI 智能媒体助理")

    assert window.lanes["web"].title.text() == "网页版通道"
    assert window.lanes["api"].title.text() == "接口通道"
    window.refresh()
    assert window.lanes["web"].subtitle.text() == "2 个账号 · 0 个空闲槽位"
    assert "等待中" in window.lanes["web"].counts.text()

    model = window.model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == [
        "任务",
        "模型",
        "通道",
        "账号",
        "状态",
        "尝试次数",
        "心跳",
        "开始时间",
        "耗时",
        "错误",
        "优先级",
        "工作站",  # shown only on a team database
    ]
    lanes = {model.data(model.index(r, COL_LANE)) for r in range(model.rowCount())}
    assert lanes == {"网页版", "接口"}
    assert {model.data(model.index(r, COL_TASK_STATE)) for r in range(model.rowCount())} == {
        "等待中"
    }

    table = window.accounts.table
    window.accounts.refresh()
    state = {
        account.id: table.item(r, COL_STATE).text()
        for r, account in enumerate(window.controller.accounts)
    }
    # The problem in words (the site's own in the tooltip); the state and cool-down too.
    assert state["web-1"] == "需要登录\n已退出登录：请点击“登录”重新登录"
    assert "the chat page shows the login form" in table.item(0, COL_STATE).toolTip()
    assert state["web-2"] == "已停用"
    assert re.fullmatch(r"冷却中\n触发限流，剩余 1分3[0-5]秒", state["api-1"]), state["api-1"]
    accounts.set_enabled("web-2", True)
    window.accounts.refresh()
    assert table.item(1, COL_STATE).text() == "正常"

    assert labels.error_text("rate_limited", "429 Too Many Requests") == (
        "触发限流：429 Too Many Requests"
    )
    assert labels.error_kind("lost") == "心跳丢失"


def kind_labels() -> dict[str, str]:
    """Every kind the core returns, with the GUI's word for it."""
    words = {f"task {s}": labels.task_state(s) for s in TaskState}
    words |= {f"error {k}": labels.error_kind(k) for k in ErrorKind}
    words |= {f"account {s}": labels.account_state(s) for s in AccountState}
    words |= {f"lane {k}": labels.lane(k) for k in ModelKind}
    return words | {f"lane title {k}": labels.lane_title(k) for k in ModelKind}


def test_every_kind_the_core_returns_has_a_translated_label(
    use_language: Callable[[str], None],
) -> None:
    """A kind added to the core without a word here would show as its raw value."""
    kinds = len(TaskState) + len(ErrorKind) + len(AccountState) + 2 * len(ModelKind)
    assert len(kind_labels()) == kinds > 30  # every kind is looked at below
    for kind, word in kind_labels().items():
        assert word != kind.split()[-1], f"no label for {kind}"
    use_language("zh_CN")
    for kind, word in kind_labels().items():
        assert CJK.search(word), f"{kind} is not translated: {word!r}"


def test_english_plurals(use_language: Callable[[str], None], qtbot: Any) -> None:
    use_language("en")
    panel = LanePanel("api")
    qtbot.addWidget(panel)
    panel.refresh(LaneIndex(), [Slot("api-1", frozenset({"m"}), 1, True)], 0.0)
    assert panel.subtitle.text() == "1 account · 1 slot free"
    slots = [Slot(f"api-{i}", frozenset({"m"}), 1, True) for i in range(3)]
    panel.refresh(LaneIndex(), slots, 0.0)
    assert panel.subtitle.text() == "3 accounts · 3 slots free"

    dialog = NewBatchDialog([("api-model", "api")])
    qtbot.addWidget(dialog)
    dialog.paste_edit.setPlainText("one prompt")
    assert dialog.prompt_count.text() == "1 prompt"
    dialog.paste_edit.setPlainText("first\nsecond\n\nthird")
    assert dialog.prompt_count.text() == "3 prompts"

    def tr(context: str, text: str, n: int) -> str:
        return QCoreApplication.translate(context, text, "", n)

    assert tr("TaskActions", "%n task(s) back in the queue", 1) == "1 task back in the queue"
    assert tr("TaskActions", "%n task(s) back in the queue", 3) == "3 tasks back in the queue"
    assert tr("TaskTable", "Cancel %n task(s)", 1) == "Cancel 1 task"
    assert tr("MainWindow", "%n task(s) added", 3) == "3 tasks added"


def our_rule_codes() -> set[str]:
    """Every code a rule of ours gives a configuration problem, read from the sources' calls
    (a new rule without words would show its English message in a Chinese set-up window)."""
    where = {"RuleBroken": 0, "FieldProblem": 1, "ConfigProblem": 2}
    codes: set[str] = set()
    root = Path(media_assistant.__file__).parent
    for source in (
        "core/config/schema.py",
        "core/config/team.py",
        "core/rules/pacing.py",
        "providers/adapter_check.py",
    ):
        tree = ast.parse((root / source).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                at = where.get(node.func.id)
                if at is None or len(node.args) <= at:
                    continue
                arg = node.args[at]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    codes.add(arg.value)
    return codes


def test_the_set_up_window_words_every_configuration_problem(
    use_language: Callable[[str], None],
) -> None:
    codes = our_rule_codes()
    assert {"url_scheme", "duplicate_account", "model_unserved", "active_hours_format"} <= codes
    assert {"store_url_scheme", "store_url_password"} <= codes  # team mode's address
    assert codes <= config_text.known_codes(), codes - config_text.known_codes()
    bad = tomllib.loads(CONFIG)
    bad["accounts"][2]["base_url"] = "ftp://x"
    bad["accounts"][1]["id"] = "web-1"
    bad["accounts"][0]["concurrency"] = 9
    bad["models"].append({"name": "nobody", "kind": "api"})
    _, problems = check_config(bad)
    assert problems
    use_language("zh_CN")
    for problem in problems:
        words = config_text.problem_text(problem)
        assert problem.code in config_text.known_codes(), problem
        assert CJK.search(words), (problem, words)
    fixed = tomllib.loads(CONFIG)
    fixed["accounts"][0]["models"] = []
    _, problems = check_config(fixed)
    assert [config_text.problem_text(p) for p in problems] == ["请为此账号至少选择一个模型"]
    fixed = tomllib.loads(CONFIG)
    fixed["accounts"][2]["api_key_env"] = KEY_LIKE
    _, problems = check_config(fixed)
    assert problems and problems[0].code == "api_key_env_pasted"
    assert KEY_LIKE not in config_text.problem_text(problems[0])
    assert KEY_LIKE not in repr(problems[0].params)


KEY_LIKE = "sk-test-fake-key-0000-not-real"
