"""Where the app's non-code assets are: site adapters, translations, icons.

The repository keeps them in one place, the top-level ``resources/`` folder. Each way of running
the app sees that folder somewhere else, and this module is the only code that knows where:

- an installed wheel: ``<site-packages>/media_assistant/resources`` (pyproject's
  ``force-include`` maps ``resources/*`` there);
- a PyInstaller bundle: ``<sys._MEIPASS>/media_assistant/resources`` (packaging/media_assistant.spec
  puts them at the same place inside the bundle);
- a source checkout or an editable install: ``<repo>/resources``, next to the package.

No Qt and no third-party imports: core, providers and the GUI all ask here.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


class AssetsNotFound(RuntimeError):  # noqa: N818 - reads as what happened
    """The installation is broken: the resources folder is missing."""


def is_frozen() -> bool:
    """Running from a PyInstaller bundle."""
    return bool(getattr(sys, "frozen", False)) and hasattr(sys, "_MEIPASS")


def _candidates() -> list[Path]:
    places = []
    if is_frozen():
        places.append(Path(sys._MEIPASS) / "media_assistant" / "resources")  # type: ignore[attr-defined]
    places.append(PACKAGE_DIR / "resources")  # wheel (and bundle, by __file__)
    places.append(PACKAGE_DIR.parent / "resources")  # source tree, editable install
    return places


@functools.cache
def resources_dir() -> Path:
    """The folder holding ``sites/``, ``i18n/`` and ``icons/``."""
    places = _candidates()
    for place in places:
        if (place / "sites").is_dir():
            return place
    tried = ", ".join(str(p) for p in places)
    raise AssetsNotFound(f"Media Assistant's resources folder is missing (looked in {tried})")


def sites_dir() -> Path:
    """Built-in site adapters (``<id>.toml``)."""
    return resources_dir() / "sites"


def i18n_dir() -> Path:
    """Translation catalogues: ``media_assistant_<lang>.ts`` and the compiled ``.qm``."""
    return resources_dir() / "i18n"


def icons_dir() -> Path:
    return resources_dir() / "icons"


ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def app_icon_files() -> list[Path]:
    """The app icon's PNG renderings, smallest first (resources/make_icons.py makes them)."""
    return [icons_dir() / f"media-assistant-{size}.png" for size in ICON_SIZES]
