"""A role per workstation, granted only what the README's security section lists (issue 27 item
9): a workstation runs its batch, pauses and resumes with it, and cannot drop the team's tables.
The SQL is read from the README itself, so the two cannot drift apart."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg
import pytest

from tests.integration.test_cli import write_batch
from tests.integration.test_cli_team import ma, ok, workstation
from tests.support.postgres import PostgresServer

pytestmark = pytest.mark.timeout(300)

README = Path(__file__).parents[2] / "README.md"


def _granted_sql() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("**What one workstation can do to the others.**") :]
    block = re.search(r"```sql\n(.*?)```", section, re.S)
    assert block is not None
    return block.group(1)


def test_a_workstation_role_with_the_readme_s_grants_runs_and_cannot_drop(
    tmp_path: Path, pg_server: PostgresServer, pg_url: str
) -> None:
    pc = workstation(tmp_path / "pc-07", "pc-07", ("web-1",), latency=0.1)
    ok(ma(pc, "status", team=pg_url))  # the administrator's role makes the tables
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DROP ROLE IF EXISTS ma_pc07")
        sql = _granted_sql().replace("'...'", "'pc07-secret'").replace("media", admin.info.dbname)
        admin.execute(sql)
    limited = re.sub(r"://[^@/]+@", "://ma_pc07@", pg_url, count=1)
    try:
        ok(ma(pc, "run", str(write_batch(tmp_path / "b.csv", 3, prefix="r")), team=limited))
        ok(ma(pc, "pause", team=limited))
        ok(ma(pc, "resume", team=limited))
        with psycopg.connect(limited) as c:
            assert c.execute("SELECT count(*) FROM tasks WHERE state = 'success'").fetchone() == (
                3,
            )
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                c.execute("DROP TABLE tasks")
    finally:
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("DROP OWNED BY ma_pc07")
            admin.execute("DROP ROLE ma_pc07")
