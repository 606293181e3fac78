"""The browser driver runs on its own thread with its own asyncio loop.

On Windows, where most operators are, qasync's loop has open subprocess bugs and Playwright
refuses selector loops; a dedicated standard loop (the Proactor there) avoids both, and keeps
Playwright's traffic off the GUI loop everywhere. Lanes await it through
``run_coroutine_threadsafe`` + ``wrap_future`` (≈0.3 ms a round trip); cancelling the awaiting
task cancels the browser-side coroutine.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class BrowserService:
    def __init__(self, name: str = "browser-driver") -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            raise RuntimeError("browser service not started")
        return self._loop

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        self._ready.clear()
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()
        self._ready.wait()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()  # the Proactor on Windows, a selector loop elsewhere
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            try:
                pending = asyncio.all_tasks(loop)
                for task in pending:
                    task.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the driver's loop and await its result from the caller's loop."""
        if not self.running:
            coro.close()
            raise RuntimeError("browser service not running")
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return await asyncio.wrap_future(future)

    def call_blocking(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """From synchronous code (CLI commands, shutdown)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self, timeout: float = 10.0) -> None:
        if self._loop is None or self._thread is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.error("browser driver thread did not stop within %.0f s", timeout)
        self._thread = None
        self._loop = None
