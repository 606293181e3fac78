"""Loading the translation for the chosen language (the system's, unless the settings say
otherwise). Every user-facing string goes through Qt's ``tr``; the catalogues live in
``resources/i18n`` (media_assistant/assets.py finds them) as ``media_assistant_<lang>.ts``
(sources, edited with Qt Linguist or by hand) compiled to ``.qm`` (``scripts/i18n.sh``)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from media_assistant.assets import i18n_dir

__all__ = ["LANGUAGES", "i18n_dir", "install_translators", "resolve_language"]

LANGUAGES = {"zh_CN": "简体中文", "en": "English"}


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
    qt = QTranslator(app)  # Qt's own dialogs (file picker, message box buttons)
    if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        translators.append(qt)
    for t in translators:
        app.installTranslator(t)
    QLocale.setDefault(QLocale(language))
    return language
