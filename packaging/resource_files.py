"""Which files of the top-level ``resources/`` the app needs at run time, and where they go
inside the installed package: one list for the wheel (hatch_build.py) and the PyInstaller
bundle (media_assistant.spec). media_assistant/assets.py finds them there."""

from __future__ import annotations

from pathlib import Path

RUNTIME_PATTERNS = (
    "sites/*.toml",  # built-in site adapters
    "i18n/*.qm",  # compiled translations (the .ts sources stay in the repository)
    "icons/*.png",  # the app icon, every size (the .ico/.icns go to the executables instead)
    "icons/*.svg",
)


def runtime_files(root: Path) -> dict[str, str]:
    """Path relative to the project root -> path inside the installed package."""
    resources = root / "resources"
    mapping = {}
    for pattern in RUNTIME_PATTERNS:
        for path in sorted(resources.glob(pattern)):
            relative = path.relative_to(resources).as_posix()
            mapping[f"resources/{relative}"] = f"media_assistant/resources/{relative}"
    if not any(target.endswith(".toml") for target in mapping.values()):
        raise RuntimeError(f"{resources}/sites/*.toml missing: the app cannot work without them")
    return mapping


def windows_version_info(root: Path, version: str) -> str:
    """resources/windows/version_info.txt with the version filled in (PyInstaller's
    ``version=`` file for the EXEs' Properties > Details)."""
    from string import Template

    parts = [int(p) for p in version.replace("-", ".").split(".") if p.isdigit()][:4]
    parts += [0] * (4 - len(parts))
    template = Template((root / "resources" / "windows" / "version_info.txt").read_text("utf-8"))
    return template.substitute(version=version, version_tuple=tuple(parts))
