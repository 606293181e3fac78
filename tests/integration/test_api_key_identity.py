"""One API key, two names (issue 27 item 5): the team-wide gate is keyed by the key's identity (a
keyed hash of the key and base URL), not by the account's id in each config. Two workstations
naming one key differently share one concurrency limit; two configs that disagree about it
are said (both workstations, both limits) and the stricter one holds. The key itself is in no
table. A real PostgreSQL; real connections, then two real ``run`` processes and the simulated
API counting what is in flight on the key."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from media_assistant.core.model.accounts import AccountDeclaration, ApiLimits
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.db import open_engine
from media_assistant.core.store.key_gate import key_identity
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator
from tests.conftest import make_tasks
from tests.integration.test_cli_team import STORE_URL_ENV

pytestmark = pytest.mark.timeout(300)

KEY = "sk-shared-by-the-office-0123456789abcdef"


def test_the_identity_is_the_key_and_url_never_the_key_itself() -> None:
    one = key_identity(KEY, "https://api.example.com/v1")
    assert one == key_identity(KEY, "HTTPS://API.example.com/v1/")  # one URL, written twice
    assert one != key_identity(KEY, "https://api.other.com/v1")
    assert one != key_identity(KEY + "x", "https://api.example.com/v1")
    assert one.startswith("key:") and len(one) == 36
    assert KEY not in one and KEY[3:19] not in one


def _declare(engine: object, workstation: str, account: str, concurrency: int) -> list[str]:
    accounts = AccountStore(engine, SystemClock(), EventBus())  # type: ignore[arg-type]
    said = accounts.sync(
        [
            AccountDeclaration(
                account,
                ModelKind.API,
                concurrency=concurrency,
                key_id=key_identity(KEY, "https://api.example.com/v1"),
            )
        ],
        workstation=workstation,
        take_over=False,
    )
    return [d.message() for d in said]


def _session(url: str, workstation: str) -> None:
    """A live session of ``workstation`` (it runs a scheduler now)."""
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(
            "INSERT INTO sessions (session_id, pid, host, started_at, heartbeat_at, workstation)"
            " VALUES (%s, 1, %s, %s, %s, %s)",
            (f"s-{workstation}", workstation, time.time(), time.time(), workstation),
        )


def test_two_names_of_one_key_share_its_slots_across_two_connections(pg_url: str) -> None:
    """pc-a calls the key ds-a, pc-b calls it ds-b, each with concurrency 1: once pc-a's claim
    holds the key's slot, pc-b's claim (its own engine and connection) gets nothing."""
    engine_a, engine_b = open_engine(pg_url), open_engine(pg_url)
    try:
        assert _declare(engine_a, "pc-a", "ds-a", 1) == []
        _session(pg_url, "pc-a")
        assert _declare(engine_b, "pc-b", "ds-b", 1) == []  # they agree: nothing to say
        store_a = Store(engine_a, SystemClock(), EventBus())
        store_b = Store(engine_b, SystemClock(), EventBus())
        store_a.submit(make_tasks(3, model="by-hand"))
        gates = {}
        for store, account in ((store_a, "ds-a"), (store_b, "ds-b")):
            status = AccountStore(store.engine, SystemClock(), EventBus()).get(account)
            assert status is not None
            gates[account] = status.api_limits()
        assert gates["ds-a"] == gates["ds-b"] == ApiLimits(1, gate=gates["ds-a"].gate)

        def claim(store: Store, account: str) -> object:
            return store.claim_next(
                kind=ModelKind.API,
                account_id=account,
                models=["by-hand"],
                owner_id=f"s-{account}",
                deadline_s=600,
                api_limits=gates[account],
            )

        assert claim(store_a, "ds-a") is not None
        assert claim(store_b, "ds-b") is None  # the key's one slot is pc-a's
        with psycopg.connect(pg_url) as c:
            running = c.execute("SELECT count(*) FROM tasks WHERE state = 'running'").fetchone()
            slots = c.execute("SELECT DISTINCT account_id FROM api_slots").fetchall()
        assert running == (1,)
        assert slots == [(gates["ds-a"].gate,)]  # one set of rows, for the key
    finally:
        engine_a.dispose()
        engine_b.dispose()


def test_configs_that_disagree_are_said_and_the_stricter_holds(pg_url: str) -> None:
    engine = open_engine(pg_url)
    try:
        assert _declare(engine, "pc-a", "ds-a", 2) == []
        _session(pg_url, "pc-a")
        (said,) = _declare(engine, "pc-b", "ds-b", 4)
        assert "ds-a on pc-a (concurrency 2)" in said
        assert "ds-b on pc-b (concurrency 4)" in said
        assert "the team holds the stricter: concurrency 2" in said
        accounts = AccountStore(engine, SystemClock(), EventBus())
        for name in ("ds-a", "ds-b"):
            status = accounts.get(name)
            assert status is not None and status.api_limits().concurrency == 2
        # pc-a starting again does not rewrite the limit to its own alone: pc-b is online.
        _session(pg_url, "pc-b")
        (again,) = _declare(engine, "pc-a", "ds-a", 5)
        assert "the team holds the stricter: concurrency 4" in again
    finally:
        engine.dispose()


# ------------------------------------------------------------------- two real `run` processes


@pytest.fixture
def sim() -> Iterator[ApiSimulator]:
    server = ApiSimulator(ApiSimConfig(latency_s=(1.5, 2.5), seed=3, answer_chars=(40, 80)))
    server.start_in_thread()
    yield server
    server.stop_in_thread()


def _pc(data: Path, name: str, account: str, base_url: str, concurrency: int) -> Path:
    data.mkdir(parents=True)
    (data / "config.toml").write_text(
        f'[team]\nworkstation = "{name}"\n\n'
        '[[models]]\nname = "api-model"\nkind = "api"\n\n'
        f'[[accounts]]\nid = "{account}"\nkind = "api"\nbase_url = "{base_url}"\n'
        f'models = ["api-model"]\napi_key_env = "OFFICE_KEY"\nconcurrency = {concurrency}\n',
        encoding="utf-8",
    )
    return data


def _batch(path: Path, prefix: str, n: int) -> Path:
    rows = [f"{prefix}{i},Write about {prefix} topic {i},api-model" for i in range(n)]
    path.write_text("task_id,prompt,model\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def _run(data: Path, batch: Path, url: str) -> subprocess.Popen[str]:
    env = {**os.environ, STORE_URL_ENV: url, "OFFICE_KEY": KEY}
    return subprocess.Popen(  # noqa: S603 - our own command
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "run", str(batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_two_workstations_naming_one_key_differently_share_its_concurrency(
    tmp_path: Path, pg_url: str, sim: ApiSimulator
) -> None:
    """pc-a's config: ``ds-a``, concurrency 2; pc-b's: ``ds-b``, concurrency 3 — one key. Both
    run at once (pc-a's 30 prompts of about 2 s, 2 at a time, outlast pc-b's start): the key
    never has more than 2 requests in flight (counted at the simulated API), pc-b's run and
    ``store info`` say the configs disagree, naming both, and every prompt is asked once."""
    base_url = sim.base_url
    pc_a = _pc(tmp_path / "a", "pc-a", "ds-a", base_url, 2)
    pc_b = _pc(tmp_path / "b", "pc-b", "ds-b", base_url, 3)
    open_engine(pg_url).dispose()
    first = _run(pc_a, _batch(tmp_path / "a.csv", "a", 30), pg_url)
    second = None
    try:
        deadline = time.monotonic() + 120
        with psycopg.connect(pg_url, autocommit=True) as watch:
            live = "SELECT count(*) FROM tasks WHERE state = 'running'"
            while not watch.execute(live).fetchone()[0]:  # type: ignore[index]
                assert time.monotonic() < deadline and first.poll() is None, "nothing ran"
                time.sleep(0.1)
        second = _run(pc_b, _batch(tmp_path / "b.csv", "b", 10), pg_url)
        with psycopg.connect(pg_url, autocommit=True) as watch:
            declared = "SELECT count(*) FROM api_key_limits"
            while watch.execute(declared).fetchone()[0] < 2:  # type: ignore[index]
                assert time.monotonic() < deadline and second.poll() is None, "pc-b never synced"
                time.sleep(0.1)
        info = subprocess.run(  # noqa: S603 - our own command; both run meanwhile
            [sys.executable, "-m", "media_assistant", "--data-dir", str(pc_b), "store", "info"],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, STORE_URL_ENV: pg_url, "OFFICE_KEY": KEY},
            check=True,
        )
        assert "warning: one API key, different limits in two configs" in info.stdout
        assert "ds-b on pc-b (concurrency 3)" in info.stdout and KEY not in info.stdout
        online = [line.split()[0] for line in info.stdout.splitlines() if " online " in line]
        assert online == ["pc-a", "pc-b"]  # both run now, each with its workers asking
        out_b, err_b = second.communicate(timeout=240)
        out_a, err_a = first.communicate(timeout=240)
        assert second.returncode == 0, out_b + err_b
        assert first.returncode == 0, out_a + err_a
        assert "Traceback" not in err_a + err_b
        assert "one API key, different limits in two configs" in err_b
        assert "ds-a on pc-a (concurrency 2)" in err_b and "ds-b on pc-b (concurrency 3)" in err_b
        assert "the team holds the stricter: concurrency 2" in err_b
        stats = sim.stats()
        assert stats["keys"][KEY]["max_concurrent"] <= 2, stats["keys"][KEY]
        prompts = [r["messages"][-1]["content"] for r in stats["requests"]]
        assert len(prompts) == len(set(prompts)) == 40  # every prompt asked once
        with psycopg.connect(pg_url) as c:
            done = c.execute(
                "SELECT workstation, count(*) FROM tasks WHERE state = 'success' "
                "GROUP BY workstation ORDER BY workstation"
            ).fetchall()
            dump = "".join(
                str(row)
                for table in ("accounts", "api_slots", "api_rates", "api_key_limits", "task_events")
                for row in c.execute(f"SELECT * FROM {table}").fetchall()  # noqa: S608
            )
        # Every task done once, by either (which one is the claim race's: a workstation whose
        # answer frees a slot claims its next task in the same transaction).
        assert {w for w, _ in done} <= {"pc-a", "pc-b"} and sum(n for _, n in done) == 40
        assert KEY not in dump and KEY[3:19] not in dump  # the key is in no row
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate()
