"""Hatchling build hook: a wheel carries the runtime part of the top-level ``resources/`` inside
the package, as ``media_assistant/resources/...``, where media_assistant/assets.py finds it (the
PyInstaller bundle uses the same place). Which files: resource_files.py, next to this file.

Why a hook rather than ``force-include`` in pyproject.toml: hatchling applies a configured
``force-include`` to editable installs too, copying the files into site-packages, a second copy
that goes stale as soon as one is edited; an editable install should read the checkout's
``resources/`` (assets.py does). And force-include copies whole folders as they are on disk;
listing files by pattern keeps stray files (caches, editor backups) out of the wheel.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _resource_files() -> Any:
    # hatchling loads this file by path, not as a package module: load its neighbour the same way
    path = Path(__file__).with_name("resource_files.py")
    spec = importlib.util.spec_from_file_location("_media_assistant_resource_files", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ResourcesHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version != "standard":
            return  # editable: assets.py reads <checkout>/resources
        build_data["force_include"].update(_resource_files().runtime_files(Path(self.root)))
