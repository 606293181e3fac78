"""``metrics [--listen HOST:PORT]``: the lanes' figures for Prometheus (core/metrics/prometheus.py)
served until Ctrl-C or SIGTERM (exit 0). Reads only; on a team database the team's figures. The
address: ``--listen``, else ``[metrics] listen``, else 127.0.0.1:9464 — loopback unless one of
them names another address."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType

from media_assistant.commands.common import open_services
from media_assistant.core.config.metrics import DEFAULT_LISTEN, is_loopback, parse_listen
from media_assistant.core.files.paths import Paths
from media_assistant.core.metrics.prometheus import serve
from media_assistant.core.model.errors import InputError
from media_assistant.core.store.metrics_reads import MetricsReads

EXIT_OK = 0


def cmd_metrics(paths: Paths, args: argparse.Namespace) -> int:
    services = open_services(paths, args, read_only=True, require_config=False)
    try:
        listen = args.listen or services.config.metrics.listen or DEFAULT_LISTEN
        try:
            host, port = parse_listen(listen)
        except ValueError as exc:
            raise InputError(f"--listen: {exc}") from None
        try:
            server, _thread = serve(host, port, MetricsReads(services.engine), services.clock)
        except OSError as exc:
            raise InputError(
                f"cannot serve the metrics at {listen}: {exc.strerror or exc}"
            ) from None
        where = f"[{host}]" if ":" in host else host
        print(
            f"serving the lanes' figures for Prometheus at http://{where}:{port}/metrics",
            flush=True,
        )
        if not is_loopback(host):
            print(
                f"note: {host} is not loopback: other machines can read the figures",
                file=sys.stderr,
            )
        stop = threading.Event()

        def on_signal(_sig: int, _frame: FrameType | None) -> None:
            stop.set()

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, on_signal)
        stop.wait()
        server.shutdown()
        server.server_close()
    finally:
        services.close()
    return EXIT_OK
