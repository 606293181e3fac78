"""The notification list: what happened while the operator looked elsewhere (a batch ended, an
account needs them, the disk is nearly full). A notice stays until it is read — clicked, or
*Mark all read* — and unread ones survive a restart (QSettings). The tab's title counts them.
Notices come from the core's NoticeCenter (core/notices/center.py) through :class:`NoticeHub`,
which also starts the webhooks (media_assistant/notices_runtime.py)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.model.states import NoticeKind
from media_assistant.core.notices.center import Notice
from media_assistant.gui.common import labels

SETTINGS_KEY = "notifications/unread"
KEEP_UNREAD = 200
KEY_ROLE = Qt.ItemDataRole.UserRole
SUBJECT_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2


class NoticeWords(QObject):
    """The window's words for a notice (through the catalogue, like every GUI string)."""

    def title(self, notice: Notice) -> str:
        s = notice.subject
        if notice.kind is NoticeKind.BATCH_DONE:
            return self.tr("Batch %1 finished").replace("%1", s)
        if notice.kind is NoticeKind.BATCH_FAILED:
            return self.tr("Batch %1 ended with failures").replace("%1", s)
        if notice.kind is NoticeKind.ACCOUNT_ATTENTION:
            if notice.params.get("code") == "site_changed":
                return self.tr("Account %1: the site's page changed").replace("%1", s)
            return self.tr("Account %1 needs you").replace("%1", s)
        return self.tr("Disk almost full")

    def text(self, notice: Notice) -> str:
        p = notice.params
        if notice.kind in (NoticeKind.BATCH_DONE, NoticeKind.BATCH_FAILED):
            return (
                self.tr(
                    "%n task(s): %1 succeeded, %2 failed, %3 canceled", "", int(p.get("total", 0))
                )
                .replace("%1", str(p.get("succeeded", 0)))
                .replace("%2", str(p.get("failed", 0)))
                .replace("%3", str(p.get("canceled", 0)))
            )
        if notice.kind is NoticeKind.ACCOUNT_ATTENTION:
            state = labels.account_state(str(p.get("state", "")))
            reason = str(p.get("reason", "") or "")
            return f"{state}: {reason}" if reason else state
        return (
            self.tr("%1 MB free on the disk of %2")
            .replace("%1", str(p.get("free_mb", 0)))
            .replace("%2", notice.subject)
        )


class NotificationList(QWidget):
    unread_changed = Signal(int)
    batch_requested = Signal(str)  # a batch notice was opened: show that batch

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.words = NoticeWords(self)
        self.list = QListWidget(self)
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.list.itemClicked.connect(self._on_list_item_clicked)
        self.list.itemActivated.connect(self._on_list_item_activated)
        self.empty = QLabel(
            self.tr("No notifications. Finished batches and accounts that need you show here."),
            self,
        )
        self.empty.setWordWrap(True)
        self.mark_all = QPushButton(self.tr("Mark all read"), self)
        self.mark_all.clicked.connect(self.mark_all_read)
        self.clear_read = QPushButton(self.tr("Clear read"), self)
        self.clear_read.clicked.connect(self._clear_read)
        for button in (self.mark_all, self.clear_read):
            button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        buttons = QHBoxLayout()
        buttons.addWidget(self.empty, 1)
        buttons.addStretch(0)
        buttons.addWidget(self.mark_all)
        buttons.addWidget(self.clear_read)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.list, 1)
        self._restore()
        self._changed()

    # ---------------------------------------------------------------- notices

    def add(self, notice: Notice, *, unread: bool = True) -> QListWidgetItem:
        when = dt.datetime.fromtimestamp(notice.at).strftime("%m-%d %H:%M")
        item = QListWidgetItem(f"{when}  {self.words.title(notice)}\n{self.words.text(notice)}")
        warning = notice.kind is not NoticeKind.BATCH_DONE
        icon = (
            QStyle.StandardPixmap.SP_MessageBoxWarning
            if warning
            else QStyle.StandardPixmap.SP_MessageBoxInformation
        )
        item.setIcon(self.style().standardIcon(icon))
        item.setData(KEY_ROLE, json.dumps(_to_json(notice), ensure_ascii=False))
        item.setData(SUBJECT_ROLE, notice.subject)
        item.setData(KIND_ROLE, notice.kind.value)
        self._set_unread(item, unread)
        self.list.insertItem(0, item)
        self._changed()
        return item

    def unread_count(self) -> int:
        return sum(1 for i in range(self.list.count()) if self._is_unread(self.list.item(i)))

    def mark_all_read(self) -> None:
        for i in range(self.list.count()):
            self._set_unread(self.list.item(i), False)
        self._changed()

    def _clear_read(self) -> None:
        for i in reversed(range(self.list.count())):
            if not self._is_unread(self.list.item(i)):
                self.list.takeItem(i)
        self._changed()

    def _on_list_item_clicked(self, item: QListWidgetItem) -> None:
        self._set_unread(item, False)
        self._changed()

    def _on_list_item_activated(self, item: QListWidgetItem) -> None:
        self._on_list_item_clicked(item)
        if str(item.data(KIND_ROLE)).startswith("batch_"):
            self.batch_requested.emit(str(item.data(SUBJECT_ROLE)))

    # ---------------------------------------------------------------- state

    def _is_unread(self, item: QListWidgetItem) -> bool:
        return item.font().bold()

    def _set_unread(self, item: QListWidgetItem, unread: bool) -> None:
        font = QFont(item.font())
        font.setBold(unread)
        item.setFont(font)

    def _changed(self) -> None:
        n = self.unread_count()
        self.empty.setVisible(self.list.count() == 0)
        self.mark_all.setEnabled(n > 0)
        self.clear_read.setEnabled(self.list.count() > n)
        self._save()
        self.unread_changed.emit(n)

    def _save(self) -> None:
        unread = [
            str(self.list.item(i).data(KEY_ROLE))
            for i in range(self.list.count())
            if self._is_unread(self.list.item(i))
        ]
        QSettings().setValue(SETTINGS_KEY, json.dumps(unread[:KEEP_UNREAD]))

    def _restore(self) -> None:
        try:
            saved = json.loads(str(QSettings().value(SETTINGS_KEY, "[]")))
            notices = [_from_json(json.loads(s)) for s in saved]
        except (ValueError, KeyError, TypeError):
            return
        for notice in reversed(notices):
            self.add(notice)


def _to_json(notice: Notice) -> dict[str, object]:
    return {
        "kind": notice.kind.value,
        "subject": notice.subject,
        "at": notice.at,
        "params": dict(notice.params),
    }


def _from_json(data: Mapping[str, object]) -> Notice:
    params = data.get("params") or {}
    assert isinstance(params, dict)
    at = data["at"]
    assert isinstance(at, int | float)
    return Notice(NoticeKind(str(data["kind"])), str(data["subject"]), float(at), params)
