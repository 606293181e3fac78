"""Tells the operator which of a submission's task ids were already present and not added.

Only ids the operator supplied can be skipped (a re-imported file adds nothing twice; ids the app
makes up never collide, see core/store/task_ids.py). A skip is easy to miss in a status bar, and a
prompt the operator believes queued must not vanish in silence: so a (non-modal) box names every
skipped id, the first few in its text and all of them in its details.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from media_assistant.core.model.records import SubmitResult

SHOWN_IDS = 10


class SkippedIdsNotice(QMessageBox):
    def __init__(self, result: SubmitResult, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        skipped = result.skipped
        self.setIcon(QMessageBox.Icon.Information)
        self.setWindowTitle(self.tr("Tasks already present"))
        self.setText(
            self.tr(
                "Batch %1: %n task(s) with these ids were already present and were not "
                "added again:",
                "",
                len(skipped),
            ).replace("%1", result.batch_id)
        )
        shown = ", ".join(skipped[:SHOWN_IDS])
        if len(skipped) > SHOWN_IDS:
            shown += " " + self.tr("… and %n more (see the details)", "", len(skipped) - SHOWN_IDS)
        self.setInformativeText(shown)
        self.setDetailedText("\n".join(skipped))
        self.setStandardButtons(QMessageBox.StandardButton.Ok)
