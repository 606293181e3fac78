"""The task table keeps its rows in sight in a short window (issue 29 item 8).

A 1366×768 laptop at Windows' 125 % display scaling leaves the window about 520 logical pixels
of height, at 150 % about 440. Split by the splitters' proportions, the task table — the part
that tells tasks apart — got two rows there, while the timeline/log tabs and the batches list
kept theirs. In a short window the batches list gives way first (down to its minimum), then
the bottom tabs (down to their tab bar and a few lines; folded away whole when the table would
still show fewer than ``FOLD_BELOW_ROWS``: the splitter's handle stays, to drag them back),
until the table shows ``MIN_ROWS`` rows or nothing more can give. Done when the window
or the table's viewport is resized (taller lane panels or a banner squeeze it too); a size the
operator drags the splitters to that leaves the table fewer rows is put back the same way.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QSplitter, QTableView, QWidget

MIN_ROWS = 8  # what the table is given room for, when the others can give it
FOLD_BELOW_ROWS = 5  # fewer than this even so: the bottom tabs fold away


class TableRoom(QObject):
    def __init__(
        self,
        window: QWidget,
        vertical: QSplitter,
        tasks: QSplitter,
        view: QTableView,
    ) -> None:
        super().__init__(window)
        self._vertical = vertical  # [the batches, the table and the accounts; the bottom tabs]
        self._tasks = tasks  # [the batches list; the task table]
        self._view = view
        self._folded = False  # the bottom tabs were folded away here (not by the operator)
        self._pending = QTimer(self)
        self._pending.setSingleShot(True)
        self._pending.setInterval(0)
        self._pending.timeout.connect(self.make_room)
        window.installEventFilter(self)
        view.viewport().installEventFilter(self)  # squeezed by taller lane panels, a banner

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        kind = event.type()
        if kind == QEvent.Type.Show or (kind == QEvent.Type.Resize and self._view.isVisible()):
            self._pending.start()  # once the resize has been laid out (coalesced)
        return False

    def make_room(self) -> None:
        row = self._view.verticalHeader().defaultSectionSize()
        missing = MIN_ROWS * row - self._view.viewport().height()
        if missing <= 0:
            self._unfold(-missing)
            return
        batches, table = self._tasks.sizes()
        take = max(0, min(batches - _least_height(self._tasks.widget(0)), missing))
        if take:
            self._tasks.setSizes([batches - take, table + take])
            missing -= take
        upper, bottom = self._vertical.sizes()
        if missing <= 0 or bottom == 0:
            return
        least = _least_height(self._vertical.widget(1))
        given = min(missing, max(0, bottom - least))  # down to its tab bar and a few lines
        if (self._view.viewport().height() + given) < FOLD_BELOW_ROWS * row:
            # Still too few rows: folded away whole (its splitter handle stays at the foot of
            # the window, to drag it back).
            given = bottom
            self._folded = True
        self._vertical.setSizes([upper + given, bottom - given])

    def _unfold(self, spare: int) -> None:
        """Tabs this folded come back once the table can spare their room (a layout passing
        through a small size on its way, a window made taller); the operator's own fold stays."""
        upper, bottom = self._vertical.sizes()
        least = _least_height(self._vertical.widget(1))
        if self._folded and bottom == 0 and spare >= least:
            self._folded = False
            self._vertical.setSizes([upper - least, least])


def _least_height(widget: QWidget | None) -> int:
    """What a splitter leaves a pane at least (its minimum size, else its hint)."""
    if widget is None:
        return 0
    return widget.minimumHeight() or widget.minimumSizeHint().height()
