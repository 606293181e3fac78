"""Every web account's site adapter is loaded and validated when the config is: before a batch is
imported, so a misspelt ``site`` or a typo in an adapter file is a config error (exit 2, nothing
imported) rather than a night of pending tasks that cannot start.

An adapter comes from the account's ``site_file``, else ``<data-dir>/sites/<site>.toml``, else
the built-in one (providers/web/adapter.py ``load_adapter``, the same call the provider makes).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from media_assistant.core.config.schema import FAKE_SITE, AccountConfig, AppConfig, ConfigProblem
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import ConfigError
from media_assistant.core.model.states import ModelKind
from media_assistant.providers.web.adapter import SiteAdapter, builtin_ids, load_adapter


def check_site_adapters(config: AppConfig, paths: Paths) -> None:
    """:class:`ConfigError` listing every web account whose adapter cannot be used."""
    problems = [
        f"{paths.config_file}: accounts[{p.path[1]}] ({config.accounts[int(p.path[1])].id})"
        f".{p.path[2]}: {p.message}"
        for p in site_adapter_problems(config, paths)
    ]
    if problems:
        raise ConfigError("\n".join(problems))


def site_adapter_problems(config: AppConfig, paths: Paths) -> list[ConfigProblem]:
    """Every web account's adapter that cannot be loaded, at the account's ``site`` or
    ``site_file`` key (the set-up window shows them next to that field)."""
    problems: list[ConfigProblem] = []
    for i, account in enumerate(config.accounts):
        if account.kind is not ModelKind.WEB or account.site == FAKE_SITE:
            continue
        key = "site_file" if account.site_file is not None else "site"
        try:
            _load(account, paths)
        except ConfigError as exc:
            inner = getattr(exc, "problems", None)  # AdapterInvalid: each with its code
            if inner:
                problems.extend(
                    ConfigProblem(
                        ("accounts", i, key),
                        line,
                        "adapter_unusable",
                        {"detail": line, "problem": problem},
                    )
                    for line, problem in zip(str(exc).splitlines(), inner, strict=False)
                )
                continue
            problems.extend(
                ConfigProblem(("accounts", i, key), line, "adapter_unusable", {"detail": line})
                for line in str(exc).splitlines()
            )
    return problems


def _load(account: AccountConfig, paths: Paths) -> SiteAdapter:
    return load_adapter(site=account.site, site_file=account.site_file, user_dir=paths.sites)


@dataclass(frozen=True, slots=True)
class AdapterEntry:
    """One line of ``sites list``: an adapter, or why it cannot be loaded."""

    site: str
    where: str  # "built-in", "installed" (in <data>/sites), "site_file"
    path: str | None
    used_by: tuple[str, ...]
    adapter: SiteAdapter | None  # the one in use
    error: str | None
    builtin_version: str | None = None  # the built-in adapter's version, when there is one
    previous: str | None = None  # the version `sites rollback` would put back

    @property
    def version(self) -> str:
        return (self.adapter.version if self.adapter is not None else "") or "unversioned"


def adapter_entries(config: AppConfig, paths: Paths) -> list[AdapterEntry]:
    """Built-in adapters, the operator's in ``<data>/sites``, and every account's ``site_file``."""
    user = sorted(p.stem for p in paths.sites.glob("*.toml")) if paths.sites.is_dir() else []
    users_of: dict[str, list[str]] = {}
    for a in config.accounts:
        if a.kind is ModelKind.WEB and a.site is not None:
            users_of.setdefault(a.site, []).append(a.id)
    entries = []
    builtins = set(builtin_ids())
    previous_dir = paths.sites / "previous"
    for site in sorted(builtins | set(user)):
        where = "installed" if site in user else "built-in"
        path = str(paths.sites / f"{site}.toml") if site in user else None
        try:
            adapter, error = load_adapter(site=site, user_dir=paths.sites), None
        except ConfigError as exc:
            adapter, error = None, str(exc)
        entries.append(
            AdapterEntry(
                site,
                where,
                path,
                tuple(users_of.get(site, [])),
                adapter,
                error,
                builtin_version=_builtin_version(site) if site in builtins else None,
                previous=_file_version(previous_dir / f"{site}.toml"),
            )
        )
    for a in config.accounts:
        if a.kind is ModelKind.WEB and a.site_file is not None:
            try:
                adapter, error = load_adapter(site_file=a.site_file), None
            except ConfigError as exc:
                adapter, error = None, str(exc)
            site = adapter.id if adapter is not None else "?"
            path = str(Path(a.site_file).expanduser())
            entries.append(AdapterEntry(site, "site_file", path, (a.id,), adapter, error))
    return entries


def _builtin_version(site: str) -> str:
    try:
        return load_adapter(site=site).version or "unversioned"
    except ConfigError:
        return "unreadable"


def _file_version(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        return load_adapter(site_file=str(path)).version or "unversioned"
    except ConfigError:
        return "unreadable"
