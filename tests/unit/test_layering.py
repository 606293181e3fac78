"""Layers are enforced, not hoped for: core/, providers/, sim/ and the CLI import with Qt
blocked, and core/ imports without Playwright or httpx."""

from __future__ import annotations

import ast
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


# ------------------------------------------------------------------------------ the map's arrows
# Which packages each package may import (docs/ARCHITECTURE.md opens with this map; each
# package's docstring says it in words). Imports under ``if TYPE_CHECKING:`` and inside
# functions count too: an arrow that runs back up is a circle waiting to happen.

TOP = {
    "assets": set(),
    "core": set(),
    "sim": {"core", "assets"},  # assets imports nothing of ours: the built-in adapters
    "providers": {"core", "assets"},
    "services": {"core", "providers", "sim"},
    "notices_runtime": {"core", "providers", "services"},
    "demo": {"core", "providers", "sim"},
    "commands": {"core", "providers", "services", "demo", "notices_runtime", "assets"},
    "gui": {"core", "providers", "services", "demo", "notices_runtime", "commands", "assets"},
    "app": {"core", "providers", "services", "demo", "gui", "assets"},
    "smoke": {"core", "providers", "services", "demo", "gui", "assets"},
    "cli": {"core", "providers", "services", "commands", "app", "smoke"},
    "__main__": {"cli"},
}
CORE = {
    "model": set(),
    "files": {"model"},
    "rules": {"model"},
    "config": {"model", "files", "rules"},
    "store": {"model", "files", "rules"},
    "disk": {"model", "files", "rules", "config", "store"},
    "batches": {"model", "rules", "store"},
    "exports": {"model", "files", "rules", "config", "store"},
    "notices": {"model", "files", "rules", "config", "store"},
    "metrics": {"model", "files", "rules", "config", "store", "notices"},
    "accounts": {"model", "files", "rules", "config", "store", "disk"},
    "lanes": {"model", "files", "rules", "config", "store", "disk", "accounts"},
}
GUI = {
    "common": set(),
    "bridge": {"common"},
    "tasks": {"common", "bridge"},
    "timeline": {"common"},
    "metrics": {"common", "bridge"},
    "notices": {"common"},
    "batches": {"common", "bridge", "tasks"},
    "accounts": {"common", "bridge"},
    "window": {
        "common",
        "bridge",
        "tasks",
        "timeline",
        "notices",
        "batches",
        "accounts",
        "metrics",
    },
}
LEVELS = {"media_assistant": TOP, "media_assistant.core": CORE, "media_assistant.gui": GUI}


def module_files() -> dict[str, Path]:
    files = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(parts)] = path
    return files


def import_graph(*, type_checking: bool) -> dict[str, dict[str, int]]:
    """Every module's imports of our modules (target → line), resolved to the module that
    defines them; ``type_checking=False`` leaves out imports under ``if TYPE_CHECKING:``."""
    files = module_files()
    graph: dict[str, dict[str, int]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped: set[int] = set()
        if not type_checking:
            for node in ast.walk(tree):
                if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                    skipped.update(id(sub) for sub in ast.walk(node))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: dict[str, int] = {}
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                # `from pkg import module` imports the module; `from module import name`, the
                # module that defines the name (resolved below to the nearest known module)
                targets = [f"{module}.{a.name}" for a in node.names]
            else:
                continue
            for imported in targets:
                target = imported
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target.startswith("media_assistant") and target != name:
                    edges.setdefault(target, node.lineno)
        graph[name] = edges
    return graph


def room_of(module: str, level: str) -> str | None:
    """The package (or top-level module) directly under ``level`` that holds ``module``."""
    if not module.startswith(level + "."):
        return None
    return module[len(level) + 1 :].split(".", maxsplit=1)[0]


def test_every_package_is_on_the_map() -> None:
    files = module_files()
    for level, rules in LEVELS.items():
        rooms = {room_of(m, level) for m in files} - {None}
        assert rooms <= set(rules) | set(LEVELS_NESTED.get(level, ())), (
            f"{level}: not on the map in tests/unit/test_layering.py: {rooms - set(rules)}"
        )
        for room in rules:
            assert any(room_of(m, level) == room for m in files), f"{level}.{room} is gone"


LEVELS_NESTED = {"media_assistant": {"__init__"}}


def test_imports_point_down_the_map() -> None:
    wrong = []
    for module, edges in import_graph(type_checking=True).items():
        for target, line in edges.items():
            for level, rules in LEVELS.items():
                source_room, target_room = room_of(module, level), room_of(target, level)
                if None in (source_room, target_room) or source_room == target_room:
                    continue
                if target_room not in rules.get(source_room, set()):  # type: ignore[arg-type]
                    wrong.append(
                        f"{module}:{line} imports {target} ({source_room} → {target_room})"
                    )
                break  # judged at the deepest level both share
    assert not wrong, "imports against the map:\n" + "\n".join(sorted(wrong))


def test_no_import_circle() -> None:
    """No two modules import each other, even through others (a package's ``__init__`` that
    gathers its own modules is not a circle)."""
    graph = {m: set(e) for m, e in import_graph(type_checking=True).items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            face = min(group, key=len)
            if len(group) > 1 and not all(m.startswith(face) for m in group):
                circles.append(sorted(group))

    sys.setrecursionlimit(10000)
    for module in graph:
        if module not in index:
            visit(module)
    assert not circles, circles
