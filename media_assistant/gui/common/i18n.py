"""Loading the translation for the chosen language (the system's, unless the settings say
otherwise). Every user-facing string goes through Qt's ``tr``; the catalogues live in
``resources/i18n`` (media_assistant/assets.py finds them) as ``media_assistant_<lang>.ts``
(sources, edited with Qt Linguist or by hand) compiled to ``.qm`` (``scripts/i18n.sh``)."""

from __future__ import annotations

from pathlib import Path

import PySide6
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QLibraryInfo, QLocale, QTranslator

from media_assistant.assets import i18n_dir

__all__ = ["LANGUAGES", "i18n_dir", "install_translators", "qt_translations", "resolve_language"]

LANGUAGES = {"zh_CN": "简体中文", "en": "English"}

# Qt 6's own file dialog says these, which Qt's Chinese catalogue (qtbase_zh_CN.qm, made from
# older sources: it has "Look in:", not "&Look in:") lacks. Our catalogue carries them under
# Qt's context; Qt asks every installed translator, so ours fills the gap.
QT_GAPS = (
    QT_TRANSLATE_NOOP("QFileDialog", "&Look in:"),
    QT_TRANSLATE_NOOP("QFileDialog", "Files of &type:"),
    # The file dialog's Type column (issue 26: "Folder"): Qt 6 asks QAbstractFileIconProvider,
    # the catalogue knows these words only under QFileDialog.
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Folder"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Drive"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "File"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Alias"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Shortcut"),
)


def resolve_language(setting: str) -> str:
    if setting in LANGUAGES:
        return setting
    name = QLocale.system().name()  # e.g. zh_CN, en_US
    return "zh_CN" if name.startswith("zh") else "en"


def install_translators(app: QCoreApplication, setting: str) -> str:
    """Install the app's and Qt's own translations; returns the language in use."""
    language = resolve_language(setting)
    translators: list[QTranslator] = []
    ours = QTranslator(app)
    if ours.load(str(i18n_dir() / f"media_assistant_{language}.qm")):
        translators.append(ours)
    qt = qt_translations(language, app)  # Qt's own dialogs: file picker, message box buttons
    if qt is not None:
        translators.append(qt)
    for t in translators:
        app.installTranslator(t)
    QLocale.setDefault(QLocale(language))
    return language


def qt_translations(language: str, parent: QCoreApplication | None = None) -> QTranslator | None:
    """Qt's own catalogue (``qtbase_<language>.qm``: "Look in:", "Files of type:", the buttons
    of a message box), from Qt's translations folder, else PySide6's own (a frozen bundle's
    QLibraryInfo may point elsewhere; packaging/media_assistant.spec ships the file there).
    None for English, which needs none, or when it cannot be found."""
    translator = QTranslator(parent)
    for folder in (
        QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath),
        str(Path(PySide6.__file__).parent / "Qt" / "translations"),
    ):
        if translator.load(f"qtbase_{language}", folder):
            return translator
    return None
