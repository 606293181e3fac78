"""Render the app icon from its SVG source: PNGs in every size the desktops ask for, a Windows
.ico and a macOS .icns. Run it after editing resources/icons/media-assistant.svg and commit the
results (the app, the wheel and the bundle use the committed files; nothing renders at run time):

    .venv/bin/pip install -c requirements/constraints.txt -r requirements/build.txt
    QT_QPA_PLATFORM=offscreen .venv/bin/python resources/make_icons.py

Qt's own SVG renderer (QtSvg, part of PySide6-Essentials) draws the PNGs, so the icon looks as
the app draws SVGs; Pillow (requirements/build.txt) packs them into .ico and .icns, formats Qt
cannot write without extra plugins.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parent / "icons"
SOURCE = ICONS / "media-assistant.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)  # media_assistant/assets.py ICON_SIZES
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # what Windows uses (256 is the largest .ico size)


def render_png(size: int) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"{SOURCE}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def main() -> int:
    from PIL import Image
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    pngs = {size: render_png(size) for size in SIZES}
    for size, data in pngs.items():
        (ICONS / f"media-assistant-{size}.png").write_bytes(data)
    images = {size: Image.open(io.BytesIO(data)).convert("RGBA") for size, data in pngs.items()}
    largest = images[max(ICO_SIZES)]
    largest.save(
        ICONS / "media-assistant.ico",
        format="ICO",
        sizes=[(s, s) for s in ICO_SIZES],
        append_images=[images[s] for s in ICO_SIZES if s != max(ICO_SIZES)],
    )
    images[512].save(ICONS / "media-assistant.icns", format="ICNS")
    del app
    print(f"wrote {len(SIZES)} PNGs, media-assistant.ico and media-assistant.icns in {ICONS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
