"""The suite's PostgreSQL server: the helper lives in benchmarks/postgres_server.py, which the
benchmarks use too (they never import the tests)."""

from benchmarks.postgres_server import (
    PASSWORD,
    PASSWORD_ROLE,
    SUPERUSER,
    PgBouncer,
    PostgresServer,
    free_port,
    pg_bin,
    start_server,
)

__all__ = [
    "PASSWORD",
    "PASSWORD_ROLE",
    "PgBouncer",
    "SUPERUSER",
    "PostgresServer",
    "free_port",
    "pg_bin",
    "start_server",
]
