"""The operator's hold on the queue, wired into the window: the batches list, pauses (queue,
lane, batch, account), schedules and priorities.

One object so the main window only assembles: it feeds :class:`QueueHolds` from the bus
(pauses and batch rows, ours and other processes'), keeps the batches list, the task table's
batch filter and the lane panels on the same batch, recomputes batch ETAs at most every couple
of seconds, and turns the views' signals into :class:`TaskActions` calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QWidget

from media_assistant.core.model.records import BatchRecord, Pause
from media_assistant.core.rules.eta import LaneEstimate, Slot
from media_assistant.gui.accounts.panel import AccountsPanel
from media_assistant.gui.batches.batch_list import BatchList, BatchListModel
from media_assistant.gui.batches.eta import (
    Finishes,
    Held,
    LaneInputs,
    Plan,
    combined,
    combined_starts,
    plan_lanes,
)
from media_assistant.gui.bridge.controller import AppController
from media_assistant.gui.bridge.jobs import spawn
from media_assistant.gui.common.style import AMBER
from media_assistant.gui.tasks.actions import TaskActions
from media_assistant.gui.tasks.model import TaskTableModel
from media_assistant.gui.tasks.rows import LaneIndex
from media_assistant.gui.tasks.view import TaskTable
from media_assistant.gui.window.lane_panel import LanePanel

# A plan (lane ETAs and batch ends) replays every lane's queue: follow changes at most this
# often once it rests on observed durations, and time passing at least this often.
ETA_MIN_GAP_S = 1.0
ETA_EVERY_S = 5.0
# Up to this many pending tasks a plan takes a few milliseconds: made at once. Beyond, on a
# worker thread (20,000 pending tasks: tens of milliseconds the window would stand still).
INLINE_PENDING = 2_000
# A worker thread's plan is Python holding the GIL, which the window's thread waits for at
# each of its turns (B7: back-to-back plans of 20,000 tasks stalled it 100-300 ms at a time):
# after a plan that took d seconds the next waits at least this many times d (≤ 1/4 of the
# time planning), and never less than ETA_MIN_GAP_S after the last one ended.
PLAN_REST = 3.0


class QueueControls(QObject):
    def __init__(
        self,
        parent: QWidget,
        controller: AppController,
        model: TaskTableModel,
        table: TaskTable,
        lanes: Mapping[str, LanePanel],
        accounts: AccountsPanel,
        actions: TaskActions,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.model = model
        self.table = table
        self.lanes = lanes
        self.accounts = accounts
        self.actions = actions
        self.holds = model.holds
        self.list_model = BatchListModel(controller.now, parent)
        self.batch_list = BatchList(self.list_model, parent)
        self.pause_status = QLabel(parent)
        self.pause_status.setStyleSheet(f"color: {AMBER}; font-weight: bold;")
        self.pause_status.hide()
        self._finishes: dict[str, Finishes] = {}
        self._starts: dict[str, dict[str, float]] = {}
        self._shares: dict[str, float] = {}  # batch id → its fair share now (the plan's)
        self._estimates: dict[str, LaneEstimate] = {}
        self._eta_key: tuple[Any, ...] = ()
        self._eta_at = float("-inf")
        self._planning: asyncio.Task[None] | None = None
        self._rest_until = float("-inf")  # no worker-thread plan before (see PLAN_REST)
        self._plans = 0  # plans taken so far: the batches list shows each new one
        self._list_key: tuple[int, ...] = (-1, -1, -1)  # counts, holds, plans at the last rebuild
        self._list_at = float("-inf")

        accounts.queue_holds = self.holds
        accounts.running_on = self._running_on
        bridge = controller.bridge
        bridge.batches_changed.connect(self._on_bridge_batches_changed)
        bridge.pauses_changed.connect(self._on_bridge_pauses_changed)
        self.batch_list.batch_selected.connect(self._on_batch_list_batch_selected)
        self.table.batch_filter_changed.connect(self._on_table_batch_filter_changed)
        self.table.selection_changed.connect(actions.update_enabled)
        self.table.priority_requested.connect(
            lambda ids, where: actions.set_priority(list(ids), None, str(where))
        )
        self.batch_list.pause_toggled.connect(
            lambda batch, pause: actions.set_paused("batch", str(batch), bool(pause))
        )
        self.batch_list.cancel_requested.connect(lambda batch: actions.cancel_batch(str(batch)))
        self.batch_list.retry_failed_requested.connect(
            lambda batch: actions.retry_failed(str(batch))
        )
        self.batch_list.priority_requested.connect(
            lambda batch, where: actions.set_priority(None, str(batch), str(where))
        )
        # operator-b's export dialog hooks in at TaskActions.export_batch.
        self.batch_list.export_requested.connect(lambda batch: actions.export_batch(str(batch)))
        for panel in lanes.values():
            panel.pause_toggled.connect(
                lambda lane, pause: actions.set_paused("lane", str(lane), bool(pause))
            )
        accounts.pause_toggled.connect(
            lambda account, pause: actions.set_paused("account", str(account), bool(pause))
        )

    # ---------------------------------------------------------------- feeding

    def load(self, batches: Sequence[BatchRecord], pauses: Sequence[Pause]) -> None:
        self.holds.upsert_batches(batches)
        self.holds.set_pauses(pauses)

    def note_rows(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Rows the window received: batches without a row in the store are dated by their
        earliest task."""
        earliest: dict[str, float] = {}
        for r in rows:
            batch, created = r["batch_id"], r.get("created_at") or 0.0
            if batch not in earliest or created < earliest[batch]:
                earliest[batch] = created
        for batch, created in earliest.items():
            self.list_model.note_created(batch, created)

    def _on_bridge_batches_changed(self, batches: list[BatchRecord]) -> None:
        self.holds.upsert_batches(batches)
        self.model.repaint_states()

    def _on_bridge_pauses_changed(self, pauses: list[Pause]) -> None:
        self.holds.set_pauses(pauses)
        self.model.repaint_states()
        self.accounts.refresh()
        self.actions.update_enabled()

    def _running_on(self, account_id: str) -> int:
        return sum(
            1
            for index in self.model.lanes.values()
            for row in index.running.values()
            if row.account_id == account_id
        )

    # ---------------------------------------------------------------- choosing a batch

    def chosen(self) -> str:
        return self.table.current_batch() or ""

    def _on_batch_list_batch_selected(self, batch: str) -> None:
        self.table.set_batch(batch)
        self.refresh_lanes(self.controller.now())
        self.actions.update_enabled()

    def _on_table_batch_filter_changed(self, batch: str) -> None:
        self.batch_list.select(batch)
        self.refresh_lanes(self.controller.now())
        self.actions.update_enabled()

    # ---------------------------------------------------------------- refresh

    def _held(self, now: float) -> Held:
        """The (batch, lane) pairs a pause or a schedule holds back now, with when a schedule
        lets them start (None: paused): asked once per batch with pending work, not per
        pending task."""
        held: dict[tuple[str, str], float | None] = {}
        for batch, lanes in self.model.batch_lanes.items():
            for lane, index in lanes.items():
                if index.pending and (hold := self.holds.batch_hold(batch, lane, now)):
                    held[batch, lane] = hold.until if hold.kind == "scheduled" else None
        return held

    def refresh(self, now: float) -> None:
        """Once a second and soon after changes: a new plan if due, the list, the panels."""
        self._plan_if_due(now)
        if self._list_due(now):
            self._rebuild_list()
        self.batch_list.after_rebuild(self.chosen())
        self.table.show_priority_column()
        self.refresh_lanes(now)
        self._show_pause_status()
        self.actions.update_enabled()

    def _list_due(self, now: float) -> bool:
        """The batches list follows the holds and each new plan at once, the counts at most
        every :data:`ETA_MIN_GAP_S` (another process's 10,000 new tasks arrive in 50 slices),
        and the clock (a schedule's start passing) every :data:`ETA_EVERY_S`: with hundreds of
        batches a rebuild costs the window 10-20 ms."""
        counts, at_once = self.model.batches.version, (self.holds.version, self._plans)
        age = now - self._list_at
        if (
            at_once == self._list_key[1:]
            and (counts == self._list_key[0] or age < ETA_MIN_GAP_S)
            and age < ETA_EVERY_S
        ):
            return False
        self._list_key, self._list_at = (counts, *at_once), now
        return True

    def _rebuild_list(self) -> None:
        rebuilt = self.list_model.rebuild(
            self.model.batches,
            self.holds,
            combined(self._finishes),
            combined_starts(self._starts),
            self._shares,
        )
        if rebuilt:
            self.table.set_batches(
                [
                    (line.batch_id, line.name)
                    for line in (
                        self.list_model.line(i) for i in range(1, self.list_model.rowCount())
                    )
                ]
            )

    def _elsewhere(self, lane: str, servers: Sequence[Slot]) -> dict[str, str]:
        """Waiting models that only other workstations' accounts serve → where (team mode)."""
        where = {s.account_id: self.controller.served_elsewhere(s.account_id) for s in servers}
        here = {m for s in servers if where[s.account_id] is None and s.available for m in s.models}
        there = {m: w for s in servers if (w := where[s.account_id]) for m in s.models}
        waiting = {row.model for row in self.model.lanes[lane].pending.values()}
        return {m: there[m] for m in sorted(waiting) if m in there and m not in here}

    def _seen_serving(self, lane: str) -> dict[str, set[str]]:
        """Account id → the models the table shows it running or having run (recently)."""
        index = self.model.lanes[lane]
        seen: dict[str, set[str]] = {}
        for row in index.running.values():
            if row.account_id:
                seen.setdefault(row.account_id, set()).add(row.model)
        for model, account_id, *_ in index.finished:
            if account_id:
                seen.setdefault(account_id, set()).add(model)
        return seen

    def _plan_if_due(self, now: float) -> None:
        """A new plan when the lanes' queues, the holds or the accounts' capacity moved (at
        most every :data:`ETA_MIN_GAP_S`, at once while an estimate still waits for observed
        durations), and every :data:`ETA_EVERY_S` as time passes. One plan at a time; a long
        queue is planned on a worker thread and shows when it is done, and the next one rests
        :data:`PLAN_REST` times as long after it."""
        servers = {
            lane: self.controller.lane_slots(lane, self._seen_serving(lane)) for lane in self.lanes
        }
        key = (
            self.holds.version,
            tuple(self.model.lanes[lane].version for lane in self.lanes),
            tuple(_capacity(s) for lane in self.lanes for s in servers[lane]),
        )
        age = now - self._eta_at
        provisional = len(self._estimates) < len(self.lanes) or any(
            e.basis != "observed" for e in self._estimates.values()
        )
        due = (key != self._eta_key and (age >= ETA_MIN_GAP_S or provisional)) or (
            age >= ETA_EVERY_S
        )
        if not due or self._planning is not None or now < self._rest_until:
            return
        inputs = {lane: LaneInputs.of(self.model.lanes[lane], servers[lane]) for lane in self.lanes}
        held = self._held(now)
        groups = {b: (r.tenant or "", r.share or 1.0) for b, r in self.holds.batches.items()}
        if sum(len(i.pending) for i in inputs.values()) <= INLINE_PENDING:
            self._take(plan_lanes(inputs, now, held, groups))
        else:
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # a timer Qt ran outside the loop (a shutdown): next time
                return
            self._planning = spawn(self._plan_off_thread(inputs, now, held, groups), "eta-plan")
        self._eta_key, self._eta_at = key, now

    async def _plan_off_thread(
        self,
        inputs: Mapping[str, LaneInputs],
        now: float,
        held: Held,
        groups: Mapping[str, tuple[str, float]],
    ) -> None:
        try:
            plan = await asyncio.to_thread(plan_lanes, inputs, now, held, groups)
        finally:
            self._planning = None
            ended = self.controller.now()
            self._rest_until = ended + max(ETA_MIN_GAP_S, PLAN_REST * (ended - now))
        self._take(plan)
        self.refresh(self.controller.now())

    def _take(self, plan: Plan) -> None:
        self._finishes = plan.finishes
        self._starts = plan.starts
        self._shares = plan.shares
        self._estimates = plan.estimates
        self._plans += 1

    def close(self) -> None:
        """The window closes: a plan still being made is not wanted any more."""
        if self._planning is not None:
            self._planning.cancel()

    def refresh_lanes(self, now: float) -> None:
        batch = self.chosen()
        for lane, panel in self.lanes.items():
            focus = self.model.batch_lanes.get(batch, {}).get(lane) if batch else None
            if batch and focus is None:
                focus = _EMPTY
            servers = self.controller.lane_slots(lane, self._seen_serving(lane))
            panel.refresh(
                self.model.lanes[lane],
                servers,
                now,
                estimate=self._estimates.get(lane),
                focus=focus,
                focus_finish=self._finishes.get(lane, {}).get(batch) if batch else None,
                focus_start=self._starts.get(lane, {}).get(batch) if batch else None,
                focus_hold=self.holds.batch_hold(batch, lane, now) if batch else None,
                paused=self.holds.all_paused or self.holds.paused("lane", lane),
                elsewhere=self._elsewhere(lane, servers),
            )

    def _show_pause_status(self) -> None:
        if not self.holds.all_paused:
            self.pause_status.hide()
            return
        running = sum(i.counts["running"] for i in self.model.lanes.values())
        self.pause_status.setText(
            self.tr("Queue paused: finishing %n running task(s)", "", running)
            if running
            else self.tr("Queue paused")
        )
        self.pause_status.show()


_EMPTY = LaneIndex()  # a batch with no task in a lane: its panel shows zeros


def _capacity(slot: Slot) -> tuple[str, frozenset[str], int, bool]:
    """What of an account's capacity a plan depends on (its pacing planner is a new object
    every time; its state moves with the lane's tasks, which the lane's version counts)."""
    return slot.account_id, slot.models, slot.slots, slot.available
