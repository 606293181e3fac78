"""A local HTTP receiver that checks webhook requests as WeCom, DingTalk and Feishu do (real
HTTP on 127.0.0.1, in a thread): the path names the service; signatures are verified with the
algorithms the services document, written out here independently of the sender's code."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import ssl
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    service: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: dict[str, Any]
    signature_ok: bool | None  # None: the service does not sign (or no secret set)


@dataclass
class Receiver:
    port: int = 0
    secrets: dict[str, str] = field(default_factory=dict)  # service -> signing secret
    fail_first: int = 0  # answer HTTP 500 to this many requests first
    scheme: str = "http"  # "https" when served with a TLS context
    answer_code: int = 0  # the service's errcode/code in a 200 answer
    received: list[Received] = field(default_factory=list)
    requests: int = 0

    def url(self, service: str, query: str = "") -> str:
        base = f"{self.scheme}://127.0.0.1:{self.port}/{service}"
        return base + (f"?{query}" if query else "")

    def wait_for(self, n: int, timeout: float = 10.0) -> list[Received]:
        end = time.monotonic() + timeout
        while len(self.received) < n:
            assert time.monotonic() < end, f"{len(self.received)} of {n} webhook calls arrived"
            time.sleep(0.02)
        return self.received


def _check(
    receiver: Receiver,
    service: str,
    query: dict[str, str],
    headers: dict[str, str],
    raw: bytes,
    body: dict[str, Any],
) -> bool | None:
    secret = receiver.secrets.get(service)
    if secret is None:
        return None
    now = time.time()
    if service == "dingtalk":  # timestamp in ms; HMAC-SHA256(secret, ts + "\n" + secret)
        ts = query.get("timestamp", "0")
        expected = base64.b64encode(
            hmac.new(secret.encode(), f"{ts}\n{secret}".encode(), hashlib.sha256).digest()
        ).decode()
        return abs(int(ts) / 1000 - now) < 3600 and query.get("sign") == expected
    if service == "feishu":  # timestamp in s; HMAC-SHA256 keyed by ts + "\n" + secret, empty msg
        ts = str(body.get("timestamp", "0"))
        expected = base64.b64encode(
            hmac.new(f"{ts}\n{secret}".encode(), b"", hashlib.sha256).digest()
        ).decode()
        return abs(int(ts) - now) < 3600 and body.get("sign") == expected
    if service == "json":
        ts = headers.get("x-media-assistant-timestamp", "0")
        expected = (
            "sha256="
            + hmac.new(secret.encode(), f"{ts}.".encode() + raw, hashlib.sha256).hexdigest()
        )
        return headers.get("x-media-assistant-signature") == expected
    return None


@contextmanager
def webhook_receiver(tls: ssl.SSLContext | None = None, **kwargs: Any) -> Iterator[Receiver]:
    """Serve on 127.0.0.1 (HTTPS with ``tls``, a server context) until the block ends."""
    receiver = Receiver(scheme="https" if tls else "http", **kwargs)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            parts = urllib.parse.urlsplit(self.path)
            service = parts.path.strip("/").split("/")[0]
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                receiver.requests += 1
                failing = receiver.requests <= receiver.fail_first
            if failing:
                self.send_response(500)
                self.end_headers()
                return
            query = dict(urllib.parse.parse_qsl(parts.query))
            headers = {k.lower(): v for k, v in self.headers.items()}
            body = json.loads(raw.decode("utf-8"))
            ok = _check(receiver, service, query, headers, raw, body)
            receiver.received.append(Received(service, parts.path, query, headers, body, ok))
            if ok is False:
                answer = {"errcode": 310000, "errmsg": "sign not match"}
                if service == "feishu":
                    answer = {"code": 19021, "msg": "sign match fail"}
            elif service == "feishu":
                answer = {"code": receiver.answer_code, "msg": "success"}
            else:
                answer = {"errcode": receiver.answer_code, "errmsg": "ok"}
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
