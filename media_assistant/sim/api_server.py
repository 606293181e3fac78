"""A loopback OpenAI-compatible API for tests, benchmarks and the demo mode.

``POST /v1/chat/completions`` (streaming and not), ``GET /v1/models``, per-key rpm limits with
OpenAI's rate-limit headers, injectable faults, and what it saw at ``GET /_sim/stats``::

    sim = ApiSimulator(ApiSimConfig(latency_s=(8, 20), time_scale=0.01, rpm=30))
    base_url = await sim.start()        # "http://127.0.0.1:<port>/v1"
    sim.inject("500", count=2, match="[task:t-7]")
    ...
    await sim.stop()

From synchronous code (tests, the Qt app's demo mode) use :meth:`ApiSimulator.start_in_thread` and
:meth:`ApiSimulator.stop_in_thread`; from a shell::

    python -m media_assistant.sim.api_cli --port 8001 --latency 8,20 --time-scale 0.01 --rpm 30

All simulated durations (latency, the 60 s rpm window, an injected 429's wait) are multiplied by
``time_scale``; durations the simulator reports in headers are the real, scaled ones.
"""

from __future__ import annotations

import asyncio
import random
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from aiohttp import web

from media_assistant.sim.api_content import (
    error_body,
    last_user_text,
    make_reply,
    poor_reply,
    task_marker,
)
from media_assistant.sim.api_faults import (
    DEFAULT_RETRY_AFTER_S,
    ERROR_REPLIES,
    Fault,
    FaultBook,
    FaultRule,
)
from media_assistant.sim.api_limits import RateLimits, WindowDecision
from media_assistant.sim.api_replies import ReplySender
from media_assistant.sim.api_stats import RequestRecord, SimStats, StatsBook
from media_assistant.sim.threaded import ThreadedServer

HOST = "127.0.0.1"  # never reachable from another machine
_STOP_GRACE_S = 1.0  # aiohttp's wait for handlers at stop; ours return at once


@dataclass(frozen=True, slots=True)
class KeySpec:
    rpm: int | None = None  # overrides ApiSimConfig.rpm for this key


@dataclass(frozen=True)
class ApiSimConfig:
    latency_s: tuple[float, float] = (8.0, 20.0)  # total time per generation, uniform
    time_scale: float = 1.0  # multiplies every simulated duration; 0.01 = 100x faster
    seed: int | None = None  # latencies repeat with a seed; answers always depend on the request
    rpm: int | None = None  # default requests-per-minute limit per key; None = no limit
    keys: dict[str, KeySpec] | None = None  # if set, only these bearer keys are accepted
    answer_chars: tuple[int, int] = (300, 1500)  # filler length after "Answer to: <prompt>"
    models: tuple[str, ...] = ("sim-chat", "sim-reasoner")  # listed by GET /v1/models
    # Durations in headers (rate-limit resets, Retry-After) are real seconds by default. Set this
    # when the client runs on a ScaledClock(speed=1/time_scale), which counts simulated seconds.
    sim_time_headers: bool = False
    # Simulated seconds for a request, from its last user message (None: drawn from latency_s):
    # a benchmark serves each task the duration its workload gives it.
    latency_of: Callable[[str], float | None] | None = None

    def __post_init__(self) -> None:
        low, high = self.latency_s
        if not 0 <= low <= high:
            raise ValueError(f"latency_s must be 0 <= low <= high, got {self.latency_s}")
        if self.time_scale <= 0:
            raise ValueError("time_scale must be positive")
        if not 0 <= self.answer_chars[0] <= self.answer_chars[1]:
            raise ValueError(f"answer_chars must be 0 <= low <= high, got {self.answer_chars}")
        if self.rpm is not None and self.rpm < 1:
            raise ValueError("rpm must be at least 1")


def _json_error(status: int, body: bytes, headers: Mapping[str, str] | None = None) -> web.Response:
    return web.Response(status=status, body=body, content_type="application/json", headers=headers)


def _bearer(request: web.Request) -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


class ApiSimulator(ThreadedServer):
    """The fake API. Controls (``inject``, ``stats``, ``reset``) are safe from any thread."""

    thread_name = "api-simulator"

    def __init__(
        self, config: ApiSimConfig | None = None, *, tls: ssl.SSLContext | None = None
    ) -> None:
        self.config = config or ApiSimConfig()
        self._tls = tls  # a server context: serve HTTPS (the trust tests' private CA)
        keys = self.config.keys or {}
        self._faults = FaultBook()
        self._stats = StatsBook()
        self._limits = RateLimits(
            self.config.rpm,
            {key: spec.rpm for key, spec in keys.items()},
            window_s=60.0 * self.config.time_scale,
        )
        self._rng = random.Random(self.config.seed)
        self._runner: web.AppRunner | None = None
        self._closing: asyncio.Event | None = None
        self._replies: ReplySender | None = None
        self._base_url: str | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        if self._base_url is None:
            raise RuntimeError("the simulator is not running")
        return self._base_url

    async def start(self, port: int = 0) -> str:
        """Serve on 127.0.0.1 (``port`` 0 picks a free one); returns the base URL ending in /v1."""
        if self._runner is not None:
            raise RuntimeError("the simulator is already running")
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle_chat)
        app.router.add_get("/v1/models", self._handle_models)
        app.router.add_post("/_sim/faults", self._handle_inject)
        app.router.add_get("/_sim/stats", self._handle_stats)
        app.router.add_post("/_sim/reset", self._handle_reset)
        # handler_cancellation: a client that gives up ends its handler (and its hang) at once.
        runner = web.AppRunner(
            app, handler_cancellation=True, access_log=None, shutdown_timeout=_STOP_GRACE_S
        )
        await runner.setup()
        try:
            await web.TCPSite(runner, HOST, port, ssl_context=self._tls).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self._closing = asyncio.Event()
        self._replies = ReplySender(self._closing)
        bound_port = runner.addresses[0][1]
        scheme = "https" if self._tls is not None else "http"
        self._base_url = f"{scheme}://{HOST}:{bound_port}/v1"
        return self._base_url

    async def stop(self) -> None:
        """Stop listening and close every connection, hung and stalled ones included."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        if self._closing is not None:
            self._closing.set()
        await runner.cleanup()
        self._base_url = None

    # -- control (thread-safe) -------------------------------------------------------------------

    def inject(
        self,
        fault: Fault | str,
        count: int = 1,
        match: str | None = None,
        key: str | None = None,
        *,
        retry_after_s: float = DEFAULT_RETRY_AFTER_S,
        retry_after_header: str | None = None,
    ) -> None:
        """The next ``count`` chat requests (whose last user message contains ``match``, whose
        bearer key is ``key``) get ``fault``. ``retry_after_s`` (simulated) is for ``"429"``;
        ``retry_after_header`` replaces its ``retry-after`` by exactly that text ("": none)."""
        self._faults.add(
            FaultRule(Fault(fault), count, match, key, retry_after_s, retry_after_header)
        )

    def stats(self) -> SimStats:
        return self._stats.snapshot()

    def reset(self) -> None:
        """Forget stats, pending faults and rate windows."""
        self._faults.clear()
        self._stats.clear()
        self._limits.clear()

    # -- control over HTTP -----------------------------------------------------------------------

    async def _handle_inject(self, request: web.Request) -> web.Response:
        try:
            spec = await request.json()
            self.inject(
                str(spec["fault"]),
                count=int(spec.get("count", 1)),
                match=spec.get("match"),
                key=spec.get("key"),
                retry_after_s=float(spec.get("retry_after_s", DEFAULT_RETRY_AFTER_S)),
                retry_after_header=(
                    None
                    if spec.get("retry_after_header") is None
                    else str(spec["retry_after_header"])
                ),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            faults = ", ".join(f.value for f in Fault)
            body = error_body(f"bad fault spec ({exc!r}); faults: {faults}", "sim_error", None)
            return _json_error(400, body)
        return web.json_response({"ok": True, "pending": self._faults.pending()})

    async def _handle_stats(self, request: web.Request) -> web.Response:
        return web.json_response(self.stats())

    async def _handle_reset(self, request: web.Request) -> web.Response:
        self.reset()
        return web.json_response({"ok": True})

    # -- the API ---------------------------------------------------------------------------------

    def _key_rejected(self, key: str) -> web.Response | None:
        if self.config.keys is None or key in self.config.keys:
            return None
        message = "Incorrect API key provided." if key else "You didn't provide an API key."
        return _json_error(401, error_body(message, "invalid_request_error", "invalid_api_key"))

    async def _handle_models(self, request: web.Request) -> web.Response:
        rejected = self._key_rejected(_bearer(request))
        if rejected is not None:
            return rejected
        data = [
            {"id": name, "object": "model", "created": 0, "owned_by": "simulator"}
            for name in self.config.models
        ]
        return web.json_response({"object": "list", "data": data})

    async def _handle_chat(self, request: web.Request) -> web.StreamResponse:
        key = _bearer(request)
        try:
            body = await request.json()
            model, messages = body["model"], body["messages"]
            if not isinstance(model, str) or not isinstance(messages, list) or not messages:
                raise TypeError("'model' must be a string and 'messages' a non-empty list")
            if not all(isinstance(m, dict) for m in messages):
                raise TypeError("every message must be an object")
        except (ValueError, KeyError, TypeError) as exc:
            self._stats.count(key, "errors")
            body_ = error_body(f"invalid request: {exc}", "invalid_request_error", None)
            return _json_error(400, body_)
        stream = bool(body.get("stream", False))
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
        user_text = last_user_text(messages)

        record = RequestRecord(
            key=key, model=model, messages=messages, stream=stream, at=time.time()
        )
        marker = task_marker(user_text)
        if marker is not None:
            record["task_marker"] = marker
        self._stats.record_request(record)

        rejected = self._key_rejected(key)
        if rejected is not None:
            self._stats.count(key, "errors", record)
            return rejected

        rule = self._faults.take(user_text, key)
        now = time.monotonic()
        # Injected faults neither use nor need a slot in the rpm window.
        decision = self._limits.peek(key, now) if rule else self._limits.acquire(key, now)
        decision = self._reported(decision)
        limit_headers = decision.headers() if decision else {}
        if decision is not None and not decision.allowed and rule is None:
            self._stats.count(key, "rate_limited", record)
            return self._rate_limited(decision, limit_headers)
        if rule is not None and rule.fault.answers_with_status:
            return self._status_fault(rule, key, limit_headers, record)

        fault = rule.fault if rule else None
        reply = make_reply(self.config.seed, model, messages, self.config.answer_chars)
        reply = poor_reply(reply, fault)
        latency = self._latency(user_text)
        assert self._replies is not None
        with self._stats.in_flight(key):
            try:
                if stream:
                    response = await self._replies.stream(
                        request,
                        model=model,
                        reply=reply,
                        latency=latency,
                        include_usage=include_usage,
                        fault=fault,
                        headers=limit_headers,
                    )
                else:
                    response = await self._replies.whole(
                        request,
                        model=model,
                        reply=reply,
                        latency=latency,
                        fault=fault,
                        headers=limit_headers,
                    )
            except (asyncio.CancelledError, ConnectionError):
                self._stats.count(key, "errors" if fault else "client_closed", record)
                raise
        self._stats.count(key, "errors" if fault else "served", record)
        return response

    def _latency(self, user_text: str) -> float:
        chosen = self.config.latency_of(user_text) if self.config.latency_of else None
        seconds = self._rng.uniform(*self.config.latency_s) if chosen is None else chosen
        return seconds * self.config.time_scale

    def _reported(self, decision: WindowDecision | None) -> WindowDecision | None:
        if decision is None or not self.config.sim_time_headers:
            return decision
        return replace(decision, reset_s=decision.reset_s / self.config.time_scale)

    def _rate_limited(self, decision: WindowDecision, headers: dict[str, str]) -> web.Response:
        message = (
            f"Rate limit reached for requests: limit {decision.limit} per minute. "
            f"Please try again in {decision.reset_s:.3f}s."
        )
        body = error_body(message, "rate_limit_exceeded", "rate_limit_exceeded")
        return _json_error(429, body, {**headers, **decision.retry_headers()})

    def _status_fault(
        self, rule: FaultRule, key: str, headers: dict[str, str], record: RequestRecord
    ) -> web.Response:
        fault = rule.fault
        self._stats.count(key, "rate_limited" if fault is Fault.RATE_LIMIT else "errors", record)
        reply = ERROR_REPLIES[fault]
        body = error_body(reply.message, reply.type, reply.code, reply.param)
        if fault is Fault.RATE_LIMIT and rule.retry_after_header is not None:
            if rule.retry_after_header:
                headers = {**headers, "retry-after": rule.retry_after_header}
        elif fault is Fault.RATE_LIMIT:
            wait = WindowDecision(False, 0, 0, rule.retry_after_s * self.config.time_scale)
            wait = self._reported(wait) or wait
            headers = {**headers, **wait.retry_headers()}
        return _json_error(reply.status, body, headers)


__all__ = ["ApiSimConfig", "ApiSimulator", "Fault", "KeySpec", "SimStats"]
