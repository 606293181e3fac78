"""The main window on a team database (team mode, issue 19 items 4 and 5): the banner while the
database does not answer, "Team: 4 workstations online" in the status bar (who, in its tooltip),
the task table's Workstation column, and what an action that met an unreachable database did
not do — said in the status bar, never as a traceback.

On a single PC's own file none of it shows (the banner stays hidden: a SQLite file never stops
answering), so nothing changes for a single workstation."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout

from media_assistant.gui.bridge import jobs
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.common.style import format_duration
from media_assistant.gui.tasks.view import TaskTable
from media_assistant.gui.window.store_banner import StoreBanner


class TeamView(QObject):
    def __init__(
        self,
        window: QMainWindow,
        controller: AppController,
        table: TaskTable,
        layout: QVBoxLayout,
    ) -> None:
        super().__init__(window)
        self.main = window
        self.controller = controller
        self.watch = controller.team
        # Over the window's content, hidden until the database stops answering: it never
        # moves the layout under the operator's pointer (store_banner.py).
        self.banner = StoreBanner(controller.services.bus, controller.now, layout.parentWidget())
        self.status = QLabel(window)
        self.status.hide()
        if not self.watch.team:
            return
        window.statusBar().addPermanentWidget(self.status)
        table.show_workstation_column(True)
        self.watch.changed.connect(self.show_team)
        self.banner.changed.connect(lambda _up: self.show_team())
        jobs.unreachable_handlers.append(self.action_failed)
        window.destroyed.connect(lambda *_: self._forget())
        self.watch.start()

    def _forget(self) -> None:
        if self.action_failed in jobs.unreachable_handlers:
            jobs.unreachable_handlers.remove(self.action_failed)

    def show_team(self) -> None:
        workstations = self.watch.workstations
        if self.banner.state is not None:  # what it saw last is no longer known to be so
            self.status.setText(self.tr("Team: unknown while the database is unreachable"))
            self.status.setToolTip("")
            self.status.show()
            return
        online = self.watch.online()
        self.status.setText(self.tr("Team: %n workstation(s) online", "", online))
        me = self.watch.me
        lines = []
        for w in workstations:
            name = w.workstation
            if name == me:
                name = self.tr("%1 (this one)").replace("%1", name)
            if w.online:
                line = self.tr("%1: online, %n task(s) running", "", w.running).replace("%1", name)
            elif w.last_seen_s is not None:
                line = (
                    self.tr("%1: offline, last seen %2 ago")
                    .replace("%1", name)
                    .replace("%2", format_duration(w.last_seen_s))
                )
            else:
                line = self.tr("%1: offline").replace("%1", name)
            if w.web_accounts:
                line += " · " + ", ".join(w.web_accounts)
            lines.append(line)
        self.status.setToolTip("\n".join(lines))
        self.status.show()

    def action_failed(self, _name: str, exc: BaseException) -> None:
        """An action of the operator's met an unreachable team database: nothing was changed.
        The banner shows at once (the scheduler's link probes until it answers)."""
        if not shiboken6.isValid(self.main):  # a window already gone (tests open many)
            self._forget()
            return
        self.controller.scheduler.link.absorb(exc)
        self.main.statusBar().showMessage(
            self.tr(
                "The team database cannot be reached: that was not done. Try again once it answers."
            ),
            15000,
        )
