"""What ``run`` prints as it goes: one line per lane whenever its tasks move.

The store's events say what this process changed; on a team database other workstations run
the same tasks, so :meth:`Progress.refresh` reads the states of the tasks not yet ended from
the store (every few seconds during a team run, and always before the summary)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from media_assistant.core.model.events import Event, TasksAdded, TasksChanged
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.store.facade import AsyncStore


class Progress:
    """Tracks this run's tasks from store events and prints a line per lane when they move."""

    def __init__(self, store: AsyncStore) -> None:
        self.store = store
        self.tasks: dict[str, tuple[str, str]] = {}
        self._dirty = True
        self._last_lines: dict[str, str] = {}

    async def add(self, ids: set[str]) -> None:
        self.add_rows(await self.store.view_rows(sorted(ids - set(self.tasks))))

    def add_rows(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for r in rows:
            self.tasks[r["task_id"]] = (r["model_kind"], r["state"])
        self._dirty = True

    async def refresh(self, at_most: int | None = None) -> None:
        """The states of the tasks not yet ended, read from the store (another workstation may
        have run them). ``at_most``: skip the read while more tasks than that are open (a
        100,000-task batch is read once, before the summary, not every few seconds)."""
        open_ids = [t for t, (_, s) in self.tasks.items() if not TaskState(s).terminal]
        if open_ids and (at_most is None or len(open_ids) <= at_most):
            self.add_rows(await self.store.view_rows(sorted(open_ids)))

    def on_event(self, event: Event) -> None:
        if isinstance(event, TasksAdded):
            self.add_rows(event.rows)
        elif isinstance(event, TasksChanged) and not event.heartbeat:
            for change in event.changes:
                state = change.values.get("state")
                if state is not None and change.task_id in self.tasks:
                    kind, _ = self.tasks[change.task_id]
                    self.tasks[change.task_id] = (kind, str(state))
                    self._dirty = True

    def lines(self) -> dict[str, str]:
        counts: Counter[tuple[str, str]] = Counter(self.tasks.values())
        out = {}
        for kind in ModelKind:
            n = {s: counts[(kind.value, s.value)] for s in TaskState}
            total = sum(n.values())
            if not total:
                continue
            done = n[TaskState.SUCCESS] + n[TaskState.FAILED] + n[TaskState.CANCELED]
            out[kind.value] = (
                f"[{kind.value}] {done}/{total} done · {n[TaskState.RUNNING]} running · "
                f"{n[TaskState.PENDING]} pending · ok {n[TaskState.SUCCESS]} · "
                f"failed {n[TaskState.FAILED]} · canceled {n[TaskState.CANCELED]}"
            )
        return out

    def print_changed(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        for kind, line in self.lines().items():
            if self._last_lines.get(kind) != line:
                print(line, flush=True)
                self._last_lines[kind] = line

    def states(self) -> Counter[str]:
        return Counter(state for _, state in self.tasks.values())
