"""``sites install`` in a team (issue 27 item 8): the file lands on this workstation only, so it
lifts "the site's page changed" only on the accounts this workstation runs; another
workstation's account of the same site keeps its verdict (and its provider) until the file is
installed there. A real PostgreSQL; the real command."""

from __future__ import annotations

from pathlib import Path

from media_assistant.core.model.accounts import AccountDeclaration
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.events import EventBus
from media_assistant.core.model.states import AccountProblem, ModelKind
from media_assistant.core.store.accounts import AccountStore
from media_assistant.core.store.db import open_engine
from tests.integration.test_cli_team import ma
from tests.integration.test_sites_cli import adapter_text


def test_install_lifts_verdicts_only_on_the_accounts_this_workstation_runs(
    tmp_path: Path, pg_url: str
) -> None:
    data = tmp_path / "pc-a"
    data.mkdir()
    # A config handed out to the office: it names both accounts; web-2 runs on pc-b.
    (data / "config.toml").write_text(
        '[team]\nworkstation = "pc-a"\n\n[[models]]\nname = "web-model"\nkind = "web"\n'
        + "".join(
            f'\n[[accounts]]\nid = "{a}"\nkind = "web"\nsite = "sim"\n'
            'origin = "http://127.0.0.1:9"\nmodels = ["web-model"]\n'
            for a in ("web-1", "web-2")
        ),
        encoding="utf-8",
    )
    engine = open_engine(pg_url)
    try:
        accounts = AccountStore(engine, SystemClock(), EventBus())
        for name, account in (("pc-b", "web-2"), ("pc-a", "web-1")):
            accounts.sync(
                [AccountDeclaration(account, ModelKind.WEB)], workstation=name, take_over=False
            )
        verdict = "the site's page changed: composer found (div#composer)"
        for account in ("web-1", "web-2"):
            accounts.set_problem(account, AccountProblem.NEEDS_ATTENTION, verdict, "site_changed")
        before = {a: s.rebuild_generation for a, s in accounts.all().items()}

        fixed = tmp_path / "sim-fixed.toml"
        fixed.write_text(adapter_text(version="2026.12.09"), encoding="utf-8")
        installed = ma(data, "sites", "install", str(fixed), team=pg_url)
        assert installed.returncode == 0, installed.stdout + installed.stderr
        assert "accounts web-1 use it from their next task" in installed.stdout
        assert (
            "accounts web-2 run on other workstations: their verdicts stand until the file is "
            "installed there" in installed.stdout
        )

        after = accounts.all()
        assert after["web-1"].problem_code is None  # ours: lifted, rebuilt with the file
        assert after["web-1"].rebuild_generation == before["web-1"] + 1
        assert after["web-2"].problem_code == "site_changed"  # pc-b's: untouched
        assert after["web-2"].problem_detail == verdict
        assert after["web-2"].rebuild_generation == before["web-2"]
        assert after["web-2"].workstation == "pc-b"
    finally:
        engine.dispose()
