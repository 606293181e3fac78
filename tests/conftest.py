"""Shared fixtures: a real SQLite file per test (and, for the store's tests, a real PostgreSQL
database too), a clock you can move, configs."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from media_assistant.core.config.schema import AppConfig, parse_config  # noqa: E402
from media_assistant.core.model.clock import ManualClock  # noqa: E402
from media_assistant.core.model.events import EventBus  # noqa: E402
from media_assistant.core.model.records import NewTask  # noqa: E402
from media_assistant.core.model.states import ModelKind  # noqa: E402
from media_assistant.core.store import Store  # noqa: E402
from media_assistant.core.store.db import open_engine, sqlite_url  # noqa: E402
from tests.support.postgres import PgBouncer, PostgresServer, start_server  # noqa: E402


class _ErrorRecords(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _text(record: logging.LogRecord) -> str:
    text = f"{record.name}: {record.getMessage()}"
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        text += f"\n{type(exc).__name__}: {exc}"
    return text


@pytest.fixture(autouse=True)
def _no_unexpected_errors(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test fails when anything logged an ERROR it did not expect: a background task or a
    bus subscriber that raised (the bus and asyncio log those: "event subscriber … failed",
    "Task exception was never retrieved"), a housekeeping job, a worker that restarted. Such
    crashes are only logged by the app — on purpose, it must go on — so without this the
    suite stayed green over them. A test that provokes an error says which:
    ``@pytest.mark.expect_errors(r"regex", …)`` (searched in "<logger>: <message>" and the
    exception's line)."""
    handler = _ErrorRecords()
    root = logging.getLogger()
    kept, level = list(root.handlers), root.level
    root.addHandler(handler)
    try:
        yield
    finally:
        # Handlers the app added (the CLI's stderr handler, the window's log file) go with
        # the test: the next test's records would reach a stream pytest has closed.
        for extra in [h for h in root.handlers if h not in kept]:
            if type(extra).__module__.startswith("_pytest"):  # pytest's own, per phase
                continue
            root.removeHandler(extra)
            if extra is not handler:
                extra.close()
        root.setLevel(level)
    expected = [
        re.compile(pattern)
        for marker in request.node.iter_markers("expect_errors")
        for pattern in marker.args
    ]
    unexpected = [
        _text(r) for r in handler.records if not any(p.search(_text(r)) for p in expected)
    ]
    if unexpected:
        pytest.fail("unexpected ERROR logged:\n" + "\n---\n".join(unexpected), pytrace=False)


@pytest.fixture(autouse=True)
def _secrets_of_this_test() -> Iterator[None]:
    """Secrets read from a keyring are kept for the app's session (providers/secrets.py); a
    test is a session of its own: nothing it read is found by the next one. Every test starts
    on a computer without a keyring (keyring's own choice would be whichever backend class
    with the highest priority happens to be imported: the test doubles' included) unless it
    installs one (tests/support/keyrings.py)."""
    import keyring
    import keyring.backends.fail

    from media_assistant.providers import secrets

    secrets.forget_all()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield
    keyring.set_keyring(keyring.backends.fail.Keyring())
    secrets.forget_all()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "media-assistant.db"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test process's own (benchmarks/postgres_server.py)."""
    server = start_server()
    if server is None:
        if os.environ.get("MA_REQUIRE_POSTGRES") == "1":
            pytest.fail("PostgreSQL is not installed: scripts/setup.sh installs it")
        pytest.skip("PostgreSQL is not installed (scripts/setup.sh installs it)")
    yield server
    server.destroy()


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> str:
    """The URL of a fresh, empty database on the test server."""
    return pg_server.new_database()


@pytest.fixture(scope="session")
def pgbouncer(pg_server: PostgresServer) -> Iterator[PgBouncer]:
    """A real PgBouncer (Debian's, transaction pooling) in front of the test server."""
    import shutil

    if shutil.which("pgbouncer") is None and not Path("/usr/sbin/pgbouncer").exists():
        if os.environ.get("MA_REQUIRE_POSTGRES") == "1":
            pytest.fail("PgBouncer is not installed: scripts/setup.sh installs it")
        pytest.skip("PgBouncer is not installed (scripts/setup.sh installs it)")
    bouncer = PgBouncer(pg_server)
    bouncer.start()
    yield bouncer
    bouncer.destroy()


@pytest.fixture
def pgb_url(pg_server: PostgresServer, pgbouncer: PgBouncer) -> str:
    """A fresh, empty database on the test server, reached through PgBouncer."""
    return pgbouncer.route(pg_server.new_database())


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, db_path: Path) -> str:
    """The store's tests run on both engines: a SQLite file, a PostgreSQL database."""
    if request.param == "sqlite":
        return sqlite_url(db_path)
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def store(store_url: str, clock: ManualClock) -> Iterator[Store]:
    engine = open_engine(store_url)
    yield Store(engine, clock, EventBus())
    engine.dispose()


def make_tasks(
    n: int,
    *,
    model: str = "api-model",
    kind: ModelKind = ModelKind.API,
    batch: str = "b1",
    prefix: str | None = None,
    priority: int = 0,
) -> list[NewTask]:
    prefix = prefix or f"{kind.value}"
    return [
        NewTask(
            task_id=f"{prefix}-{i:03d}",
            model=model,
            model_kind=kind,
            prompt=f"prompt {prefix}-{i:03d}",
            batch_id=batch,
            priority=priority,
        )
        for i in range(n)
    ]


def config_dict(
    *,
    web_accounts: int = 2,
    api_accounts: int = 1,
    api_base_url: str = "http://127.0.0.1:9/v1",
    concurrency: int = 3,
    **sections: Any,
) -> dict[str, Any]:
    accounts: list[dict[str, Any]] = [
        {"id": f"web-{i + 1}", "kind": "web", "site": "fake", "models": ["web-model"]}
        for i in range(web_accounts)
    ]
    accounts += [
        {
            "id": f"api-{i + 1}",
            "kind": "api",
            "base_url": api_base_url,
            "models": ["api-model"],
            "concurrency": concurrency,
            "api_key_env": "MA_TEST_KEY",
        }
        for i in range(api_accounts)
    ]
    models = []
    if web_accounts:
        models.append({"name": "web-model", "kind": "web"})
    if api_accounts:
        models.append({"name": "api-model", "kind": "api"})
    return {"models": models, "accounts": accounts, **sections}


def make_config(**kwargs: Any) -> AppConfig:
    return parse_config(config_dict(**kwargs), "test-config")
