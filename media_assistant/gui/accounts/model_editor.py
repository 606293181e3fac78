"""One model's options: send only the user's text (reasoning models), the provider's own model
name, a default system prompt. Models come into being with the accounts that serve them
(:mod:`account_editor`); here they are tuned. Checked and saved like every set-up change."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.config.edit import ConfigDocument
from media_assistant.core.model.errors import ConfigError, InputError
from media_assistant.gui.accounts.config_text import problem_text, save_error_text
from media_assistant.gui.accounts.setup_session import SetupSession
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.common import labels
from media_assistant.gui.common.form_problems import FormProblems, ProblemLabel
from media_assistant.gui.common.style import latin_width


class ModelEditor(QDialog):
    saved = Signal(str)

    def __init__(self, session: SetupSession, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.name = name
        index = session.doc.model_index(name)
        current: dict[str, Any] = session.doc.models()[index] if index is not None else {}
        self.setWindowTitle(self.tr("Model %1").replace("%1", name))
        self.problems = FormProblems(ProblemLabel(self))
        form = QFormLayout()
        kind = str(current.get("kind", ""))
        form.addRow(self.tr("Kind:"), QLabel(labels.lane(kind), self))
        served = ", ".join(session.accounts_serving(name)) or "—"
        form.addRow(self.tr("Served by:"), QLabel(served, self))
        self.user_only = QCheckBox(self.tr("Send only the user's text (reasoning models)"), self)
        self.user_only.setChecked(bool(current.get("need_empty_prompt", False)))
        self.user_only.setToolTip(
            self.tr("No system prompt or preset text is sent: reasoning models answer better")
        )
        form.addRow("", self.problems.field("need_empty_prompt", self.user_only))
        self.upstream = QLineEdit(str(current.get("upstream") or ""), self)
        self.upstream.setPlaceholderText(self.tr("the same as the name"))
        self.upstream.setToolTip(
            self.tr("The model's name at the provider, when it differs from the name used here")
        )
        form.addRow(
            self.tr("Name at the provider:"), self.problems.field("upstream", self.upstream)
        )
        self.system = QPlainTextEdit(str(current.get("system_prompt") or ""), self)
        self.system.setPlaceholderText(self.tr("none"))
        self.system.setMaximumHeight(self.fontMetrics().height() * 6)
        form.addRow(
            self.tr("Default system prompt:"), self.problems.field("system_prompt", self.system)
        )
        save = QPushButton(self.tr("Save"), self)
        save.setDefault(True)
        save.clicked.connect(self._on_save_clicked)
        cancel = QPushButton(self.tr("Cancel"), self)
        cancel.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(save)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problems.general)
        layout.addLayout(buttons)
        self.setMinimumWidth(latin_width(self.fontMetrics(), 60))

    def values(self) -> dict[str, Any]:
        return {
            "need_empty_prompt": True if self.user_only.isChecked() else None,
            "upstream": self.upstream.text().strip() or None,
            "system_prompt": self.system.toPlainText().strip() or None,
        }

    def draft(self) -> tuple[ConfigDocument, int]:
        doc = self.session.draft()
        return doc, doc.put_model(self.values(), replacing=self.name)

    def _on_save_clicked(self) -> None:
        try:
            doc, index = self.draft()
        except ConfigError as exc:  # the file was broken by hand meanwhile
            self.problems.show([(None, str(exc))])
            return
        config, problems = self.session.check(doc)
        shown: list[tuple[str | None, str]] = []
        for p in problems:
            mine = p.path[:2] == ("models", index)
            key = str(p.path[2]) if mine and len(p.path) > 2 else None
            words = problem_text(p)
            shown.append((key, words if mine else f"{p.where(doc.data())}: {words}"))
        self.problems.show(shown)
        if config is not None:
            spawn(self._commit(doc), f"setup:model:{self.name}")

    async def _commit(self, doc: ConfigDocument) -> None:
        try:
            await self.session.commit(doc)
        except (ConfigError, InputError) as exc:
            self.problems.show([(None, save_error_text(exc))])
            return
        self.saved.emit(self.name)
        self.accept()
