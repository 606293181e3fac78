"""Every account: its state and why, a countdown while it cools down, its pacing (web: "next
task in 1:42 · 3 of 4 in 30 min"), an enable toggle, "Log in" for web accounts, concurrency
1..5 for API accounts; a context menu with *Pause* / *Resume* (its running task finishes),
*Show browser* while a verification page holds it (gui/accounts/show_browser.py),
*Reset* (clear the account's problem and start it afresh: the scheduler rebuilds its provider)
and the set-up window. The words for states and
cool-down reasons are the GUI's (labels.py); a problem's detail is the site's or API's own
text, shown as it is. The rows follow the configuration (``rebuild`` after a set-up change)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from media_assistant.core.config.proxy import proxy_sharing
from media_assistant.core.config.schema import AccountConfig
from media_assistant.core.model.accounts import MAX_CONCURRENCY, MIN_CONCURRENCY, AccountStatus
from media_assistant.core.model.states import AccountState, ModelKind
from media_assistant.core.rules.pacing import Hold, PacingView
from media_assistant.gui.accounts.team_accounts import TeamAccounts
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.bridge.queue_holds import QueueHolds
from media_assistant.gui.common import labels
from media_assistant.gui.common.pacing_labels import pacing_text, pause_notice
from media_assistant.gui.common.style import ACCOUNT_COLORS, AMBER, LANE_COLORS

COL_NAME, COL_STATE, COL_ENABLED, COL_ACTION = range(4)


class AccountsPanel(QWidget):
    login_requested = Signal(str)
    setup_requested = Signal()  # the set-up window (accounts and models)
    # (title, text): the risk guard paused an account for hours; the window tells the operator.
    attention_needed = Signal(str, str)
    pause_toggled = Signal(str, bool)  # account id, pause (True) or resume (False)
    message = Signal(str)  # what an action did, for the status bar
    check_requested = Signal(str)  # Check site: one prompt through the account's page
    repair_requested = Signal(str)  # Repair…: the adapter repaired from the page, proven
    install_requested = Signal()  # Install adapter file…

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(
            [self.tr("Account"), self.tr("State"), self.tr("On"), ""]
        )
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        # Every row two lines high, whatever it says: a countdown that wraps at one second and
        # not the next made rows grow and shrink every second (issue 20). What does not fit
        # is cut with "…" and is in the tooltip.
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(2 * self.fontMetrics().lineSpacing() + 10)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(COL_NAME, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COL_STATE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(COL_ENABLED, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COL_ACTION, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._on_table_context_menu)
        self.empty_hint = QLabel(
            self.tr("No accounts yet: press “Accounts…” in the toolbar to add one."), self
        )
        self.empty_hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addWidget(self.empty_hint)
        self.proxies_note = QLabel(self)  # accounts that share a proxy (issue 32)
        self.proxies_note.setWordWrap(True)
        layout.addWidget(self.proxies_note)
        self.team = TeamAccounts(controller, self, self)  # other workstations' web accounts
        layout.addWidget(self.team)
        self.menu: QMenu | None = None
        self._rows: dict[str, int] = {}
        self._toggles: dict[str, QCheckBox] = {}
        self._spins: dict[str, QSpinBox] = {}
        self._logins: dict[str, QPushButton] = {}
        self._holds: dict[str, Hold] = {}
        self._accounts: list[AccountConfig] = []
        # Set by the window: how many tasks run on an account (the task model's lane indexes),
        # and the queue's pauses.
        self.running_on: Callable[[str], int] = lambda _account_id: 0
        self.queue_holds = QueueHolds()
        self._build()
        controller.bridge.account_changed.connect(self._on_bridge_account_changed)
        controller.sign_in_changed.connect(self._on_controller_sign_in_changed)
        self._tick = QTimer(self)  # countdowns
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self.refresh)
        self._tick.start()

    def rebuild(self) -> None:
        """The configuration changed (set-up): rows for the accounts it has now."""
        self.table.setRowCount(0)
        self._rows.clear()
        self._toggles.clear()
        self._spins.clear()
        self._logins.clear()
        self._build()

    def _build(self) -> None:
        accounts = self._accounts = list(self.controller.accounts)  # the rows shown
        self.empty_hint.setVisible(not accounts)
        self._show_proxy_sharing(accounts)
        self.table.setRowCount(len(accounts))
        for row, account in enumerate(accounts):
            self._rows[account.id] = row
            lane = account.kind.value
            name = QTableWidgetItem(
                f"{account.id}\n{labels.lane(lane)} · {', '.join(account.models)}"
            )
            name.setToolTip(", ".join(account.models))
            name.setData(Qt.ItemDataRole.UserRole, account.id)
            name.setForeground(_brush(LANE_COLORS.get(lane, "#333")))
            self.table.setItem(row, COL_NAME, name)
            self.table.setItem(row, COL_STATE, QTableWidgetItem())
            toggle = QCheckBox(self.table)
            toggle.setToolTip(self.tr("Give this account work"))
            toggle.toggled.connect(lambda on, a=account.id: self._on_toggle_toggled(a, on))
            self._toggles[account.id] = toggle
            self.table.setCellWidget(row, COL_ENABLED, _centered(toggle))
            if account.kind is ModelKind.WEB:
                login = QPushButton(self.tr("Log in"), self.table)
                login.setToolTip(self.tr("Open this account's browser profile to sign in"))
                login.clicked.connect(lambda _=False, a=account.id: self.login_requested.emit(a))
                login.setEnabled(account.site != "fake")
                self._logins[account.id] = login
                self.table.setCellWidget(row, COL_ACTION, login)
            else:
                spin = QSpinBox(self.table)
                spin.setRange(MIN_CONCURRENCY, MAX_CONCURRENCY)
                spin.setPrefix(self.tr("×"))
                spin.setToolTip(self.tr("Requests in flight (1..5)"))
                spin.valueChanged.connect(lambda n, a=account.id: self._on_spin_changed(a, n))
                self._spins[account.id] = spin
                self.table.setCellWidget(row, COL_ACTION, spin)
        self.refresh()

    def _show_proxy_sharing(self, accounts: list[AccountConfig]) -> None:
        """Which accounts leave through one proxy; a warning when web accounts of one site
        do (a site that bans the address bans them together)."""
        network = self.controller.services.config.network
        lines = []
        for share in proxy_sharing(network, list(accounts)):
            lines.append(
                self.tr("Through one proxy (%1): %2")
                .replace("%1", share.proxy)
                .replace("%2", ", ".join(share.accounts))
            )
            for site, ids in share.risky:
                lines.append(
                    "⚠ "
                    + self.tr(
                        "%1 are web accounts of %2 behind one proxy: the site may ban them "
                        "together, whatever their pacing; give each its own proxy"
                    )
                    .replace("%1", ", ".join(ids))
                    .replace("%2", site)
                )
        self.proxies_note.setText("\n".join(lines))
        self.proxies_note.setVisible(bool(lines))
        risky = any(share.risky for share in proxy_sharing(network, list(accounts)))
        self.proxies_note.setStyleSheet(f"color: {AMBER};" if risky else "")

    def refresh(self) -> None:
        now = self.controller.now()
        for account in self._accounts:
            row = self._rows[account.id]
            status = self.controller.account_status(account.id)
            if self.team.held_elsewhere(account, status, row):  # another workstation's
                continue
            state = status.state(now) if status else AccountState.DISABLED
            item = self.table.item(row, COL_STATE)
            assert item is not None
            paused = self.queue_holds.paused("account", account.id)
            signing_in = self.controller.signing_in(account.id)
            login = self._logins.get(account.id)
            if login is not None:
                login.setEnabled(account.site != "fake" and not signing_in)
            paced = self.controller.pacing(account.id) if account.kind is ModelKind.WEB else None
            if paced is not None:
                self._notice_pause(account.id, paced, now)
            word, detail, more = self._state_lines(account.id, status, state, paused, paced, now)
            if signing_in:  # the operator's own action: said, never an alert
                word, detail, more = (
                    labels.signing_in(),
                    word,
                    "\n".join(p for p in (detail, more) if p),
                )
            text = f"{word}\n{detail}" if detail else word
            tip = "\n".join(p for p in (word, detail, more) if p)
            if item.text() != text or item.toolTip() != tip:
                item.setText(text)
                item.setToolTip(tip)
                colour = AMBER if paused else ACCOUNT_COLORS.get(state.value, "#333")
                item.setForeground(_brush(colour))
            toggle = self._toggles[account.id]
            enabled = bool(status and status.enabled)
            if toggle.isChecked() != enabled:
                toggle.blockSignals(True)
                toggle.setChecked(enabled)
                toggle.blockSignals(False)
            spin = self._spins.get(account.id)
            if spin is not None:
                wanted = (status.concurrency if status else None) or account.concurrency
                if spin.value() != wanted and not spin.hasFocus():
                    spin.blockSignals(True)
                    spin.setValue(wanted)
                    spin.blockSignals(False)

    def _state_lines(
        self,
        account_id: str,
        status: AccountStatus | None,
        state: AccountState,
        paused: bool,
        paced: PacingView | None,
        now: float,
    ) -> tuple[str, str, str]:
        """One state per account, never two that contradict each other ("Paused" over
        "Working"): the state in a word, one line of why or what next, and the rest for the
        tooltip (the site's own detail, the pacing of a paused account)."""
        reason = labels.account_reason(status, now)
        pacing = (pacing_text(paced, now) or self.tr("pacing: ready")) if paced else ""
        if paused or state is AccountState.DISABLED:
            # Switching off or pausing never interrupts: say what the account still does.
            word = self.tr("Paused") if paused else labels.account_state(state)
            detail = self.tr("finishing the current task") if self.running_on(account_id) else ""
            return word, detail, "\n".join(p for p in (reason, pacing) if p)
        more = _detail(status, state)
        if reason:
            return labels.account_state(state), reason, "\n".join(p for p in (more, pacing) if p)
        return labels.account_state(state), pacing, more

    def show_account(self, account_id: str) -> bool:
        """Bring the account's row into view with the focus on it (a notice about it was
        opened); False when it is not set up here."""
        row = self._rows.get(account_id)
        item = self.table.item(row, COL_NAME) if row is not None else None
        if item is None:
            return False
        self.table.scrollToItem(item)
        self.table.setCurrentItem(item)
        self.table.setFocus()
        return True

    def _notice_pause(self, account_id: str, paced: PacingView, now: float) -> None:
        before, self._holds[account_id] = self._holds.get(account_id), paced.hold
        if paced.hold is Hold.PAUSED and before not in (None, Hold.PAUSED):
            self.attention_needed.emit(
                self.tr("Account %1 paused").replace("%1", account_id), pause_notice(paced, now)
            )

    def _on_bridge_account_changed(self, _account_id: str) -> None:
        self.refresh()

    def _on_controller_sign_in_changed(self, _account_id: str) -> None:
        self.refresh()

    def _on_table_context_menu(self, pos: QPoint) -> None:
        item = self.table.itemAt(pos)
        account_id = None
        if item is not None:
            name = self.table.item(item.row(), COL_NAME)
            account_id = name.data(Qt.ItemDataRole.UserRole) if name is not None else None
        if account_id and self.team.is_held_elsewhere(account_id):
            account_id = None  # another workstation's to pause, reset or sign in
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if account_id:
            paused = self.queue_holds.paused("account", account_id)
            pause = menu.addAction(
                self.tr("Resume %1").replace("%1", account_id)
                if paused
                else self.tr("Pause %1 (its current task finishes)").replace("%1", account_id)
            )
            pause.triggered.connect(
                lambda _=False, a=account_id, p=paused: self.pause_toggled.emit(a, not p)
            )
            reset = menu.addAction(self.tr("Reset %1").replace("%1", account_id))
            reset.setToolTip(
                self.tr(
                    "Clear its problem and cool-down and start it afresh (a new key or "
                    "a fixed adapter is picked up)"
                )
            )
            reset.triggered.connect(lambda _=False, a=account_id: self.reset(a))
            account = next((a for a in self._accounts if a.id == account_id), None)
            if account is not None and account.kind is ModelKind.WEB and account.site != "fake":
                login = menu.addAction(self.tr("Log in"))
                login.triggered.connect(lambda _=False, a=account_id: self.login_requested.emit(a))
                check = menu.addAction(self.tr("Check site"))
                check.setToolTip(
                    self.tr(
                        "One short prompt through its chat page, every step reported (after "
                        "its current task, when its pacing allows)"
                    )
                )
                check.triggered.connect(lambda _=False, a=account_id: self.check_requested.emit(a))
                status = self.controller.account_status(account_id)
                if status is not None and status.problem_code == "captcha":
                    show = menu.addAction(self.tr("Show browser"))
                    show.setToolTip(
                        self.tr(
                            "Bring its browser to the front (reopened in a window if it runs "
                            "without one) to pass the verification page; it resumes by itself"
                        )
                    )
                    show.triggered.connect(lambda _=False, a=account_id: self.show_browser(a))
                if status is not None and status.problem_code == "site_changed":
                    repair = menu.addAction(self.tr("Repair…"))
                    repair.setToolTip(
                        self.tr(
                            "Find the changed element on its page from what worked before, "
                            "prove it with a site check, then offer to install it"
                        )
                    )
                    repair.triggered.connect(
                        lambda _=False, a=account_id: self.repair_requested.emit(a)
                    )
            menu.addSeparator()
            install = menu.addAction(self.tr("Install adapter file…"))
            install.triggered.connect(self.install_requested)
        setup = menu.addAction(self.tr("Accounts and models…"))
        setup.triggered.connect(self.setup_requested)
        self.menu = menu
        menu.popup(self.table.viewport().mapToGlobal(pos))

    def show_browser(self, account_id: str) -> None:
        """*Show browser*: its window in front for a person to pass a verification page."""
        spawn(self._show_browser(account_id), f"show-browser:{account_id}")

    async def _show_browser(self, account_id: str) -> None:
        from media_assistant.gui.accounts.show_browser import show_browser

        self.message.emit(await show_browser(self.controller, account_id))

    def reset(self, account_id: str) -> None:
        """Clear the account's problem; the scheduler builds its provider anew."""
        spawn(self._reset(account_id), f"reset:{account_id}")

    async def _reset(self, account_id: str) -> None:
        await self.controller.reset_account(account_id)
        self.message.emit(
            self.tr(
                "%1 reset: its problem and cool-down are cleared; it starts afresh with its "
                "next task"
            ).replace("%1", account_id)
        )

    def _on_toggle_toggled(self, account_id: str, on: bool) -> None:
        spawn(self.controller.set_account_enabled(account_id, on), f"toggle:{account_id}")

    def _on_spin_changed(self, account_id: str, value: int) -> None:
        spawn(self.controller.set_concurrency(account_id, value), f"concurrency:{account_id}")


def _detail(status: AccountStatus | None, state: AccountState) -> str:
    """The site's or API's own words, for the tooltip: a problem's detail (a CSS selector, an
    HTTP body), or the rate-limit headers behind a cool-down."""
    raw = status.cooldown_reason if status else None
    if state is AccountState.COOLING_DOWN and raw and not labels.is_error_kind(raw):
        return raw
    if status is None or not status.problem_detail or state is AccountState.DISABLED:
        return ""
    if labels.reason_is_complete(status.problem_code):  # our own English: the words say it
        return ""
    return status.problem_detail


def _brush(hex_color: str) -> QBrush:
    return QBrush(QColor(hex_color))


def _centered(widget: QWidget) -> QWidget:
    holder = QWidget()
    layout = QHBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(widget, 0, Qt.AlignmentFlag.AlignCenter)
    return holder
