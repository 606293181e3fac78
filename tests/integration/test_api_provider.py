"""ApiProvider over real HTTP on 127.0.0.1: against the API simulator, and against a few odd
servers (written here with aiohttp) for what the simulator never does."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web

from media_assistant.core.config.schema import parse_config
from media_assistant.core.model.clock import Clock, SystemClock, wait_event
from media_assistant.core.model.errors import ErrorKind, ProviderError, TaskCanceled
from media_assistant.core.model.provider import GenerationResult, Provider, TaskContext, TaskSpec
from media_assistant.core.model.states import ModelKind
from media_assistant.providers.api import ApiProvider
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator

FAST = 0.001  # the simulator's 8..20 s generations take 8..20 ms
KEY = "sk-provider-test"
IDLE_S = 0.4


class FakeContext:
    """A TaskContext with an in-memory cancel flag that records what the provider reports."""

    def __init__(self, task: TaskSpec, clock: Clock | None = None) -> None:
        self._task = task
        self._clock = clock or SystemClock()
        self._cancel = asyncio.Event()
        self.checkpoints = 0
        self.heartbeats: list[int | None] = []
        self.logs: list[str] = []
        self.throttles: list[tuple[float, str]] = []

    @property
    def task(self) -> TaskSpec:
        return self._task

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def request_cancel(self) -> None:
        self._cancel.set()

    def checkpoint(self) -> None:
        self.checkpoints += 1
        if self._cancel.is_set():
            raise TaskCanceled(self._task.task_id)

    async def wait_cancel(self, timeout: float) -> bool:
        return await wait_event(self._cancel, timeout, self._clock)

    def heartbeat(self, progress_chars: int | None = None) -> None:
        self.heartbeats.append(progress_chars)

    def log(
        self,
        message: str,
        *,
        level: int = logging.INFO,
        kind: str = "log",
        code: object = None,
        params: object = None,
    ) -> None:
        self.logs.append(message)

    def throttle_account(self, seconds: float, reason: str) -> None:
        self.throttles.append((seconds, reason))


def spec(
    prompt: str = "Write a title",
    *,
    model: str = "sim-chat",
    system_prompt: str | None = None,
    need_empty_prompt: bool = False,
    upstream_model: str | None = None,
    task_id: str = "t1",
) -> TaskSpec:
    return TaskSpec(
        task_id=task_id,
        model=model,
        model_kind=ModelKind.API,
        account_id="acc",
        prompt=prompt,
        system_prompt=system_prompt,
        attempt=1,
        need_empty_prompt=need_empty_prompt,
        upstream_model=upstream_model,
    )


def context(task: TaskSpec | None = None) -> FakeContext:
    ctx = FakeContext(task or spec())
    _typed: TaskContext = ctx  # the fake keeps to the protocol
    return ctx


@pytest.fixture
async def sim() -> AsyncIterator[ApiSimulator]:
    simulator = ApiSimulator(ApiSimConfig(time_scale=FAST, seed=3))
    await simulator.start()
    yield simulator
    await simulator.stop()


def make_provider(base_url: str, **kwargs: Any) -> ApiProvider:
    kwargs.setdefault("connect_timeout_s", 2.0)
    kwargs.setdefault("idle_timeout_s", IDLE_S)
    return ApiProvider("acc", base_url, KEY, **kwargs)


@pytest.fixture
async def provider(sim: ApiSimulator) -> AsyncIterator[ApiProvider]:
    api = make_provider(sim.base_url)
    assert isinstance(api, Provider)
    yield api
    await api.aclose()


async def fails(provider: ApiProvider, ctx: FakeContext | None = None) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await provider.generate(ctx or context())
    return caught.value


# -- answers --------------------------------------------------------------------------------------


async def test_streamed_answer_with_reasoning_apart_and_usage(
    provider: ApiProvider, sim: ApiSimulator
) -> None:
    ctx = context(spec("Why is the sky blue?", model="deepseek-reasoner"))
    result = await provider.generate(ctx)
    assert isinstance(result, GenerationResult)
    assert result.text.startswith("Answer to: Why is the sky blue?\n\n")
    assert result.reasoning is not None
    assert result.reasoning.startswith("Thinking about: Why is the sky blue?")
    assert "Thinking about" not in result.text
    assert result.usage["prompt_tokens"] == 5
    assert result.usage["total_tokens"] == (
        result.usage["prompt_tokens"] + result.usage["completion_tokens"]
    )
    assert not result.truncated
    assert ctx.heartbeats and ctx.heartbeats[-1] == len(result.text)
    assert ctx.checkpoints > 10  # one per chunk
    assert any("answer:" in line for line in ctx.logs)
    request = sim.stats()["requests"][-1]
    assert request["stream"] is True and request["key"] == KEY


async def test_every_task_gets_its_own_answer(provider: ApiProvider) -> None:
    prompts = [f"Topic number {i}" for i in range(5)]
    results = await asyncio.gather(
        *(provider.generate(context(spec(p, task_id=p))) for p in prompts)
    )
    for prompt, result in zip(prompts, results, strict=True):
        assert result.text.startswith(f"Answer to: {prompt}\n\n")
        assert result.reasoning is None


async def test_need_empty_prompt_sends_no_system_message(
    provider: ApiProvider, sim: ApiSimulator
) -> None:
    reasoner = context(spec("Solve it", system_prompt="You are a poet", need_empty_prompt=True))
    await provider.generate(reasoner)
    assert sim.stats()["requests"][-1]["messages"] == [{"role": "user", "content": "Solve it"}]
    assert any("left out (need_empty_prompt)" in line for line in reasoner.logs)

    await provider.generate(context(spec("Solve it", system_prompt="You are a poet")))
    assert sim.stats()["requests"][-1]["messages"] == [
        {"role": "system", "content": "You are a poet"},
        {"role": "user", "content": "Solve it"},
    ]

    await provider.generate(context(spec("Solve it", system_prompt=None)))
    assert sim.stats()["requests"][-1]["messages"] == [{"role": "user", "content": "Solve it"}]


async def test_upstream_model_name_is_sent(provider: ApiProvider, sim: ApiSimulator) -> None:
    await provider.generate(context(spec(model="ds-chat", upstream_model="deepseek-chat")))
    assert sim.stats()["requests"][-1]["model"] == "deepseek-chat"


# -- faults ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "kind", "retryable"),
    [
        ("500", ErrorKind.SERVER_ERROR, True),
        ("401", ErrorKind.AUTH_REJECTED, False),
        ("context_length", ErrorKind.CONTEXT_TOO_LONG, False),
        ("content_policy", ErrorKind.CONTENT_POLICY, False),
        ("insufficient_quota", ErrorKind.INSUFFICIENT_QUOTA, False),
        ("malformed", ErrorKind.PROTOCOL, True),
        ("disconnect", ErrorKind.NETWORK, True),
    ],
)
async def test_faults_map_to_kinds(
    provider: ApiProvider, sim: ApiSimulator, fault: str, kind: ErrorKind, retryable: bool
) -> None:
    sim.inject(fault)
    error = await fails(provider)
    assert error.kind is kind
    assert error.retryable is retryable
    assert KEY not in error.message
    assert (await provider.generate(context())).text  # the next request is fine again


async def test_server_error_keeps_its_status(provider: ApiProvider, sim: ApiSimulator) -> None:
    sim.inject("500")
    assert (await fails(provider)).status == 500


async def test_injected_429_gives_retry_after(provider: ApiProvider, sim: ApiSimulator) -> None:
    sim.inject("429", retry_after_s=30)  # 30 simulated s = 30 ms
    error = await fails(provider)
    assert error.kind is ErrorKind.RATE_LIMITED
    assert error.retry_after == pytest.approx(0.03)


@pytest.mark.parametrize("fault", ["hang", "stall"])
async def test_silence_is_a_timeout_after_the_idle_timeout(
    provider: ApiProvider, sim: ApiSimulator, fault: str
) -> None:
    sim.inject(fault)
    started = time.monotonic()
    error = await fails(provider)
    elapsed = time.monotonic() - started
    assert error.kind is ErrorKind.TIMEOUT
    assert error.retryable
    assert elapsed >= IDLE_S  # not before the idle timeout (how late is the machine's load)


async def test_unreachable_server_is_a_network_error() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    api = make_provider(f"http://127.0.0.1:{port}/v1")
    try:
        error = await fails(api)
    finally:
        await api.aclose()
    assert error.kind is ErrorKind.NETWORK


async def test_model_the_account_does_not_serve(sim: ApiSimulator) -> None:
    api = make_provider(sim.base_url, models={})
    try:
        error = await fails(api)
    finally:
        await api.aclose()
    assert error.kind is ErrorKind.BAD_CONFIG
    assert sim.stats()["requests"] == []


# -- cancel ---------------------------------------------------------------------------------------


async def _wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.002)


async def test_cancel_mid_stream_stops_the_stream() -> None:
    # A 3 s answer: far longer than any scheduling hiccup between "chunks arrive" and "cancel".
    slow = ApiSimulator(ApiSimConfig(latency_s=(60, 60), time_scale=0.05))
    await slow.start()
    api = make_provider(slow.base_url, idle_timeout_s=10)
    ctx = context()
    try:
        generation = asyncio.ensure_future(api.generate(ctx))
        await _wait_until(lambda: ctx.checkpoints >= 3)  # chunks are streaming in
        ctx.request_cancel()
        with pytest.raises(TaskCanceled):  # a stream left to its end would answer instead
            await generation
        await _wait_until(lambda: slow.stats()["total"]["in_flight"] == 0)
        # The server saw the client hang up mid-answer: stopped by the cancel, not by the end.
        assert slow.stats()["total"]["client_closed"] == 1, slow.stats()["total"]
    finally:
        await api.aclose()
        await slow.stop()


async def test_cancel_while_the_server_is_silent(provider: ApiProvider, sim: ApiSimulator) -> None:
    sim.inject("hang")
    # The idle timeout beyond the test's patience: only the cancel can end the wait in time.
    slow_to_time_out = make_provider(sim.base_url, idle_timeout_s=3600)
    ctx = context()
    try:
        generation = asyncio.ensure_future(slow_to_time_out.generate(ctx))
        await _wait_until(lambda: sim.stats()["total"]["in_flight"] == 1)
        ctx.request_cancel()
        with pytest.raises(TaskCanceled):
            await asyncio.wait_for(generation, 60)  # patience only
    finally:
        await slow_to_time_out.aclose()


async def test_cancel_before_start_sends_nothing(provider: ApiProvider, sim: ApiSimulator) -> None:
    ctx = context()
    ctx.request_cancel()
    with pytest.raises(TaskCanceled):
        await provider.generate(ctx)
    assert sim.stats()["requests"] == []


async def test_caller_cancelling_closes_the_request(
    provider: ApiProvider, sim: ApiSimulator
) -> None:
    """What the lane does at its task timeout or at shutdown: cancel the generate() task."""
    sim.inject("hang")
    generation = asyncio.ensure_future(provider.generate(context()))
    await _wait_until(lambda: sim.stats()["total"]["in_flight"] == 1)
    generation.cancel()
    with pytest.raises(asyncio.CancelledError):
        await generation
    await _wait_until(lambda: sim.stats()["total"]["in_flight"] == 0)  # the server saw it go
    assert (await provider.generate(context())).text  # and the client is still usable


# -- rate limits ----------------------------------------------------------------------------------


async def test_nearly_exhausted_rpm_throttles_the_account() -> None:
    sim = ApiSimulator(ApiSimConfig(latency_s=(0, 0), time_scale=0.05, rpm=3))  # window 3 s
    await sim.start()
    api = make_provider(sim.base_url)
    try:
        plenty = context()
        await api.generate(plenty)  # 2 left: no reason to slow down
        assert plenty.throttles == []
        nearly_out = context()
        await api.generate(nearly_out)  # 1 left
        assert len(nearly_out.throttles) == 1
        seconds, reason = nearly_out.throttles[0]
        assert 0 < seconds <= 3.0
        assert "request" in reason
        await api.generate(context())
        error = await fails(api)  # over the limit: the simulator answers 429
    finally:
        await api.aclose()
        await sim.stop()
    assert error.kind is ErrorKind.RATE_LIMITED
    assert error.retry_after is not None and 0 < error.retry_after <= 3.0


# -- construction ---------------------------------------------------------------------------------


async def test_from_config_reads_key_timeouts_and_upstream(
    sim: ApiSimulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MA_SIM_KEY", "sk-from-env")
    config = parse_config(
        {
            "lanes": {"api": {"connect_timeout_s": 3.0, "idle_timeout_s": 7.0}},
            "models": [{"name": "chat", "kind": "api", "upstream": "deepseek-chat"}],
            "accounts": [
                {
                    "id": "ds",
                    "kind": "api",
                    "base_url": sim.base_url,
                    "api_key_env": "MA_SIM_KEY",
                    "models": ["chat"],
                }
            ],
        },
        "test",
    )
    api = ApiProvider.from_config(config, "ds")
    try:
        assert (api.connect_timeout_s, api.idle_timeout_s) == (3.0, 7.0)
        assert "sk-from-env" not in repr(api)
        await api.generate(context(spec(model="chat")))
    finally:
        await api.aclose()
    request = sim.stats()["requests"][-1]
    assert (request["key"], request["model"]) == ("sk-from-env", "deepseek-chat")


# -- servers that do what the simulator does not --------------------------------------------------

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@pytest.fixture
async def odd_server() -> AsyncIterator[Callable[[Handler], Awaitable[str]]]:
    """Serves one handler at /v1/chat/completions; returns its base URL."""
    runners: list[web.AppRunner] = []

    async def serve(handler: Handler) -> str:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", handler)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        runners.append(runner)
        return f"http://127.0.0.1:{runner.addresses[0][1]}/v1"

    yield serve
    for runner in runners:
        await runner.cleanup()


def sse_handler(*events: str) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in events:
            await response.write(event.encode())
        await response.write_eof()
        return response

    return handler


def chunk(**delta: Any) -> str:
    return f"data: {json.dumps({'choices': [{'index': 0, 'delta': delta}]})}\n\n"


async def run_against(base_url: str) -> GenerationResult:
    api = make_provider(base_url)
    try:
        return await api.generate(context())
    finally:
        await api.aclose()


async def test_echoed_key_never_reaches_the_message(odd_server: Any) -> None:
    async def echo_key(request: web.Request) -> web.Response:
        sent = request.headers["Authorization"]
        body = {"error": {"message": f"key {sent} is revoked", "code": "invalid_api_key"}}
        return web.json_response(body, status=401)

    with pytest.raises(ProviderError) as caught:
        await run_against(await odd_server(echo_key))
    assert caught.value.kind is ErrorKind.AUTH_REJECTED
    assert "revoked" in caught.value.message
    assert KEY not in caught.value.message
    assert KEY not in "".join(traceback.format_exception(caught.value))


async def test_sse_comments_multiline_data_and_inline_think(odd_server: Any) -> None:
    pretty = json.dumps({"choices": [{"index": 0, "delta": {"content": " world"}}]}, indent=1)
    stop = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    base = await odd_server(
        sse_handler(
            ": keep-alive\n\n",
            chunk(role="assistant", content="<think>plan it</think>\n\nHello"),
            "".join(f"data: {line}\n" for line in pretty.splitlines()) + "\n",  # one event
            f"data: {json.dumps(stop)}\n\n",
            "data: [DONE]\n\n",
        )
    )
    result = await run_against(base)
    assert result.text == "Hello world"
    assert result.reasoning == "plan it"


async def test_stream_without_done_or_finish_is_incomplete(odd_server: Any) -> None:
    base = await odd_server(sse_handler(chunk(content="Half an ans")))
    with pytest.raises(ProviderError) as caught:
        await run_against(base)
    assert caught.value.kind is ErrorKind.PROTOCOL


async def test_error_object_inside_the_stream(odd_server: Any) -> None:
    error = {"error": {"code": 502, "message": "upstream provider failed"}}
    base = await odd_server(sse_handler(chunk(content="Hi"), f"data: {json.dumps(error)}\n\n"))
    with pytest.raises(ProviderError) as caught:
        await run_against(base)
    assert caught.value.kind is ErrorKind.SERVER_ERROR
    assert "upstream provider failed" in caught.value.message


async def test_length_limit_marks_the_answer_truncated(odd_server: Any) -> None:
    stop = {"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}
    base = await odd_server(
        sse_handler(chunk(content="Cut sho"), f"data: {json.dumps(stop)}\n\n", "data: [DONE]\n\n")
    )
    result = await run_against(base)
    assert (result.text, result.truncated) == ("Cut sho", True)


async def test_content_filter_finish_is_a_policy_error(odd_server: Any) -> None:
    stop = {"choices": [{"index": 0, "delta": {}, "finish_reason": "content_filter"}]}
    base = await odd_server(
        sse_handler(chunk(content="Partial"), f"data: {json.dumps(stop)}\n\n", "data: [DONE]\n\n")
    )
    with pytest.raises(ProviderError) as caught:
        await run_against(base)
    assert caught.value.kind is ErrorKind.CONTENT_POLICY


async def test_server_that_ignores_stream_and_answers_json(odd_server: Any) -> None:
    async def whole_answer(request: web.Request) -> web.Response:
        message = {"role": "assistant", "content": "All at once", "reasoning_content": "hmm"}
        return web.json_response(
            {
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {
                    "prompt_tokens": 3,
                    "completion_tokens": 4,
                    "total_tokens": 7,
                    "completion_tokens_details": {"reasoning_tokens": 2},
                },
            }
        )

    result = await run_against(await odd_server(whole_answer))
    assert (result.text, result.reasoning) == ("All at once", "hmm")
    assert result.usage == {
        "prompt_tokens": 3,
        "completion_tokens": 4,
        "total_tokens": 7,
        "reasoning_tokens": 2,
    }


async def test_empty_answer_is_not_a_success(odd_server: Any) -> None:
    stop = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    base = await odd_server(sse_handler(f"data: {json.dumps(stop)}\n\n", "data: [DONE]\n\n"))
    with pytest.raises(ProviderError) as caught:
        await run_against(base)
    assert caught.value.kind is ErrorKind.PROTOCOL
