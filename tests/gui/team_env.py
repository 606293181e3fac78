"""A window on a team database for GUI tests, and another workstation beside it.

The window is the app as ``media_assistant.app`` composes it (``running_app``), its data dir's
config.toml naming the team database (``[store] url``) and the workstation. The other
workstation is what a second PC holds: its own data dir and config, its own services on the
same database, a session that beats (so the team sees it online) — driven by the test through
its store, the way its scheduler would."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import tomlkit
from PySide6.QtWidgets import QApplication

from media_assistant.core.files.paths import Paths
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.store.sessions import SessionStore
from media_assistant.services import Services
from tests.conftest import config_dict
from tests.gui.app_env import Env, running_app


def team_config(
    data: Path,
    url: str,
    workstation: str,
    web: list[str],
    *,
    api_enabled: bool = False,
    connections: int | None = None,
) -> Path:
    """A data dir whose config works on ``url`` as ``workstation`` with these web accounts
    (site "fake") and one API account (switched off unless ``api_enabled``); ``[store]
    connections`` if given."""
    cfg = config_dict(web_accounts=0, api_accounts=1)
    cfg["accounts"][0]["enabled"] = api_enabled
    cfg["models"].append({"name": "web-model", "kind": "web"})
    cfg["accounts"] += [
        {"id": name, "kind": "web", "site": "fake", "models": ["web-model"]} for name in web
    ]
    cfg["store"] = {"url": url}
    if connections is not None:
        cfg["store"]["connections"] = connections
    cfg["team"] = {"workstation": workstation}
    data.mkdir(parents=True, exist_ok=True)
    (data / "config.toml").write_text(tomlkit.dumps(cfg), encoding="utf-8")
    return data


@contextlib.contextmanager
def other_workstation(
    data: Path, url: str, workstation: str = "pc-03", web: tuple[str, ...] = ("web-3",)
) -> Iterator[tuple[Services, SessionStore, str]]:
    """Another PC on the same team database: its services (its web accounts now belong to it)
    and a live session."""
    team_config(data, url, workstation, list(web))
    services = Services.open(Paths.resolve(data))
    sessions = SessionStore(services.engine, SystemClock())
    session = sessions.open(workstation=workstation, app_version="test")
    try:
        yield services, sessions, session
    finally:
        services.close()


@contextlib.asynccontextmanager
async def team_window(
    data: Path,
    url: str,
    qtbot: Any,
    *,
    workstation: str = "pc-01",
    web: tuple[str, ...] = ("web-1",),
    start_scheduler: bool = False,
    connections: int | None = None,
) -> AsyncIterator[Env]:
    """The window of workstation ``workstation`` on the team database at ``url``. A context of
    the test itself (not a fixture): pytest-asyncio runs a fixture's setup in a loop of its own
    and qasync then processes the events left over outside any running loop, where the database
    follower's first step dies."""
    team_config(data, url, workstation, list(web), connections=connections)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    quits = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)
    try:
        async with running_app(data, qtbot, start_scheduler=start_scheduler) as env:
            yield env
    finally:
        app.setQuitOnLastWindowClosed(quits)
