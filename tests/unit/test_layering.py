"""Layers are enforced, not hoped for: core/, providers/, sim/ and the CLI import with Qt
blocked, and core/ imports without Playwright or httpx."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import media_assistant

ROOT = Path(media_assistant.__file__).parent

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ImportError(f"layering: {{name}} imported")
        return None
sys.meta_path.insert(0, Block())
import importlib
for module in {modules!r}:
    importlib.import_module(module)
leaked = sorted(m for m in sys.modules if m.split(".")[0] in {blocked!r})
assert not leaked, leaked
print("ok", len({modules!r}))
"""


def modules_under(package: str) -> list[str]:
    path = ROOT / package.removeprefix("media_assistant.").replace(".", "/")
    names = [package]
    for info in pkgutil.walk_packages([str(path)], prefix=f"{package}."):
        names.append(info.name)
    return names


def run_blocked(modules: list[str], blocked: set[str]) -> str:
    code = BLOCKER.format(blocked=sorted(blocked), modules=modules)
    result = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_core_providers_sim_and_cli_import_without_qt() -> None:
    modules = (
        modules_under("media_assistant.core")
        + modules_under("media_assistant.providers")
        + modules_under("media_assistant.sim")
        + modules_under("media_assistant.commands")
        + ["media_assistant.cli", "media_assistant.services"]
    )
    assert len(modules) > 20
    assert run_blocked(modules, {"PySide6", "qasync", "shiboken6"}).startswith("ok")


def test_core_imports_without_playwright_or_httpx() -> None:
    modules = modules_under("media_assistant.core")
    out = run_blocked(modules, {"PySide6", "qasync", "shiboken6", "playwright", "httpx"})
    assert out.startswith("ok")
