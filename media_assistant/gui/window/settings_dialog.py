"""Settings: browser path and windows, lane timeouts, language. Saved into config.toml
(comments and layout kept; the file is read again at Save, so a hand edit made meanwhile stays),
validated with the same schema as every other config change."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import tomlkit
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.config.edit import ConfigChanged, read_config_text, replace_config
from media_assistant.core.config.schema import parse_config
from media_assistant.core.model.errors import ConfigError, InputError
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.common.i18n import LANGUAGES


class SettingsDialog(QDialog):
    def __init__(self, config_file: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Settings"))
        self.config_file = config_file
        text = config_file.read_text(encoding="utf-8-sig") if config_file.exists() else ""
        current = parse_config(tomlkit.parse(text).unwrap(), str(config_file))

        self.browser = QLineEdit(current.browser.executable or "", self)
        self.browser.setPlaceholderText(
            self.tr("automatic (Playwright's Chromium, Chrome/Edge, chromium)")
        )
        metrics = self.browser.fontMetrics()
        self.browser.setMinimumWidth(
            metrics.horizontalAdvance(self.browser.placeholderText()) + metrics.height() * 2
        )
        browse = QPushButton(self.tr("Browse…"), self)
        browse.clicked.connect(self._on_browse_clicked)
        browser_row = QHBoxLayout()
        browser_row.addWidget(self.browser, 1)
        browser_row.addWidget(browse)
        self.show_browsers = QCheckBox(self.tr("Show the browser windows of web accounts"), self)
        self.show_browsers.setChecked(not current.browser.headless)
        self.show_browsers.setToolTip(
            self.tr("Off: the browsers work without windows (a PC left running overnight)")
        )
        self.web_timeout = self._seconds(current.lanes.web.task_timeout_s)
        self.api_timeout = self._seconds(current.lanes.api.task_timeout_s)
        self.language = QComboBox(self)
        self.language.addItem(self.tr("System default"), "auto")
        for code, name in LANGUAGES.items():
            self.language.addItem(name, code)
        self.language.setCurrentIndex(max(0, self.language.findData(current.ui.language)))
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c62828")
        self.error.hide()

        form = QFormLayout()
        form.addRow(self.tr("Browser for web models:"), browser_row)
        form.addRow("", self.show_browsers)
        form.addRow(self.tr("Web task timeout:"), self.web_timeout)
        form.addRow(self.tr("API task timeout:"), self.api_timeout)
        form.addRow(self.tr("Language:"), self.language)
        note = QLabel(
            self.tr("Saved to %1. Language and browser changes apply at the next start.").replace(
                "%1", str(config_file)
            ),
            self,
        )
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def _seconds(self, value: float) -> QDoubleSpinBox:
        box = QDoubleSpinBox(self)
        box.setRange(10, 3600)
        box.setDecimals(0)
        box.setSuffix(self.tr(" s"))
        box.setValue(value)
        return box

    def _on_browse_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Browser executable"))
        if path:
            self.browser.setText(path)

    def _save(self) -> None:
        spawn(self.save(), "settings:save")

    async def save(self) -> bool:
        """Write the choices into the file as it is now — re-read at this moment, so a hand
        edit made while the dialog was open is kept — validated, atomically, off the GUI
        thread (an fsync may take a while). True once saved (the dialog is accepted)."""
        choices = {
            "executable": self.browser.text().strip() or None,
            "headless": not self.show_browsers.isChecked(),
            "web": float(self.web_timeout.value()),
            "api": float(self.api_timeout.value()),
            "language": str(self.language.currentData()),
        }
        try:
            await asyncio.to_thread(_write_choices, self.config_file, choices)
        except (ConfigError, InputError) as exc:
            self.error.setText(str(exc))
            self.error.show()
            return False
        self.accept()
        return True


def _write_choices(config_file: Path, choices: dict[str, Any]) -> None:
    for _ in range(3):  # changed by someone else between the read and the write: read again
        based_on = read_config_text(config_file)
        doc = tomlkit.parse(based_on or "")
        browser = doc.setdefault("browser", tomlkit.table())
        if choices["executable"]:
            browser["executable"] = choices["executable"]
        elif "executable" in browser:
            del browser["executable"]
        if choices["headless"] != bool(browser.get("headless", False)):  # unchanged stays so
            browser["headless"] = choices["headless"]
        lanes = doc.setdefault("lanes", tomlkit.table())
        for lane in ("web", "api"):
            lanes.setdefault(lane, tomlkit.table())["task_timeout_s"] = choices[lane]
        doc.setdefault("ui", tomlkit.table())["language"] = choices["language"]
        text = tomlkit.dumps(doc)
        parse_config(tomlkit.parse(text).unwrap(), str(config_file))  # ConfigError: said
        try:
            replace_config(config_file, text, based_on=based_on)
            return
        except ConfigChanged:
            continue
    raise ConfigChanged(f"{config_file} keeps changing; nothing was saved, try again")
