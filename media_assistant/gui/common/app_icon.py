"""The app icon (resources/icons, rendered from its SVG by resources/make_icons.py), for the
window, the tray and the taskbar."""

from __future__ import annotations

import functools

from PySide6.QtGui import QIcon

from media_assistant.assets import app_icon_files

DESKTOP_ID = "org.mediaassistant.MediaAssistant"  # resources/linux/<id>.desktop, .metainfo.xml


@functools.cache
def app_icon() -> QIcon:
    """Every rendered size, so each place picks a crisp one (16 px tray, 256 px Alt-Tab)."""
    icon = QIcon()
    for path in app_icon_files():
        if path.is_file():
            icon.addFile(str(path))
    return icon
