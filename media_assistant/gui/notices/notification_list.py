"""The notification list: what happened while the operator looked elsewhere (a batch ended, an
account needs them, the disk is nearly full). A notice stays unread until it is opened — a
click, or *Mark all read* — and the list with its read marks survives a restart in the data
folder it belongs to (the window keeps it: :meth:`NotificationList.saved` and
:meth:`NotificationList.restore`, core/files/local_state.py), never in the user-wide settings
another data folder would see. The tab's title counts the unread ones. Notices come from the
core's NoticeCenter (core/notices/center.py) through media_assistant/notices_runtime.py, which
also starts the webhooks."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping

from PySide6.QtCore import QObject, Qt, Signal
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

KEEP = 200  # notices kept across restarts (the newest; unread ones first)
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
        if notice.kind in (NoticeKind.ALARM, NoticeKind.ALARM_CLEARED):
            return self.alarm_title(notice)
        if notice.kind is NoticeKind.POISON_PILL:
            return self.tr("Task %1 failed the same way every time").replace("%1", s)
        return self.tr("Disk almost full")

    def alarm_title(self, notice: Notice) -> str:
        kind, s = str(notice.params.get("alarm", "")), notice.subject
        lane = {"web": self.tr("web"), "api": self.tr("API")}.get(s, s)
        titles = {
            "timeout_rate": self.tr("Too many timeouts on the %1 lane"),
            "failure_rate": self.tr("Too many failures and deferrals on the %1 lane"),
            "quota_use": self.tr("API account %1 is near its quota"),
            "backlog_growing": self.tr("The %1 lane's backlog keeps growing"),
            "p90_total": self.tr("Tasks take too long on the %1 lane"),
        }
        title = titles.get(kind, self.tr("Alarm: %1")).replace(
            "%1", s if kind == "quota_use" else lane
        )
        if notice.kind is NoticeKind.ALARM_CLEARED:
            return self.tr("Cleared: %1").replace("%1", title)
        return title

    def alarm_text(self, notice: Notice) -> str:
        p = notice.params
        if notice.kind is NoticeKind.ALARM_CLEARED:
            return self.tr("Back in bounds")
        value, threshold = float(str(p.get("value", 0))), float(str(p.get("threshold", 0)))
        minutes = f"{float(str(p.get('minutes', 0))):g}"
        kind = str(p.get("alarm", ""))
        if kind == "backlog_growing":
            text = self.tr("From %1 to %2 tasks in %3 min while an account of the lane sat idle")
            return (
                text.replace("%1", f"{threshold:g}")
                .replace("%2", f"{value:g}")
                .replace("%3", minutes)
            )
        if kind == "p90_total":
            text = self.tr("p90 end to end %1 s in the last %3 min (bound %2 s)")
            return (
                text.replace("%1", f"{value:.0f}")
                .replace("%2", f"{threshold:.0f}")
                .replace("%3", minutes)
            )
        texts = {
            "timeout_rate": self.tr(
                "Timeouts: %1 of the attempts in the last %3 min (threshold %2)"
            ),
            "failure_rate": self.tr(
                "Failures and deferrals: %1 of the attempts in the last %3 min (threshold %2)"
            ),
            "quota_use": self.tr("At least %1 of its per-minute limit for %3 min (threshold %2)"),
        }
        text = texts.get(kind, self.tr("%1 (threshold %2)"))
        return (
            text.replace("%1", f"{value * 100:.0f}%")
            .replace("%2", f"{threshold * 100:.0f}%")
            .replace("%3", minutes)
        )

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
            # Why, in words (the title already says it needs the operator); the site's own
            # detail is on the account's row, in its tooltip.
            return labels.problem_words(str(p.get("code") or ""), str(p.get("state", "")))
        if notice.kind in (NoticeKind.ALARM, NoticeKind.ALARM_CLEARED):
            return self.alarm_text(notice)
        if notice.kind is NoticeKind.POISON_PILL:
            return (
                self.tr(
                    "%1 on %n account(s); not retried again: check its prompt or the site",
                    "",
                    int(p.get("accounts", 0)),
                )
            ).replace("%1", labels.error_kind(str(p.get("error_kind", ""))))
        return (
            self.tr("%1 MB free on the disk of %2")
            .replace("%1", str(p.get("free_mb", 0)))
            .replace("%2", notice.subject)
        )


class NotificationList(QWidget):
    unread_changed = Signal(int)
    batch_requested = Signal(str)  # a batch notice was opened: show that batch
    account_requested = Signal(str)  # an account notice was opened: show that account
    changed = Signal()  # a notice came, was read or cleared: the window saves :meth:`saved`

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.words = NoticeWords(self)
        self.list = QListWidget(self)
        # One line per notice (its whole text in the tooltip): on a laptop the tab shows a few
        # of them, not one and a half.
        self.list.setWordWrap(False)
        self.list.setUniformItemSizes(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setAlternatingRowColors(True)
        # One click opens a notice (and so reads it); Enter too. A double click opens it twice,
        # which shows the same batch again.
        self.list.itemClicked.connect(self.open)
        self.list.itemActivated.connect(self.open)
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
        self._changed()

    # ---------------------------------------------------------------- notices

    def add(self, notice: Notice, *, unread: bool = True) -> QListWidgetItem:
        when = dt.datetime.fromtimestamp(notice.at).strftime("%m-%d %H:%M")
        title, text = self.words.title(notice), self.words.text(notice)
        item = QListWidgetItem(f"{when}  {title} — {text}")
        item.setToolTip(f"{title}\n{text}")
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

    def open(self, item: QListWidgetItem) -> None:
        """Read it and show what it is about: its batch in the table, its account."""
        if self._is_unread(item):
            self._set_unread(item, False)
            self._changed()
        kind, subject = str(item.data(KIND_ROLE)), str(item.data(SUBJECT_ROLE))
        if kind.startswith("batch_"):
            self.batch_requested.emit(subject)
        elif kind == NoticeKind.ACCOUNT_ATTENTION.value:
            self.account_requested.emit(subject)

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
        self.unread_changed.emit(n)
        self.changed.emit()

    # ---------------------------------------------------------------- kept across restarts

    def saved(self) -> list[dict[str, object]]:
        """The list as the data folder keeps it, newest first: at most :data:`KEEP` notices,
        unread ones before read ones when there are more."""
        items = [self.list.item(i) for i in range(self.list.count())]
        unread = [i for i in items if self._is_unread(i)]
        kept = set(map(id, (unread + [i for i in items if not self._is_unread(i)])[:KEEP]))
        return [
            {**json.loads(str(i.data(KEY_ROLE))), "read": not self._is_unread(i)}
            for i in items
            if id(i) in kept
        ]

    def restore(self, saved: object) -> None:
        """The notices :meth:`saved` gave, as they were (a damaged entry is left out)."""
        if not isinstance(saved, list):
            return
        for data in reversed(saved):
            try:
                notice = _from_json(data)
            except (ValueError, KeyError, TypeError, AssertionError):
                continue
            self.add(notice, unread=not (isinstance(data, dict) and data.get("read")))


def _to_json(notice: Notice) -> dict[str, object]:
    return {
        "kind": notice.kind.value,
        "subject": notice.subject,
        "at": notice.at,
        "params": dict(notice.params),
    }


def _from_json(data: object) -> Notice:
    assert isinstance(data, Mapping)
    params = data.get("params") or {}
    assert isinstance(params, dict)
    at = data["at"]
    assert isinstance(at, int | float)
    return Notice(NoticeKind(str(data["kind"])), str(data["subject"]), float(at), params)
