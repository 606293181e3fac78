"""The fake OpenAI API, spoken to over real HTTP on 127.0.0.1 (no provider code involved)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from media_assistant.providers.api import parse_duration
from media_assistant.sim import api_server
from media_assistant.sim.api_limits import RateWindow, format_duration
from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec

FAST = 0.001  # 8..20 s of simulated latency take 8..20 ms
KEY = "sk-test-1"


def chat(
    prompt: str, *, model: str = "sim-chat", stream: bool = True, **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "stream": stream,
    }
    body.update(extra)
    return body


async def read_events(response: httpx.Response) -> list[str]:
    """The ``data:`` payloads of a stream, in order."""
    return [line[6:] async for line in response.aiter_lines() if line.startswith("data: ")]


async def stream_events(client: httpx.AsyncClient, body: dict[str, Any]) -> list[str]:
    async with client.stream("POST", "chat/completions", json=body) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return await read_events(response)


def deltas(events: list[str], field: str) -> list[str]:
    out = []
    for event in events[:-1]:
        for choice in json.loads(event)["choices"]:
            if field in choice["delta"]:
                out.append(choice["delta"][field])
    return out


@pytest.fixture
async def sim() -> AsyncIterator[ApiSimulator]:
    simulator = ApiSimulator(ApiSimConfig(time_scale=FAST, seed=7))
    await simulator.start()
    yield simulator
    await simulator.stop()


def control(sim: ApiSimulator, path: str) -> str:
    """The simulator's own endpoints live beside /v1, not under it."""
    return sim.base_url.removesuffix("/v1") + path


@pytest.fixture
async def client(sim: ApiSimulator) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        base_url=sim.base_url + "/", headers={"Authorization": f"Bearer {KEY}"}, timeout=5
    ) as http:
        yield http


async def test_base_url_is_loopback_v1(sim: ApiSimulator) -> None:
    assert sim.base_url.startswith("http://127.0.0.1:")
    assert sim.base_url.endswith("/v1")


async def test_stream_is_openai_chunks_ending_in_done(client: httpx.AsyncClient) -> None:
    events = await stream_events(
        client, chat("hello there", stream_options={"include_usage": True})
    )
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert len({c["id"] for c in chunks}) == 1
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(deltas(events, "content"))
    assert text.startswith("Answer to: hello there\n\n")
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    usage = chunks[-1]["usage"]
    assert chunks[-1]["choices"] == []
    assert usage["prompt_tokens"] == 3  # 11 chars / 4, rounded up
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["completion_tokens"] >= len(text) // 4


async def test_no_usage_chunk_unless_asked(client: httpx.AsyncClient) -> None:
    events = await stream_events(client, chat("hello"))
    assert all("usage" not in json.loads(e) for e in events[:-1])


@pytest.mark.parametrize("model", ["deepseek-reasoner", "deepseek-r1-distill"])
async def test_reasoning_models_think_before_answering(
    client: httpx.AsyncClient, model: str
) -> None:
    events = await stream_events(client, chat("why?", model=model))
    fields = [
        next(iter(k for k in ("reasoning_content", "content") if k in c["choices"][0]["delta"]))
        for c in map(json.loads, events[1:-2])
    ]
    assert "reasoning_content" in fields and "content" in fields
    first_content = fields.index("content")
    assert "reasoning_content" not in fields[first_content:]
    assert "".join(deltas(events, "reasoning_content")).startswith("Thinking about: why?")
    plain = await stream_events(client, chat("why?"))
    assert deltas(plain, "reasoning_content") == []


async def test_answers_are_deterministic_per_request(client: httpx.AsyncClient) -> None:
    async def answer(prompt: str) -> str:
        response = await client.post("chat/completions", json=chat(prompt, stream=False))
        assert response.status_code == 200
        body = response.json()
        assert body["object"] == "chat.completion"
        assert body["usage"]["total_tokens"] > 0
        content: str = body["choices"][0]["message"]["content"]
        return content

    first, again, other = await asyncio.gather(answer("one"), answer("one"), answer("two"))
    assert first == again
    assert first.startswith("Answer to: one\n\n")
    assert other.startswith("Answer to: two\n\n")


async def test_latency_follows_the_config() -> None:
    sim = ApiSimulator(ApiSimConfig(latency_s=(400.0, 400.0), time_scale=FAST))  # 0.4 s
    await sim.start()
    try:
        async with httpx.AsyncClient(base_url=sim.base_url + "/") as http:
            started = time.monotonic()
            first_token: float | None = None
            async with http.stream("POST", "chat/completions", json=chat("x")) as response:
                async for line in response.aiter_lines():
                    if first_token is None and line.startswith("data: "):
                        first_token = time.monotonic() - started
            total = time.monotonic() - started
    finally:
        await sim.stop()
    assert first_token is not None
    assert first_token >= 0.04  # 10 % of the latency before the first token
    assert total >= 0.4  # and the whole latency before the end
    assert first_token < total  # the lower bounds are the contract; a loaded machine is later


def test_rate_window_slides() -> None:
    window = RateWindow(limit=2, window_s=60.0)
    assert window.acquire(0.0).remaining == 1
    second = window.acquire(10.0)
    assert (second.allowed, second.remaining, second.reset_s) == (True, 0, 50.0)
    refused = window.acquire(30.0)
    assert (refused.allowed, refused.reset_s) == (False, 30.0)  # until the first one leaves
    assert window.acquire(60.0).allowed  # the first left the window
    assert not window.acquire(69.0).allowed
    assert window.acquire(70.0).allowed


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (0.25, "250ms"),
        (0.0125, "12.5ms"),
        (1.5, "1.5s"),
        (360, "6m0s"),
        (3723.5, "1h2m3.5s"),
    ],
)
def test_duration_format(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


async def test_models_list(client: httpx.AsyncClient) -> None:
    response = await client.get("models")
    assert response.status_code == 200
    assert {m["id"] for m in response.json()["data"]} == {"sim-chat", "sim-reasoner"}


async def test_only_configured_keys_are_accepted() -> None:
    sim = ApiSimulator(ApiSimConfig(time_scale=FAST, keys={"good": KeySpec()}))
    base = await sim.start()
    try:
        async with httpx.AsyncClient(base_url=base + "/") as http:
            bad = await http.post(
                "chat/completions",
                json=chat("x", stream=False),
                headers={"Authorization": "Bearer wrong"},
            )
            good = await http.post(
                "chat/completions",
                json=chat("x", stream=False),
                headers={"Authorization": "Bearer good"},
            )
            missing = await http.get("models")
    finally:
        await sim.stop()
    assert bad.status_code == 401
    assert bad.json()["error"]["code"] == "invalid_api_key"
    assert good.status_code == 200
    assert missing.status_code == 401
    assert sim.stats()["keys"]["wrong"]["errors"] == 1


async def test_rpm_limit_per_key_with_openai_headers() -> None:
    # No latency: only the window decides. 60 s of simulated window = 3 s real.
    sim = ApiSimulator(
        ApiSimConfig(
            latency_s=(0, 0), time_scale=0.05, rpm=2, keys={"a": KeySpec(), "b": KeySpec(rpm=1)}
        )
    )
    base = await sim.start()

    async def post(key: str) -> httpx.Response:
        return await http.post(
            "chat/completions",
            json=chat("x", stream=False),
            headers={"Authorization": f"Bearer {key}"},
        )

    try:
        async with httpx.AsyncClient(base_url=base + "/") as http:
            first, second, third = [await post("a") for _ in range(3)]
            only_b = await post("b")
            b_again = await post("b")
    finally:
        await sim.stop()

    assert [first.status_code, second.status_code, third.status_code] == [200, 200, 429]
    assert first.headers["x-ratelimit-limit-requests"] == "2"
    assert first.headers["x-ratelimit-remaining-requests"] == "1"
    assert second.headers["x-ratelimit-remaining-requests"] == "0"
    assert parse_duration(second.headers["x-ratelimit-reset-requests"]) <= 3.0
    error = third.json()["error"]
    assert error["type"] == error["code"] == "rate_limit_exceeded"
    wait_ms = int(third.headers["retry-after-ms"])
    assert 0 < wait_ms <= 3000
    assert third.headers["retry-after"] == str(-(-wait_ms // 1000))  # whole seconds, rounded up
    assert third.headers["x-ratelimit-remaining-requests"] == "0"
    assert (only_b.status_code, b_again.status_code) == (200, 429)  # the key's own rpm
    assert only_b.headers["x-ratelimit-limit-requests"] == "1"
    stats = sim.stats()["keys"]
    assert (stats["a"]["served"], stats["a"]["rate_limited"]) == (2, 1)


async def test_waits_in_simulated_seconds_for_scaled_clients() -> None:
    config = ApiSimConfig(latency_s=(0, 0), time_scale=0.01, rpm=1, sim_time_headers=True)
    sim = ApiSimulator(config)
    base = await sim.start()
    sim.inject("429", retry_after_s=5, match="injected")
    try:
        async with httpx.AsyncClient(base_url=base + "/") as http:
            ok = await http.post("chat/completions", json=chat("x", stream=False))
            limited = await http.post("chat/completions", json=chat("x", stream=False))
            injected = await http.post("chat/completions", json=chat("injected", stream=False))
    finally:
        await sim.stop()
    assert 50 < parse_duration(ok.headers["x-ratelimit-reset-requests"]) <= 60  # not 0.6 s
    assert limited.status_code == 429
    assert 50_000 < int(limited.headers["retry-after-ms"]) <= 60_000
    assert injected.headers["retry-after-ms"] == "5000"


async def test_no_rate_limit_headers_without_a_limit(client: httpx.AsyncClient) -> None:
    response = await client.post("chat/completions", json=chat("x", stream=False))
    assert not any(name.startswith("x-ratelimit") for name in response.headers)


@pytest.mark.parametrize(
    ("fault", "status", "code"),
    [
        ("500", 500, None),
        ("401", 401, "invalid_api_key"),
        ("context_length", 400, "context_length_exceeded"),
        ("content_policy", 400, "content_filter"),
        ("insufficient_quota", 429, "insufficient_quota"),
        ("429", 429, "rate_limit_exceeded"),
    ],
)
async def test_status_faults(
    sim: ApiSimulator, client: httpx.AsyncClient, fault: str, status: int, code: str | None
) -> None:
    sim.inject(fault)
    response = await client.post("chat/completions", json=chat("x"))
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    if fault == "insufficient_quota":
        assert response.json()["error"]["type"] == "insufficient_quota"
    if fault == "429":
        assert response.headers["retry-after-ms"] == "2"  # 2 simulated seconds, scaled
        assert response.headers["retry-after"] == "1"
    again = await client.post("chat/completions", json=chat("x"))
    assert again.status_code == 200  # count=1: only the next request


async def test_faults_over_http_with_match_key_and_count(
    sim: ApiSimulator, client: httpx.AsyncClient
) -> None:
    injected = await client.post(
        control(sim, "/_sim/faults"), json={"fault": "500", "count": 2, "match": "[task:b]"}
    )
    assert injected.status_code == 200
    keyed = await client.post(control(sim, "/_sim/faults"), json={"fault": "401", "key": "other"})
    assert keyed.json()["pending"] == 3
    bad = await client.post(control(sim, "/_sim/faults"), json={"fault": "teapot"})
    assert bad.status_code == 400

    statuses = [
        (await client.post("chat/completions", json=chat(p, stream=False))).status_code
        for p in ("task [task:a]", "task [task:b]", "task [task:b]", "task [task:b]")
    ]
    assert statuses == [200, 500, 500, 200]
    other = await client.post(
        "chat/completions",
        json=chat("x", stream=False),
        headers={"Authorization": "Bearer other"},
    )
    assert other.status_code == 401

    stats = (await client.get(control(sim, "/_sim/stats"))).json()
    assert [r.get("task_marker") for r in stats["requests"][:4]] == ["a", "b", "b", "b"]
    assert stats["keys"][KEY]["errors"] == 2
    assert stats["keys"][KEY]["served"] == 2


async def test_malformed_chunk(sim: ApiSimulator, client: httpx.AsyncClient) -> None:
    sim.inject("malformed")
    events = await stream_events(client, chat("x"))
    bad = [e for e in events if e != "[DONE]" and not _is_json(e)]
    assert len(bad) == 1


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


async def test_stall_sends_some_chunks_then_nothing(
    sim: ApiSimulator, client: httpx.AsyncClient
) -> None:
    sim.inject("stall")
    received: list[str] = []
    with pytest.raises(httpx.ReadTimeout):
        async with client.stream("POST", "chat/completions", json=chat("x"), timeout=0.3) as r:
            async for line in r.aiter_lines():
                received.append(line)
    assert 1 <= len([line for line in received if line.startswith("data: ")]) <= 5


async def test_hang_sends_not_even_headers(sim: ApiSimulator, client: httpx.AsyncClient) -> None:
    sim.inject("hang")
    with pytest.raises(httpx.ReadTimeout):
        await client.post("chat/completions", json=chat("x"), timeout=0.3)
    await _until(lambda: sim.stats()["keys"][KEY]["in_flight"] == 0)
    assert sim.stats()["keys"][KEY]["errors"] == 1


async def test_disconnect_mid_stream(sim: ApiSimulator, client: httpx.AsyncClient) -> None:
    sim.inject("disconnect")
    with pytest.raises(httpx.RemoteProtocolError):
        await stream_events(client, chat("x"))


async def _until(condition: Any, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.005)


async def test_stats_count_concurrency_and_record_requests() -> None:
    # 50 ms per request: four sent together overlap for sure.
    sim = ApiSimulator(ApiSimConfig(latency_s=(50, 50), time_scale=FAST))
    base = await sim.start()
    try:
        async with httpx.AsyncClient(
            base_url=base + "/", headers={"Authorization": "Bearer k"}
        ) as http:
            bodies = [
                {
                    "model": "sim-chat",
                    "messages": [
                        {"role": "system", "content": "be brief"},
                        {"role": "user", "content": f"p [task:t{i}]"},
                    ],
                    "stream": i % 2 == 0,
                }
                for i in range(4)
            ]
            await asyncio.gather(*(http.post("chat/completions", json=b) for b in bodies))
            after = await http.post("chat/completions", json=chat("alone", stream=False))
            assert after.status_code == 200
    finally:
        await sim.stop()
    stats = sim.stats()
    key = stats["keys"]["k"]
    assert key["max_concurrent"] == 4
    assert (key["in_flight"], key["served"], key["errors"]) == (0, 5, 0)
    assert stats["total"]["max_concurrent"] == 4
    records = stats["requests"]
    assert sorted(r.get("task_marker", "") for r in records) == ["", "t0", "t1", "t2", "t3"]
    first = next(r for r in records if r.get("task_marker") == "t0")
    assert first["key"] == "k" and first["model"] == "sim-chat" and first["stream"] is True
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert first["at"] > 0


async def test_each_request_records_how_it_ended_and_a_latency_can_be_chosen_per_prompt() -> None:
    """A process killed mid-answer asks again elsewhere: a test tells "answered twice" from
    "asked again after the client went away" by each request's outcome."""
    # An hour of real time at FAST: the quick one answering at all says it took latency_s (as
    # latency_of said None), and the slow one cannot end before the client leaves it.
    slow = {"slow [task:s]": 3_600_000.0}
    sim = ApiSimulator(ApiSimConfig(latency_s=(5, 5), time_scale=FAST, latency_of=slow.get))
    base = await sim.start()
    try:
        async with httpx.AsyncClient(
            base_url=base + "/", headers={"Authorization": "Bearer k"}
        ) as http:
            assert (await http.post("chat/completions", json=chat("quick"))).status_code == 200
            gone = asyncio.ensure_future(http.post("chat/completions", json=chat("slow [task:s]")))
            await _until(lambda: sim.stats()["keys"].get("k", {}).get("in_flight") == 1)
            gone.cancel()  # the client goes away mid-answer
            await asyncio.gather(gone, return_exceptions=True)
            await _until(lambda: sim.stats()["keys"]["k"]["in_flight"] == 0)
    finally:
        await sim.stop()
    records = sim.stats()["requests"]
    assert [(r.get("task_marker"), r.get("outcome")) for r in records] == [
        (None, "served"),
        ("s", "client_closed"),
    ]
    assert all(r["ended_at"] >= r["at"] for r in records)


async def test_reset_forgets_stats_and_faults(sim: ApiSimulator, client: httpx.AsyncClient) -> None:
    sim.inject("500", count=5)
    assert (await client.post("chat/completions", json=chat("x"))).status_code == 500
    assert (await client.post(control(sim, "/_sim/reset"))).status_code == 200
    assert (await client.post("chat/completions", json=chat("x", stream=False))).status_code == 200
    stats = sim.stats()
    assert len(stats["requests"]) == 1
    assert stats["keys"][KEY]["errors"] == 0


# aiohttp's wait for handlers at stop, made longer than any test may run: a stop that returns
# closed the hung and stalled requests itself (its own grace is 1 s in production).
LONG_GRACE_S = 3600.0
STOPPED_WITHIN_S = 60.0  # patience only; far below the grace above


async def test_stop_closes_hung_and_stalled_requests_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(api_server, "_STOP_GRACE_S", LONG_GRACE_S)
    sim = ApiSimulator(ApiSimConfig(time_scale=FAST, seed=7))
    await sim.start()
    headers = {"Authorization": f"Bearer {KEY}"}
    async with httpx.AsyncClient(base_url=sim.base_url + "/", headers=headers) as client:
        sim.inject("hang")
        sim.inject("stall")
        hung = asyncio.ensure_future(client.post("chat/completions", json=chat("x"), timeout=60))
        stalled = asyncio.ensure_future(client.post("chat/completions", json=chat("y"), timeout=60))
        await _until(lambda: sim.stats()["total"]["in_flight"] == 2)
        await asyncio.wait_for(sim.stop(), STOPPED_WITHIN_S)
        for request in (hung, stalled):
            with pytest.raises(httpx.RemoteProtocolError):
                await request
        with pytest.raises(httpx.ConnectError):
            await client.get("models")


def test_thread_helpers_leave_no_thread_or_socket_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api_server, "_STOP_GRACE_S", LONG_GRACE_S)  # the stop ends them itself
    before = set(threading.enumerate())
    sim = ApiSimulator(ApiSimConfig(time_scale=FAST))
    base = sim.start_in_thread()
    outcome: list[BaseException] = []

    def hang() -> None:
        try:
            httpx.post(f"{base}/chat/completions", json=chat("x"), timeout=30)
        except httpx.HTTPError as exc:
            outcome.append(exc)

    try:
        response = httpx.post(f"{base}/chat/completions", json=chat("x", stream=False))
        assert response.status_code == 200
        sim.inject("hang")
        waiter = threading.Thread(target=hang)
        waiter.start()
        deadline = time.monotonic() + 30  # patience only
        while sim.stats()["total"]["in_flight"] != 1:
            assert time.monotonic() < deadline
            time.sleep(0.005)
    finally:
        sim.stop_in_thread()
    waiter.join(timeout=STOPPED_WITHIN_S)
    assert not waiter.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], httpx.RemoteProtocolError)
    assert set(threading.enumerate()) == before
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{base}/models")


@pytest.mark.skipif(sys.platform == "win32", reason="Ctrl-C is a console event on Windows")
def test_command_line_serves_until_ctrl_c() -> None:
    command = [
        sys.executable,
        "-m",
        "media_assistant.sim.api_cli",
        "--latency",
        "8,20",
        "--time-scale",
        "0.001",
        "--rpm",
        "30",
    ]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        try:
            assert proc.stdout is not None
            base = proc.stdout.readline().strip()
            assert base.startswith("http://127.0.0.1:") and base.endswith("/v1")
            response = httpx.post(f"{base}/chat/completions", json=chat("cli", stream=False))
            assert response.status_code == 200
            assert response.headers["x-ratelimit-limit-requests"] == "30"
            proc.send_signal(signal.SIGINT)
            try:
                code = proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                assert proc.stderr is not None
                pytest.fail(f"no exit 20 s after SIGINT; stderr: {proc.stderr.read()!r}")
            assert proc.stderr is not None
            assert (code, proc.stderr.read()) == (0, "")
        finally:
            if proc.poll() is None:
                proc.kill()
