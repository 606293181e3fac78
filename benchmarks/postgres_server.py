"""A real PostgreSQL server started in a temporary folder, for the tests and the benchmarks.

Both need one: the store's tests run on PostgreSQL too (tests/conftest.py ``pg_server``), and
B8 (benchmarks/bench_team.py) runs three workstation processes on one. It lives here, not under
tests/, because the benchmarks never import the tests; tests/support/postgres.py re-exports it.

Debian's ``postgresql`` package (scripts/setup.sh installs it) puts its programs in
``/usr/lib/postgresql/<version>/bin``, off the PATH. ``initdb`` and ``pg_ctl`` refuse to run as
root (CI runs as root), so under root they run as the ``postgres`` user (``runuser``) in a
folder that user owns. pytest-postgresql's self-started server fails as root for the same
reason, hence this small helper. One server per test process (pytest-xdist worker); each test
gets a database of its own (:meth:`PostgresServer.new_database`).

:class:`PgBouncer` puts Debian's ``pgbouncer`` (1.18, transaction pooling) in front of a server, as
a large team's administrator does (issue 28); like ``pg_ctl`` it refuses to run as root, so under
root it runs as the ``postgres`` user too.

The server listens on 127.0.0.1 only. Authentication: ``trust`` for every role except
``ma_pw``, which must give its password (``scram-sha-256``): the tests of the keyring and of
``PGPASSWORD`` use that one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import psycopg

SUPERUSER = "ma_admin"
PASSWORD_ROLE = "ma_pw"
PASSWORD = "pw-for-tests-only"


def pg_bin() -> Path | None:
    """The newest PostgreSQL's programs folder on this machine, or None."""
    env = os.environ.get("MA_PG_BIN")
    if env:
        return Path(env)
    root = Path("/usr/lib/postgresql")
    versions = sorted(
        (p for p in root.glob("*/bin") if (p / "initdb").exists()),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    return versions[-1] if versions else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="ma-pg-"))
        self.data = self.root / "data"
        self.sockets = self.root / "run"
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        self.running = False

    # ------------------------------------------------------------------ lifecycle

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / args[0]), *args[1:]]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        return _checked(command)

    def init(self, settings: Mapping[str, str] | None = None) -> None:
        """``settings``: more ``postgresql.conf`` lines (B8 turns on commit timestamps)."""
        self.sockets.mkdir()
        if self.as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
            shutil.chown(self.sockets, "postgres", "postgres")
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale=C",
        )
        hba = self.data / "pg_hba.conf"
        rules = (
            f"host all {PASSWORD_ROLE} 127.0.0.1/32 scram-sha-256\n"
            "host all all 127.0.0.1/32 trust\n"
            "local all all trust\n"
        )
        _write_as(hba, rules, self.as_postgres)
        conf = self.data / "postgresql.conf"
        settings = (
            f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
            f"unix_socket_directories = '{self.sockets}'\n"
            "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
            "max_connections = 200\nshared_buffers = 32MB\n"
            + "".join(f"{key} = {value}\n" for key, value in (settings or {}).items())
        )
        _write_as(conf, conf.read_text() + settings, self.as_postgres)

    def start(self) -> None:
        log = str(self.root / "server.log")
        self._run("pg_ctl", "-D", str(self.data), "-l", log, "-w", "-t", "60", "start")
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        """``mode``: fast (disconnect everyone, shut down cleanly) or immediate (a crash)."""
        if self.running:
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")
            self.running = False

    def destroy(self) -> None:
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    # ------------------------------------------------------------------ databases

    def admin_url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def new_database(self, prefix: str = "t") -> str:
        """A fresh, empty database owned by the superuser; its URL."""
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.admin_url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.admin_url(name)

    def ensure_password_role(self) -> None:
        with psycopg.connect(self.admin_url(), autocommit=True) as conn:
            found = conn.execute(
                "SELECT 1 FROM pg_roles WHERE rolname = %s", (PASSWORD_ROLE,)
            ).fetchone()
            if not found:
                conn.execute(f"CREATE ROLE {PASSWORD_ROLE} LOGIN PASSWORD '{PASSWORD}' CREATEDB")

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.admin_url(), connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)


def _checked(command: list[str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(  # noqa: PLW1510 - checked below with the server's own words
        command, capture_output=True, text=True, timeout=120
    )
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr or result.stdout}")
    return result


def _write_as(path: Path, text: str, as_postgres: bool) -> None:
    path.write_text(text)
    if as_postgres:
        shutil.chown(path, "postgres", "postgres")


class PgBouncer:
    """A PgBouncer in transaction mode in front of ``server``, in a temporary folder: every
    database of the server under the same name (``* =``), ``trust`` for the superuser."""

    def __init__(self, server: PostgresServer, *, pool_size: int = 20) -> None:
        self.server = server
        self.root = Path(tempfile.mkdtemp(prefix="ma-pgb-"))
        self.port = free_port()
        self.pool_size = pool_size
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        exe = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
        ini = self.root / "pgbouncer.ini"
        users = self.root / "userlist.txt"
        as_postgres = os.geteuid() == 0
        _write_as(users, f'"{SUPERUSER}" ""\n', as_postgres)
        _write_as(
            ini,
            "[databases]\n"
            f"* = host=127.0.0.1 port={self.server.port}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {users}\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {self.pool_size}\nmax_client_conn = 2000\n"
            f"logfile = {self.root / 'pgbouncer.log'}\n",
            as_postgres,
        )
        if as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        command = [exe, str(ini)]
        if as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        self.process = subprocess.Popen(  # noqa: S603 - our own ini
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(self.url(), connect_timeout=2, prepare_threshold=None):
                    return
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = self.root / "pgbouncer.log"
                    said = log.read_text() if log.exists() else ""
                    self.stop()
                    raise RuntimeError(f"pgbouncer did not start: {said[-2000:]}") from None
                time.sleep(0.1)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def route(self, server_url: str) -> str:
        """``server_url`` (a database on the server) through this PgBouncer."""
        return server_url.replace(f"127.0.0.1:{self.server.port}/", f"127.0.0.1:{self.port}/")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()  # runuser passes SIGTERM on to pgbouncer
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def start_server(settings: Mapping[str, str] | None = None) -> PostgresServer | None:
    """A running server, or None where PostgreSQL is not installed."""
    bin_dir = pg_bin()
    if bin_dir is None:
        return None
    server = PostgresServer(bin_dir)
    try:
        server.init(settings)
        server.start()
        server.wait_ready()
    except BaseException:
        server.destroy()
        raise
    return server
