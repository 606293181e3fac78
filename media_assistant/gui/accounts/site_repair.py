"""*Repair…* next to a "site changed" verdict (issue 33): the account's worker repairs the adapter
from its page and proves it (providers/web/repair.py, through the scheduler like *Check site*);
the dialog shows what it found and — only for a proven repair — the diff and *Install*, which
installs the file as any adapter install does (version + 1, rollback keeps the old one, held
accounts resume)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)


class SiteRepairDialog(QDialog):
    """One account's repair: "repairing…", then the proposal (or why there is none)."""

    def __init__(self, account_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.account_id = account_id
        self.result: Any = None
        self.setWindowTitle(self.tr("Repair site: %1").replace("%1", account_id))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.header = QLabel(
            self.tr(
                "Repairing %1 from its page: a few short prompts, after its current task and "
                "when its pacing allows…"
            ).replace("%1", account_id),
            self,
        )
        self.header.setWordWrap(True)
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setFont(QFont("monospace"))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.close)
        self.install_button = self.buttons.addButton(
            self.tr("Install"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.install_button.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.details, 1)
        layout.addWidget(self.buttons)
        self.resize(760, 480)

    def show_result(self, result: Any, on_install: Callable[[], object]) -> None:
        self.result = result
        if result is None:
            self.header.setText(
                self.tr("%1: its page cannot be repaired here.").replace("%1", self.account_id)
            )
            return
        lines = list(result.notes)
        if result.proven:
            self.header.setText(
                self.tr(
                    "Proven: a site check passed every step with the repaired adapter "
                    "(version %1). Install it?"
                ).replace("%1", result.version)
            )
            for p in result.proposed:
                lines.append(
                    f"{p.key}: {p.old} -> {p.new} (score {p.score:.2f}, margin {p.margin:.2f})"
                )
            lines += ["", result.diff(f"{result.site}.toml")]
            self.install_button.setEnabled(True)
            self.install_button.clicked.connect(on_install)
            self.install_button.clicked.connect(lambda: self.install_button.setEnabled(False))
        else:
            self.header.setText(self.tr("Nothing proven; nothing will be installed."))
            lines.append(result.why)
        if result.check is not None:
            lines += ["", *result.check.lines()]
        self.details.setPlainText("\n".join(lines))
