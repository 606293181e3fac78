"""The log tab (issue 20, item 3): one row per line whatever was logged, every row one line
high, no traceback in sight; what an attempt did is said in the operator's language. A real
logger, the window's own handler and panel, offscreen."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QTranslator
from PySide6.QtWidgets import QApplication

from media_assistant.core.model.event_codes import EventCode, log_extra
from media_assistant.gui.common.i18n import install_translators
from media_assistant.gui.window.log_panel import LogModel, LogPanel, QtLogHandler


@pytest.fixture
def logged(qtbot: Any) -> Iterator[tuple[logging.Logger, LogPanel]]:
    model = LogModel()
    panel = LogPanel(model)
    qtbot.addWidget(panel)
    panel.resize(900, 300)
    panel.show()
    handler = QtLogHandler(model)
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.INFO)  # as the app has it
    logger = logging.getLogger("media_assistant.lanes.web")
    logger.addHandler(handler)
    yield logger, panel
    logger.removeHandler(handler)
    root.setLevel(level)


def rows(panel: LogPanel) -> list[str]:
    QCoreApplication.processEvents()  # the handler's queued signal
    proxy = panel.proxy
    return [str(proxy.index(r, 0).data()) for r in range(proxy.rowCount())]


def signin_failure() -> None:
    try:
        raise TimeoutError(
            "Timeout 30000ms exceeded.\nCall log:\n  - navigating to 'https://chat.example/',"
            " waiting until 'load'\n" + "  - waiting for selector 'textarea'\n" * 40
        )
    except TimeoutError:
        logging.getLogger("media_assistant.lanes.web").exception(
            "[web ds-web-1] sign-in failed: %s", "Timeout 30000ms exceeded.\nCall log:\n  - ..."
        )


@pytest.mark.expect_errors(r"sign-in failed: Timeout")  # the line the test logs itself
def test_a_traceback_is_one_short_row_and_the_rows_after_it_stay_one_line_high(
    logged: tuple[logging.Logger, LogPanel],
) -> None:
    logger, panel = logged
    signin_failure()
    logger.info("[web ds-web-1] next line")
    shown = rows(panel)
    assert len(shown) == 2
    assert "sign-in failed: Timeout 30000ms exceeded. …" in shown[0]
    assert all("\n" not in row and "Traceback" not in row for row in shown)
    tooltip = str(panel.proxy.index(0, 0).data(3))  # ToolTipRole
    assert "Call log:" in tooltip and "Traceback" not in tooltip and "log file" in tooltip
    view = panel.view
    line = view.fontMetrics().height()
    heights = {view.visualRect(panel.proxy.index(r, 0)).height() for r in range(2)}
    assert len(heights) == 1 and heights.pop() < 2 * line


def test_lane_filter_and_the_http_client_s_request_lines(
    logged: tuple[logging.Logger, LogPanel],
) -> None:
    logger, panel = logged
    http = logging.getLogger("httpx")
    http.addHandler(logger.handlers[-1])
    try:
        http.info('HTTP Request: POST http://127.0.0.1:9/v1/chat/completions "HTTP/1.1 200 OK"')
        http.warning("a warning from the HTTP client stays")
    finally:
        http.removeHandler(logger.handlers[-1])
    logger.info("[web ds-web-1] a web line")
    logging.getLogger("media_assistant.lanes.api").addHandler(logger.handlers[-1])
    logging.getLogger("media_assistant.lanes.api").info("[api ds-api] an api line")
    logging.getLogger("media_assistant.lanes.api").removeHandler(logger.handlers[-1])
    assert len(rows(panel)) == 3  # the request line is not among them
    panel.lane.setCurrentIndex(panel.lane.findData("api"))
    assert [r.split("  ")[-1] for r in rows(panel)] == ["[API ds-api] an api line"]


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[Callable[[], None]]:
    before = set(qapp.findChildren(QTranslator))
    locale = QLocale()
    yield lambda: install_translators(qapp, "zh_CN") and None
    for translator in set(qapp.findChildren(QTranslator)) - before:
        qapp.removeTranslator(translator)
    QLocale.setDefault(locale)


def test_what_an_attempt_did_is_said_in_chinese(
    logged: tuple[logging.Logger, LogPanel], chinese: Callable[[], None]
) -> None:
    logger, panel = logged
    chinese()
    params = {"chars": 917, "seconds": 6.9}
    logger.info(
        "[web ds-web-1] %s: %s",
        "t-1",
        "succeeded (917 chars)",
        extra=log_extra(EventCode.SUCCEEDED, params),
    )
    (row,) = rows(panel)
    assert "[网页版 ds-web-1] t-1: " in row and "917" in row
    assert "succeeded" not in row and "信息" in row
