"""Problems shown next to the fields they are about.

The rules are the configuration schema's (``core/config/schema.py``'s ``check_config``, and the site
adapters' check): an editor puts what the operator typed into a copy of the configuration,
asks the schema, and hands the problems here by key. The words are the operator's language
for the problem's code (gui/accounts/config_text.py); the command line prints the schema's English.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from media_assistant.gui.common.style import RED


class ProblemLabel(QLabel):
    """Red, wrapped, and out of the way while there is nothing to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet(f"color: {RED};")
        self.setObjectName("problem")
        self.hide()

    def say(self, text: str) -> None:
        self.setText(text)
        self.setVisible(bool(text))


class FormProblems:
    """One problem label per field key, plus one for whatever belongs to no field."""

    def __init__(self, general: ProblemLabel, shown: Callable[[], None] | None = None) -> None:
        """``shown``: called after problems appeared or went (the form fits itself to them)."""
        self.general = general
        self.labels: dict[str, ProblemLabel] = {}
        self._shown = shown

    def field(self, key: str, widget: QWidget, *extra_keys: str) -> QWidget:
        """``widget`` with its problem label below it (also used for ``extra_keys``)."""
        holder = QWidget(widget.parentWidget())
        layout = QVBoxLayout(holder)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(widget)
        label = ProblemLabel(holder)
        layout.addWidget(label)
        for name in (key, *extra_keys):
            self.labels[name] = label
        return holder

    def show(self, problems: Iterable[tuple[str | None, str]]) -> None:
        """``(key, message)``; a key without a field of its own goes to the general label."""
        by_label: dict[int, list[str]] = {}
        targets: dict[int, ProblemLabel] = {}
        for key, message in problems:
            label = self.labels.get(key or "", self.general)
            targets[id(label)] = label
            by_label.setdefault(id(label), [])
            if message not in by_label[id(label)]:
                by_label[id(label)].append(message)
        for label in {id(lb): lb for lb in [*self.labels.values(), self.general]}.values():
            label.say("\n".join(by_label.get(id(label), [])))
        if self._shown is not None:
            self._shown()

    def any(self) -> bool:
        return any(label.text() for label in [*self.labels.values(), self.general])

    def clear(self) -> None:
        self.show([])


def fit_height(dialog: QWidget) -> None:
    """Grow ``dialog`` to the height its content needs at its width: wrapped problem lines
    under fields need more than the layout's minimum (which Qt computes without word wrap), and
    rows would otherwise slide over each other."""
    layout = dialog.layout()
    if layout is None:
        return
    needed = (
        layout.totalHeightForWidth(dialog.width())
        if layout.hasHeightForWidth()
        else layout.totalMinimumSize().height()
    )
    dialog.setMinimumHeight(needed)
    if dialog.height() < needed:
        dialog.resize(dialog.width(), needed)
