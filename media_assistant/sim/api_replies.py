"""Sending one simulated generation over HTTP: paced like a real model, or broken on purpose.

Pacing: the first token after 10 % of the request's latency, then chunks evenly spaced until the
latency is used up. Faults shown here are the ones that need a started (or stuck) response:
``hang``, ``stall``, ``malformed`` and ``disconnect``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import NoReturn

from aiohttp import web

from media_assistant.sim.api_content import (
    ChunkWriter,
    Reply,
    completion_body,
    finish_reason,
    split_chunks,
)
from media_assistant.sim.api_faults import Fault

CHUNKS_BEFORE_FAULT = 3  # stall/disconnect/malformed: chunks sent before the fault shows
DROP_GRACE_S = 1.0  # how long a dropped request waits for aiohttp to notice the closed socket


class _Dropped(ConnectionResetError):
    """The simulator dropped the connection on purpose."""


class ReplySender:
    def __init__(self, closing: asyncio.Event) -> None:
        self._closing = closing  # set when the simulator stops

    async def hold(self, request: web.Request) -> NoReturn:
        """Go silent until the simulator stops (or the client gives up: aiohttp cancels us)."""
        await self._closing.wait()
        await self.drop(request)

    @staticmethod
    async def drop(request: web.Request) -> NoReturn:
        """Close the connection without finishing the response.

        aiohttp sees the transport close and cancels this handler (``handler_cancellation``), the
        quiet way a request ends when its client leaves; raising at once instead would be logged
        as a handler error and answered with a 500.
        """
        if request.transport is not None:
            request.transport.close()
        await asyncio.sleep(DROP_GRACE_S)
        raise _Dropped("connection dropped by the simulator")  # not reached in practice

    async def whole(
        self,
        request: web.Request,
        *,
        model: str,
        reply: Reply,
        latency: float,
        fault: Fault | None,
        headers: Mapping[str, str],
    ) -> web.StreamResponse:
        """A non-streaming ``chat.completion`` after the full latency."""
        if fault is Fault.HANG:
            await self.hold(request)
        if fault is Fault.STALL:
            response = web.StreamResponse(headers={"Content-Type": "application/json", **headers})
            await response.prepare(request)
            await response.write(b'{"id": "chatcmpl-stalled", "choices": [')
            await self.hold(request)
        await asyncio.sleep(latency)
        if fault is Fault.DISCONNECT:
            await self.drop(request)
        if fault is Fault.MALFORMED:
            broken = '{"id": "chatcmpl-broken", "choices": ['
            return web.Response(text=broken, content_type="application/json", headers=headers)
        body = completion_body(model, reply, finish_reason(fault))
        return web.json_response(body, headers=headers)

    async def stream(
        self,
        request: web.Request,
        *,
        model: str,
        reply: Reply,
        latency: float,
        include_usage: bool,
        fault: Fault | None,
        headers: Mapping[str, str],
    ) -> web.StreamResponse:
        """A ``chat.completion.chunk`` stream: reasoning first (if any), then the answer."""
        if fault is Fault.HANG:
            await self.hold(request)
        loop = asyncio.get_running_loop()
        started = loop.time()
        first_token = 0.1 * latency
        pieces: Sequence[tuple[str, str]] = [
            *(("reasoning_content", p) for p in split_chunks(reply.reasoning)),
            *(("content", p) for p in split_chunks(reply.content)),
        ]
        step = (latency - first_token) / max(1, len(pieces))
        writer = ChunkWriter(model, include_usage=include_usage)
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **headers}
        )
        await response.prepare(request)
        await asyncio.sleep(first_token)
        await response.write(writer.chunk({"role": "assistant", "content": ""}))
        for index, (field_name, piece) in enumerate(pieces):
            if index == CHUNKS_BEFORE_FAULT:
                if fault is Fault.STALL:
                    await self.hold(request)
                if fault is Fault.DISCONNECT:
                    await self.drop(request)
                if fault is Fault.MALFORMED:
                    await response.write(writer.malformed())
            await response.write(writer.chunk({field_name: piece}))
            # Against the clock, not step by step, so small sleeps do not add up to a late answer.
            await asyncio.sleep(max(0.0, started + first_token + (index + 1) * step - loop.time()))
        await response.write(writer.chunk({}, finish_reason=finish_reason(fault)))
        if include_usage:
            await response.write(writer.usage_chunk(reply.usage()))
        await response.write(writer.done())
        await response.write_eof()
        return response
