"""What both loopback simulators share: running on a thread of their own (for tests and the
Qt app, which call them from synchronous code), and serving from a shell until a signal."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from typing import Protocol


class ThreadedServer:
    """Mixin for a server with ``async start(port) -> url`` and ``async stop()``."""

    thread_name = "simulator"
    _thread: threading.Thread | None = None
    _thread_loop: asyncio.AbstractEventLoop | None = None

    async def start(self, port: int = 0) -> str:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError

    def start_in_thread(self, port: int = 0) -> str:
        """Run the server on its own thread and event loop; returns its base URL."""
        if self._thread is not None:
            raise RuntimeError("the simulator already runs in a thread")
        loop = asyncio.new_event_loop()
        thread = threading.Thread(
            target=_run_loop, args=(loop,), name=self.thread_name, daemon=True
        )
        thread.start()
        try:
            url = asyncio.run_coroutine_threadsafe(self.start(port), loop).result(timeout=30)
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            raise
        self._thread, self._thread_loop = thread, loop
        return url

    def stop_in_thread(self) -> None:
        thread, loop = self._thread, self._thread_loop
        if thread is None or loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self.stop(), loop).result(timeout=30)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            self._thread = self._thread_loop = None


def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        leftovers = asyncio.all_tasks(loop)
        for task in leftovers:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*leftovers, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


class _Server(Protocol):
    async def start(self, port: int = 0) -> str: ...

    async def stop(self) -> None: ...


async def _serve(server: _Server, port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # Both signals end the wait the same way, through the loop (not through asyncio.run's
    # KeyboardInterrupt, which cancels whatever the main task is awaiting at that moment).
    # Installed before the URL is printed: whoever reads the URL may signal at once.
    with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows' loop
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
    print(await server.start(port), flush=True)
    try:
        await stop.wait()
    finally:
        await server.stop()


def serve_until_signal(server: _Server, port: int) -> int:
    """Print the URL, serve until Ctrl-C or SIGTERM, stop cleanly."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(server, port))
    return 0
