"""Real proxies for the tests (issue 32): Debian's ``tinyproxy`` (HTTP, with basic
authentication) and ``danted`` (Dante's SOCKS5 server), each started on a free loopback port with
its configuration, log and pid file in a temporary folder, and stopped by the test.

Both run unprivileged on ports above 1024 and as root alike (CI runs as root: neither is told to
change user). Their logs are what the tests count: tinyproxy writes one ``Request`` line per
proxied request (``CONNECT host:port`` for a tunnel), danted one ``tcp/connect`` line per
connection it opens to a destination.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.postgres_server import free_port

PROXY_USER, PROXY_PASSWORD = "alice", "proxy-pw-7"  # the tests' HTTP proxy's basic authentication
TINYPROXY = shutil.which("tinyproxy") or "/usr/bin/tinyproxy"
DANTED = shutil.which("danted") or "/usr/sbin/danted"


def _wait_listening(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited {proc.returncode}: {_tail(log)}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{proc.args[0]} did not listen on {port}: {_tail(log)}")


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-2000:]
    except OSError:
        return "(no log)"


class _Proxy:
    scheme = ""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.log = folder / "proxy.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        """The whole log: the counts below read every line (Chromium's own background
        requests can fill any tail), a failure message takes its end."""
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _command(self) -> list[str]:
        raise NotImplementedError

    def start(self) -> None:
        with (self.folder / "stdout.txt").open("ab") as out:
            self.proc = subprocess.Popen(
                self._command(), stdout=out, stderr=subprocess.STDOUT, cwd=self.folder
            )
        _wait_listening(self.port, self.proc, self.folder / "stdout.txt")

    def stop(self) -> None:
        """Stopped, and its port closed (a restart takes the same port)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        # danted's children may hold the port a moment after the parent exits.
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
            except OSError:
                return
            time.sleep(0.05)


class TinyProxy(_Proxy):
    """An HTTP proxy; with ``user``/``password`` it asks for them (407 without)."""

    scheme = "http"

    def __init__(
        self,
        folder: Path,
        user: str | None = None,
        password: str | None = None,
        connect_ports: tuple[int, ...] = (),
    ) -> None:
        """``connect_ports``: the only ports it tunnels to (CONNECT), as many proxies allow
        only 443; empty: any."""
        super().__init__(folder)
        self.user, self.password = user, password
        lines = [
            f"Port {self.port}",
            "Listen 127.0.0.1",
            "Timeout 60",
            f'LogFile "{self.log}"',
            "LogLevel Connect",
            "MaxClients 50",
            "DisableViaHeader No",
        ]
        if user and password:
            lines.append(f"BasicAuth {user} {password}")
        lines += [f"ConnectPort {port}" for port in connect_ports]
        self.conf = folder / "tinyproxy.conf"
        self.conf.write_text("\n".join(lines) + "\n")

    def _command(self) -> list[str]:
        return [TINYPROXY, "-d", "-c", str(self.conf)]

    def requests_to(self, port: int) -> int:
        """Requests it passed on to ``127.0.0.1:port`` (plain and tunnelled)."""
        return sum(
            1
            for line in self.log_text().splitlines()
            if "Request" in line and (f"127.0.0.1:{port}/" in line or f"127.0.0.1:{port} " in line)
        )


class DanteProxy(_Proxy):
    """A SOCKS5 proxy that admits loopback clients without a password."""

    scheme = "socks5"

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.conf = folder / "danted.conf"
        self.conf.write_text(
            f"logoutput: {self.log}\n"
            f"internal: 127.0.0.1 port = {self.port}\n"
            "external: 127.0.0.1\n"
            "socksmethod: none\n"
            "clientmethod: none\n"
            "client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 log: connect error }\n"
            "socks pass { from: 127.0.0.0/8 to: 0.0.0.0/0 log: connect error }\n"
        )

    def _command(self) -> list[str]:
        return [DANTED, "-f", str(self.conf), "-p", str(self.folder / "danted.pid")]

    def connections_to(self, port: int) -> int:
        """Connections it opened to ``127.0.0.1:port``."""
        return sum(
            1
            for line in self.log_text().splitlines()
            if "tcp/connect [" in line and f"127.0.0.1.{port}" in line
        )


async def logged(
    count: Callable[[], int], at_least: int, log: Callable[[], str], within_s: float = 30.0
) -> None:
    """Until ``count()`` (a proxy's log, read again) reaches ``at_least``: a proxy writes its
    log line after relaying, so a client that has its answer may be ahead of it. At most
    ``within_s``, then the log's tail in the failure."""
    deadline = asyncio.get_running_loop().time() + within_s
    while count() < at_least:
        assert asyncio.get_running_loop().time() < deadline, log()[-2000:]
        await asyncio.sleep(0.05)
