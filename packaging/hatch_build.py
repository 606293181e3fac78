"""Hatchling build hook: a wheel carries the runtime part of the top-level ``resources/`` inside
the package, as ``media_assistant/resources/...``, where media_assistant/assets.py finds it (the
PyInstaller bundle uses the same place).

Why a hook rather than ``force-include`` in pyproject.toml: hatchling applies a configured
``force-include`` to editable installs too, copying the files into site-packages, a second copy
that goes stale as soon as one is edited; an editable install should read the checkout's
``resources/`` (assets.py does). And force-include copies whole folders as they are on disk;
listing files by pattern keeps stray files (caches, editor backups) out of the wheel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

RUNTIME_PATTERNS = (
    "sites/*.toml",  # built-in site adapters
    "i18n/*.qm",  # compiled translations (the .ts sources stay in the repository)
    "icons/*.png",
    "icons/*.svg",
)


def runtime_files(root: Path) -> dict[str, str]:
    """source path (relative to the project) -> path inside the wheel."""
    resources = root / "resources"
    mapping = {}
    for pattern in RUNTIME_PATTERNS:
        for path in sorted(resources.glob(pattern)):
            relative = path.relative_to(resources).as_posix()
            mapping[f"resources/{relative}"] = f"media_assistant/resources/{relative}"
    return mapping


class ResourcesHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version != "standard":
            return  # editable: assets.py reads <checkout>/resources
        files = runtime_files(Path(self.root))
        if not any(target.endswith(".toml") for target in files.values()):
            raise RuntimeError("resources/sites/*.toml missing: not building a wheel without them")
        build_data["force_include"].update(files)
