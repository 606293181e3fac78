"""Installing a fixed site adapter without a new release (issue 21 item 3).

``<data-dir>/sites/<id>.toml`` already wins over the built-in adapter of the same id
(:func:`adapter.load_adapter`); installing writes a validated file there and keeps the one it
replaces in ``<data-dir>/sites/previous/<id>.toml``, so ``rollback`` puts it back. Rolling back
the first install of a built-in site removes the installed file (the built-in one is used
again) and keeps it as the "previous" one: a second rollback re-installs it. Accounts that name
their own ``site_file`` are not touched: they use that file.

Which accounts use a site is the caller's to look up (the configuration); asking their
schedulers for a fresh provider (``accounts.rebuild_generation``) makes the new file the one
their next task loads. Blocking file I/O: call these off the event loop.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from media_assistant.core.config.schema import AccountConfig, AppConfig
from media_assistant.core.files.atomic import write_atomically
from media_assistant.core.model.errors import ConfigError, InputError
from media_assistant.core.model.states import ModelKind
from media_assistant.providers.web.adapter import SiteAdapter, builtin_ids, parse_adapter

PREVIOUS = "previous"


@dataclass(frozen=True, slots=True)
class Installed:
    """What an install or a rollback left in use for ``site``."""

    site: str
    version: str  # the version now in use ("" for an unversioned file)
    source: str  # "installed" | "built-in"
    path: Path | None  # the installed file in use (None: the built-in one)
    replaced: str | None  # the version it replaced ("built-in <v>", "<v>", or None)


def read_adapter(path: Path) -> tuple[SiteAdapter, str]:
    """The adapter in ``path`` and its text, validated: ConfigError naming the file, the key
    and the reason (``team.toml: selectors.answer: Field required``)."""
    try:
        text = path.expanduser().read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read site adapter: {exc.strerror or exc}") from None
    return parse_adapter(text, str(path)), text


def install_adapter(source: Path, sites_dir: Path) -> Installed:
    """Validate ``source`` and make it the adapter of its ``id``; the previous installed file
    is kept for :func:`rollback_adapter`. Refused (ConfigError, nothing changed) when the file
    is not a valid adapter or carries no ``version``."""
    adapter, text = read_adapter(source)
    if not adapter.version:
        raise ConfigError(
            f'{source}: version: an installed adapter says its version (version = "2026.12.02"): '
            "`sites list` shows it, and it tells a fixed file from the one it replaces"
        )
    target = sites_dir / f"{adapter.id}.toml"
    if source.expanduser().resolve() == target.resolve():
        raise InputError(f"{source}: is the installed adapter itself; install a copy")
    sites_dir.mkdir(parents=True, exist_ok=True)
    replaced = _version_of(target) if target.exists() else _builtin_version(adapter.id)
    if target.exists():
        previous = sites_dir / PREVIOUS
        previous.mkdir(exist_ok=True)
        os.replace(target, previous / target.name)
    write_atomically(target, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return Installed(adapter.id, adapter.version, "installed", target, replaced)


def rollback_adapter(site: str, sites_dir: Path) -> Installed:
    """Put back what the last install replaced: the previous installed file, or (after the
    first install over a built-in site) the built-in one. The file rolled back is kept as
    the previous one. InputError when nothing was installed for ``site``."""
    target = sites_dir / f"{site}.toml"
    previous = sites_dir / PREVIOUS / f"{site}.toml"
    if previous.exists():
        kept, _ = read_adapter(previous)  # a broken previous file is not put in place
        aside = previous.with_name(f".{site}.rollback")
        if target.exists():
            os.replace(target, aside)
        os.replace(previous, target)
        if aside.exists():
            os.replace(aside, previous)
        return Installed(site, kept.version, "installed", target, None)
    if target.exists():
        if site not in builtin_ids():
            raise InputError(
                f"{site}: no earlier version to roll back to (it has no built-in adapter): "
                f"remove {target} to stop using it"
            )
        (sites_dir / PREVIOUS).mkdir(exist_ok=True)
        shutil.move(str(target), previous)
        return Installed(site, _builtin_version(site) or "", "built-in", None, None)
    raise InputError(f"{site}: no adapter is installed for it (see `media-assistant sites list`)")


def accounts_on(config: AppConfig, site: str) -> list[AccountConfig]:
    """Web accounts whose adapter is the site's own file (not a ``site_file`` of theirs)."""
    return [
        a
        for a in config.accounts
        if a.kind is ModelKind.WEB and a.site == site and a.site_file is None
    ]


def _version_of(path: Path) -> str:
    try:
        return read_adapter(path)[0].version or "unversioned"
    except ConfigError:
        return "unreadable"


def _builtin_version(site: str) -> str | None:
    if site not in builtin_ids():
        return None
    from media_assistant.providers.web.adapter import load_adapter

    return f"built-in {load_adapter(site=site).version or 'unversioned'}"
