"""One OpenAI-compatible API account as a :class:`~media_assistant.core.model.provider.Provider`.

Streams ``POST {base_url}/chat/completions`` and turns every way it can fail into a
:class:`ProviderError` kind (see ``classify``). The lane owns the task's overall timeout, retries
and concurrency; this class owns one HTTP client per account and the idle (no byte) timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import httpx

from media_assistant import __version__
from media_assistant.core.config.schema import AppConfig
from media_assistant.core.model.errors import ErrorKind, ProviderError, TaskCanceled
from media_assistant.core.model.event_codes import EventCode
from media_assistant.core.model.provider import GenerationResult, TaskContext, TaskSpec
from media_assistant.core.model.states import ModelKind
from media_assistant.providers.api.classify import (
    classify_http_error,
    classify_stream_error,
    classify_transport_error,
)
from media_assistant.providers.api.headers import throttle_hint
from media_assistant.providers.api.sse import SseDecoder
from media_assistant.providers.proxy import (
    API_FAILURES_OF_A_PROXY,
    ProxyBackoff,
    ProxyRoute,
    httpx_options,
    refused_by_proxy,
    route_for,
)
from media_assistant.providers.proxy_check import blame_proxy
from media_assistant.providers.secrets import resolve_api_key, without_secret
from media_assistant.providers.tls import client_ssl_context

MAX_CONCURRENCY = 5  # the most requests an API account may run at once (config allows 1..5)
HEARTBEAT_EVERY_S = 0.5  # at most this often while chunks stream in
# wait_cancel returns as soon as a cancel comes; this only bounds each wait of the watcher (short
# waits would spin under a fast ScaledClock in benchmarks).
CANCEL_WAIT_S = 10.0


class ModelInfo(Protocol):
    """What the provider reads from a model's configuration (``core.config.schema.ModelConfig``)."""

    @property
    def upstream(self) -> str | None: ...

    @property
    def need_empty_prompt(self) -> bool: ...


def chat_messages(task: TaskSpec, info: ModelInfo | None = None) -> list[dict[str, str]]:
    """The user's prompt, after a system message only if there is one to send.

    Reasoning models (``need_empty_prompt``) get no system message at all, not even an empty one;
    the model's configuration can only take the system text away, never add it.
    """
    system = task.effective_system_prompt
    if info is not None and info.need_empty_prompt:
        system = None
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": task.prompt})
    return messages


def _usage(raw: Mapping[str, Any]) -> dict[str, int]:
    """Integer counters, with ``*_tokens_details`` (e.g. ``reasoning_tokens``) flattened in."""
    usage: dict[str, int] = {}
    for name, value in raw.items():
        if isinstance(value, Mapping) and name.endswith("_details"):
            usage.update(_usage(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            usage[name] = value
    return usage


def _protocol(message: str) -> ProviderError:
    return ProviderError(ErrorKind.PROTOCOL, message)


@dataclass
class _Answer:
    """The answer as it streams in."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    finish_reason: str | None = None
    chars: int = 0

    def take(self, payload: Any, *, now: float) -> None:
        """One ``chat.completion.chunk`` (or a whole ``chat.completion``)."""
        if not isinstance(payload, Mapping):
            raise _protocol("a response chunk is not a JSON object")
        if payload.get("error"):
            raise classify_stream_error(payload, now=now)
        usage = payload.get("usage")
        if isinstance(usage, Mapping):
            self.usage = _usage(usage)
        choices = payload.get("choices")
        if choices is None and usage is None:
            raise _protocol("a response chunk has neither 'choices' nor 'usage'")
        if choices is None:
            return
        if not isinstance(choices, list):
            raise _protocol("'choices' is not a list")
        for choice in choices:
            if not isinstance(choice, Mapping):
                raise _protocol("a choice is not an object")
            if choice.get("index", 0) == 0:  # we ask for one answer (n = 1)
                self._take_choice(choice)

    def _take_choice(self, choice: Mapping[str, Any]) -> None:
        delta = choice.get("delta", choice.get("message"))
        finish = choice.get("finish_reason")
        if delta is None and finish is None:
            raise _protocol("a choice has neither 'delta' nor 'finish_reason'")
        if delta is not None:
            if not isinstance(delta, Mapping):
                raise _protocol("'delta' is not an object")
            content = delta.get("content")
            # DeepSeek and DashScope say reasoning_content; OpenRouter and newer vLLM, reasoning.
            thought = delta.get("reasoning_content", delta.get("reasoning"))
            for value, parts in ((content, self.text), (thought, self.reasoning)):
                if value is None:
                    continue
                if not isinstance(value, str):
                    raise _protocol("answer text is not a string")
                parts.append(value)
            if isinstance(content, str):
                self.chars += len(content)
        if finish is not None:
            self.finish_reason = str(finish)

    def result(self) -> GenerationResult:
        text = "".join(self.text)
        reasoning = "".join(self.reasoning)
        if not reasoning:
            text, reasoning = _split_think(text)
        if self.finish_reason == "content_filter":
            raise ProviderError(
                ErrorKind.CONTENT_POLICY, "the provider's content filter stopped the answer"
            )
        if not text.strip():
            raise _protocol(f"the model returned no answer text (finish: {self.finish_reason})")
        return GenerationResult(
            text=text,
            reasoning=reasoning or None,
            usage=self.usage,
            truncated=self.finish_reason == "length",
        )


def _split_think(text: str) -> tuple[str, str]:
    """Models served by Ollama or vLLM may put their reasoning inline: ``<think>…</think>``."""
    stripped = text.lstrip()
    if stripped.startswith("<think>") and "</think>" in stripped:
        thought, _, answer = stripped[len("<think>") :].partition("</think>")
        return answer.lstrip(), thought.strip()
    return text, ""


async def _until_cancel_requested(ctx: TaskContext) -> None:
    while not await ctx.wait_cancel(CANCEL_WAIT_S):
        pass


class ApiProvider:
    """One API account; ``generate`` runs concurrently (up to :data:`MAX_CONCURRENCY`)."""

    def __init__(
        self,
        account_id: str,
        base_url: str,
        api_key: str,
        *,
        connect_timeout_s: float = 10.0,
        idle_timeout_s: float = 60.0,
        models: Mapping[str, ModelInfo] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        proxy: ProxyRoute | None = None,
    ) -> None:
        """``models``: the models this account serves (None: any). ``transport``: for tests.
        ``proxy``: the account's way out (providers/proxy.py; None: the system's settings)."""
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"account {account_id!r}: base_url must start with http(s)://")
        self.account_id = account_id
        self.base_url = base_url.rstrip("/")
        self.connect_timeout_s = connect_timeout_s
        self.idle_timeout_s = idle_timeout_s
        self._api_key = api_key
        self._models = dict(models) if models is not None else None
        self._transport = transport
        self.proxy = proxy
        self.proxy_backoff = ProxyBackoff()
        self._http: httpx.AsyncClient | None = None

    @classmethod
    def from_config(
        cls,
        config: AppConfig,
        account_id: str,
        *,
        api_key: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> ApiProvider:
        """Built from the app's configuration; the key comes from ``api_key_env`` or the OS
        keyring unless given (raises ``ProviderError(BAD_CONFIG)`` when there is none)."""
        account = config.account(account_id)
        if account is None or account.kind is not ModelKind.API or not account.base_url:
            raise ProviderError(ErrorKind.BAD_CONFIG, f"{account_id!r} is not an API account")
        if api_key is None:
            # Fresh from the keyring: a provider is built at the start and when the operator
            # stored a new key (perhaps with `accounts set-key` in another process).
            try:
                api_key = resolve_api_key(account.id, account.api_key_env, fresh=True)
            except ProviderError as exc:  # the words name the case; the message says where
                variable = account.api_key_env
                unset = bool(variable) and not os.environ.get(str(variable), "").strip()
                raise ProviderError(
                    exc.kind,
                    exc.message,
                    code="key_env_unset" if unset else "no_api_key",
                    params={"account": account.id, "variable": variable or ""},
                ) from None
        proxy = route_for(config, account)  # BAD_CONFIG (no_proxy_password) if none is kept
        lane = config.lanes.api
        models = {name: model for name in account.models if (model := config.model(name))}
        return cls(
            account.id,
            account.base_url,
            api_key,
            connect_timeout_s=lane.connect_timeout_s,
            idle_timeout_s=lane.idle_timeout_s,
            models=models,
            transport=transport,
            proxy=proxy,
        )

    def __repr__(self) -> str:  # never the key
        return f"ApiProvider({self.account_id!r}, {self.base_url!r})"

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(
                base_url=self.base_url,
                verify=client_ssl_context(),
                headers={
                    "Authorization": f"Bearer {self._api_key}",
                    "User-Agent": f"media-assistant/{__version__}",
                },
                timeout=httpx.Timeout(
                    connect=self.connect_timeout_s,
                    # httpx's read timeout bounds each wait for bytes: exactly the idle timeout.
                    read=self.idle_timeout_s,
                    write=self.idle_timeout_s,
                    pool=None,  # the lane admits at most MAX_CONCURRENCY; waits are its business
                ),
                limits=httpx.Limits(
                    max_connections=MAX_CONCURRENCY, max_keepalive_connections=MAX_CONCURRENCY
                ),
                transport=self._transport,
                **httpx_options(self.proxy, self.base_url),
            )
        return self._http

    async def aclose(self) -> None:
        client, self._http = self._http, None
        if client is not None:
            await client.aclose()

    def request_body(self, task: TaskSpec) -> dict[str, Any]:
        info = self._models.get(task.model) if self._models is not None else None
        if self._models is not None and info is None:
            raise ProviderError(
                ErrorKind.BAD_CONFIG,
                f"account {self.account_id!r} does not serve model {task.model!r}",
            )
        upstream = task.upstream_model or (info.upstream if info else None) or task.model
        return {
            "model": upstream,
            "messages": chat_messages(task, info),
            "stream": True,
            "stream_options": {"include_usage": True},
        }

    async def generate(self, ctx: TaskContext) -> GenerationResult:
        """Stream one answer. A cancel request stops it within a moment even while the server is
        silent; if the answer completed first, it is returned (its true final state)."""
        ctx.checkpoint()
        body = self.request_body(ctx.task)
        attempt = asyncio.ensure_future(self._attempt(ctx, body))
        watcher = asyncio.ensure_future(_until_cancel_requested(ctx))
        try:
            await asyncio.wait((attempt, watcher), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (attempt, watcher):
                task.cancel()
            await asyncio.gather(attempt, watcher, return_exceptions=True)
        if attempt.cancelled():  # only the watcher's end cancels it
            if not watcher.cancelled() and (failure := watcher.exception()) is not None:
                raise failure
            ctx.checkpoint()  # the operator asked to cancel: raises TaskCanceled
            raise TaskCanceled(ctx.task.task_id)
        try:
            result = attempt.result()
        except ProviderError as exc:
            if exc.kind in API_FAILURES_OF_A_PROXY:  # believed once the proxy is known to work
                exc = await blame_proxy(self.proxy, self.base_url, exc)
            if exc.kind in (ErrorKind.PROXY_UNREACHABLE, ErrorKind.PROXY_AUTH):
                raise self.proxy_backoff.failed(exc, ctx.clock.now()) from exc.__cause__
            redacted = without_secret(exc, self._api_key)
            if redacted is exc:
                raise
            # Not "from exc": the original, key and all, would print with the traceback.
            raise redacted from exc.__cause__
        self.proxy_backoff.passed()
        return result

    async def _attempt(self, ctx: TaskContext, body: dict[str, Any]) -> GenerationResult:
        if body["messages"][0]["role"] == "system":
            system, how = "with a system message", "with"
        elif ctx.task.system_prompt:
            system, how = "system prompt left out (need_empty_prompt)", "left_out"
        else:
            system, how = "no system message", "none"
        ctx.log(
            f"POST chat/completions: model {body['model']}, {system}",
            code=EventCode.API_REQUEST,
            params={"model": body["model"], "system": how},
        )
        try:
            async with self._client().stream("POST", "chat/completions", json=body) as response:
                refused = refused_by_proxy(self.proxy, self.base_url, response.status_code)
                if refused is not None:
                    raise refused
                if response.status_code != 200:
                    raw = await response.aread()
                    raise classify_http_error(
                        response.status_code, response.headers, raw, now=ctx.clock.now()
                    )
                hint = throttle_hint(response.headers)
                if hint is not None:
                    ctx.throttle_account(*hint)
                if response.headers.get("content-type", "").startswith("application/json"):
                    answer = await self._read_whole(ctx, response)  # a server that ignores stream
                else:
                    answer = await self._read_stream(ctx, response)
        except httpx.RequestError as exc:
            raise classify_transport_error(
                exc, connect_timeout_s=self.connect_timeout_s, idle_timeout_s=self.idle_timeout_s
            ) from exc
        result = answer.result()
        ctx.heartbeat(progress_chars=len(result.text))
        tokens = ", ".join(f"{k} {v}" for k, v in result.usage.items() if k.endswith("_tokens"))
        ctx.log(
            f"answer: {len(result.text)} chars"
            + (f", reasoning {len(result.reasoning)} chars" if result.reasoning else "")
            + (f"; {tokens}" if tokens else "")
            + ("; cut at the model's length limit" if result.truncated else ""),
            code=EventCode.API_ANSWER,
            params={
                "chars": len(result.text),
                "reasoning_chars": len(result.reasoning or ""),
                "truncated": result.truncated,
                "detail": tokens,
            },
        )
        return result

    async def _read_whole(self, ctx: TaskContext, response: httpx.Response) -> _Answer:
        raw = await response.aread()
        ctx.checkpoint()
        answer = _Answer()
        try:
            payload = json.loads(raw)
        except ValueError:
            raise _protocol("the response is not valid JSON") from None
        answer.take(payload, now=ctx.clock.now())
        return answer

    async def _read_stream(self, ctx: TaskContext, response: httpx.Response) -> _Answer:
        answer = _Answer()
        decoder = SseDecoder()
        last_beat = float("-inf")
        done = False
        # aiter_lines is an async generator typed as an iterator: close it when we stop early.
        lines_gen = cast(AsyncGenerator[str, None], response.aiter_lines())
        async with contextlib.aclosing(lines_gen) as lines:
            async for line in lines:
                event = decoder.feed(line)
                if event is None:
                    continue
                ctx.checkpoint()
                if event.data.strip() == "[DONE]":
                    done = True
                    break
                try:
                    payload = json.loads(event.data)
                except ValueError:
                    raise _protocol(f"a stream chunk is not JSON: {event.data[:80]!r}") from None
                answer.take(payload, now=ctx.clock.now())
                if (now := ctx.clock.monotonic()) - last_beat >= HEARTBEAT_EVERY_S:
                    ctx.heartbeat(progress_chars=answer.chars)
                    last_beat = now
        if not done and (event := decoder.flush()) is not None:
            if event.data.strip() == "[DONE]":
                done = True
            else:
                try:
                    answer.take(json.loads(event.data), now=ctx.clock.now())
                except ValueError:
                    raise _protocol("the last stream chunk is not JSON") from None
        if not done and answer.finish_reason is None:
            raise _protocol("the stream ended before the answer was complete")
        return answer
