"""The accounts panel's view of the team (team mode): the web accounts other workstations hold,
read-only.

A web account belongs to the workstation whose browser profile holds it (its sign-in lives
there), so only that workstation runs it. The panel lists them under *On other workstations*:
the account, "on pc-03 · online" (or offline, last seen when), and its state — with no toggle
and no *Log in*: nothing here can act on another PC's browser. An account this workstation's
own config declares but another one holds stays in the main table, locked the same way and
saying who holds it.

The accounts' states come from the database follower (``AccountChanged``); whether their
workstation is online, from the team watch's look every 10 s (gui/bridge/team_watch.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.config.schema import AccountConfig
from media_assistant.core.model.accounts import AccountStatus
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.common import labels
from media_assistant.gui.common.style import ACCOUNT_COLORS, format_duration

GREY = "#8a8f98"
COL_STATE, COL_ACTION = 1, 3  # the accounts panel's columns (panel.py)


class PanelRows(Protocol):
    """What the accounts panel (panel.py) lends: its table, toggles and running counts."""

    table: QTableWidget
    _toggles: dict[str, QCheckBox]
    running_on: Callable[[str], int]


class TeamAccounts(QWidget):
    def __init__(self, controller: AppController, panel: PanelRows, parent: QWidget) -> None:
        super().__init__(parent)
        self.controller = controller
        self.panel = panel
        self.title = QLabel(self.tr("On other workstations"), self)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.table = QTableWidget(0, 2, self)
        self.table.setHorizontalHeaderLabels([self.tr("Account"), self.tr("Where")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(2 * self.fontMetrics().lineSpacing() + 10)
        # As tall as it needs (see refresh), no taller: the main table takes the room.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.table)
        self.shown: list[str] = []  # the account ids in the table, in order
        self.held: dict[str, str] = {}  # our config's accounts another workstation holds
        self.hide()
        # Bound methods, not lambdas: Qt drops them with this widget (the controller lives on).
        controller.bridge.account_changed.connect(self._on_account_changed)
        controller.team.changed.connect(self.refresh)
        self._tick = QTimer(self)  # "last seen" ages, a task started or ended
        self._tick.setInterval(2000)
        self._tick.timeout.connect(self.refresh)
        self._tick.start()

    def _on_account_changed(self, _account_id: str) -> None:
        self.refresh()

    @property
    def me(self) -> str:
        return self.controller.services.workstation

    def others(self) -> list[AccountStatus]:
        """Web accounts other workstations hold, that this workstation's config does not
        declare (those stay in the main table)."""
        mine = {a.id for a in self.controller.accounts}
        return sorted(
            (
                s
                for s in self.controller.statuses.values()
                if s.belongs_elsewhere(self.me) and s.account_id not in mine
            ),
            key=lambda s: (s.workstation or "", s.account_id),
        )

    def refresh(self) -> None:
        others = self.others()
        ids = [s.account_id for s in others]
        if ids != self.shown:
            self.shown = ids
            self.table.setRowCount(len(ids))
            for row in range(len(ids)):
                for column in (0, 1):
                    self.table.setItem(row, column, QTableWidgetItem())
        now = self.controller.now()
        for row, status in enumerate(others):
            self._show(row, status, now)
        self.setVisible(bool(others))
        if others:
            # As tall as its rows, at most five; the main table keeps the room.
            height = self.table.horizontalHeader().height() + 4
            height += sum(self.table.rowHeight(r) for r in range(min(len(others), 5)))
            self.table.setFixedHeight(height)

    def _show(self, row: int, status: AccountStatus, now: float) -> None:
        name, where = self.table.item(row, 0), self.table.item(row, 1)
        assert name is not None and where is not None
        name_text = f"{status.account_id}\n{labels.lane(ModelKind.WEB.value)}"
        if name.text() != name_text:
            name.setText(name_text)
        state = status.state(now)
        running = self.panel.running_on(status.account_id)
        online = self._online(status.workstation or "")
        if online is False:  # its row may still say "working": nobody runs it now
            line = self.tr("not working: its workstation is off")
        else:
            line = labels.account_state(state)
            if running:
                line += " · " + self.tr("running a task")
        text = f"{self.where_text(status.workstation or '')}\n{line}"
        tip = self.tr(
            "This web account belongs to %1: its browser profile and sign-in are there, so only "
            "%1 runs it. Shown here read-only."
        ).replace("%1", status.workstation or "")
        reason = labels.account_reason(status, now)
        if reason:
            tip += "\n" + reason
        if where.text() != text or where.toolTip() != tip:
            where.setText(text)
            where.setToolTip(tip)
            colour = ACCOUNT_COLORS.get(state.value, "#333") if online is not False else GREY
            where.setForeground(QBrush(QColor(colour)))

    def _online(self, workstation: str) -> bool | None:
        info = self.controller.team.info(workstation)
        return None if info is None else info.online

    def where_text(self, workstation: str) -> str:
        """ "on pc-03 · online", "on pc-03 · offline, last seen 5m00s ago", or "on pc-03" before
        the first look at the team."""
        info = self.controller.team.info(workstation)
        where = self.tr("on %1").replace("%1", workstation)
        if info is None:
            return where
        if info.online:
            return self.tr("%1 · online").replace("%1", where)
        if info.last_seen_s is None:
            return self.tr("%1 · offline").replace("%1", where)
        return (
            self.tr("%1 · offline, last seen %2 ago")
            .replace("%1", where)
            .replace("%2", format_duration(info.last_seen_s))
        )

    # ---------------------------------------------------------------- the main table's rows

    def held_elsewhere(
        self, account: AccountConfig, status: AccountStatus | None, row: int
    ) -> bool:
        """A web account our config declares that another workstation holds: its row in the
        main table says who, and its toggle and *Log in* are off. False for our own (whose
        controls are given back if the account came back to us)."""
        panel = self.panel
        toggle, action = panel._toggles.get(account.id), panel.table.cellWidget(row, COL_ACTION)
        if status is None or not status.belongs_elsewhere(self.me):
            if self.held.pop(account.id, None) is not None:  # it came back to us
                if toggle is not None:
                    toggle.setEnabled(True)
                if action is not None:
                    action.setEnabled(account.site != "fake")
            return False
        owner = status.workstation or ""
        self.held[account.id] = owner
        for widget in (toggle, action):
            if widget is not None:
                widget.setEnabled(False)
        item = panel.table.item(row, COL_STATE)
        assert item is not None
        text = self.where_text(owner) + "\n" + self.tr("held there, not run on this workstation")
        if item.text() != text:
            item.setText(text)
            item.setToolTip(
                self.tr(
                    "%1 holds this web account (its browser profile and sign-in are there), so "
                    "this workstation leaves it alone."
                ).replace("%1", owner)
            )
            item.setForeground(QBrush(QColor(GREY)))
        return True

    def is_held_elsewhere(self, account_id: str) -> bool:
        return account_id in self.held
