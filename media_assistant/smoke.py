"""``--smoke-test``: this installation, checked end to end, in about half a minute.

Meant for a frozen bundle fresh off the build (packaging/build.py, scripts/package.sh) and for a
wheel installed somewhere new (tests/packaging): offscreen, in a temporary data dir, it loads
every asset, runs the migrations, builds the main window, launches the browser it resolves
(headless, on about:blank, through the Playwright driver this installation carries), runs a
two-task demo batch (one web task in real Chromium on the simulated chat site, one API task on
the simulated API), shuts down, and prints ONE JSON object on stdout:

    {"frozen": true, "version": "0.1.0", "checks": {"assets": true, ...}, "seconds": 21.4, ...}

Exit 0 only when every check holds; a failed check's reason is in ``errors``. Extra keys:
``browser`` (what was launched), ``driver`` (node and cli.js used), ``resources`` (where the
assets were found), ``package`` (where media_assistant was imported from).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from media_assistant import __version__
from media_assistant.assets import is_frozen

BATCH_TIMEOUT_S = 120.0


class SmokeTest:
    def __init__(self, root: Path) -> None:
        self.root = root  # the temporary data dir
        self.checks: dict[str, bool] = {}
        self.errors: dict[str, str] = {}
        self.info: dict[str, Any] = {}

    def check(self, name: str, step: Callable[[], object]) -> Any:
        """Run one step; a falsy result or an exception fails the check (recorded, not raised)."""
        try:
            result = step()
        except Exception as exc:
            return self._failed(name, exc)
        return self._result(name, result)

    async def acheck(self, name: str, step: Callable[[], Any]) -> Any:
        try:
            result = await step()
        except Exception as exc:
            return self._failed(name, exc)
        return self._result(name, result)

    def _failed(self, name: str, exc: Exception) -> None:
        self.checks[name] = False
        self.errors[name] = f"{type(exc).__name__}: {exc}"
        self.errors[name + ".traceback"] = traceback.format_exc(limit=6)

    def _result(self, name: str, result: Any) -> Any:
        self.checks[name] = bool(result)
        if not result:
            self.errors.setdefault(name, "check returned nothing")
        return result


def run_smoke_test() -> int:
    started = time.monotonic()
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ.setdefault("MEDIA_ASSISTANT_NO_ERROR_DIALOG", "1")
    root = Path(tempfile.mkdtemp(prefix="media-assistant-smoke-"))
    smoke = SmokeTest(root)
    try:
        _run(smoke)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report = {
        "frozen": is_frozen(),
        "version": __version__,
        "checks": smoke.checks,
        "seconds": round(time.monotonic() - started, 1),
        **smoke.info,
    }
    if smoke.errors:
        report["errors"] = smoke.errors
    ok = bool(smoke.checks) and all(smoke.checks.values())
    # print(), not sys.stdout.write: a windowed Windows executable has no stdout (None), where
    # print does nothing; run the console one (media-assistant.exe) to read the report there.
    print(json.dumps(report), flush=True)  # ASCII: any console encoding can carry it
    return 0 if ok else 1


def _run(smoke: SmokeTest) -> None:
    from PySide6.QtCore import QCoreApplication, QSettings, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    import media_assistant
    from media_assistant.assets import app_icon_files, resources_dir

    smoke.info["package"] = str(Path(media_assistant.__file__).parent)
    smoke.check("assets", lambda: _assets(smoke, resources_dir(), app_icon_files()))
    smoke.check("adapters", _adapters)
    # Window geometry and the like go to the temporary dir, never the operator's settings.
    QCoreApplication.setOrganizationName("MediaAssistantSmokeTest")
    QCoreApplication.setApplicationName("Media Assistant smoke test")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(smoke.root))
    qInstallMessageHandler(_quiet_offscreen)
    app = QApplication.instance() or QApplication([sys.argv[0], "-platform", "offscreen"])
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)
    smoke.check("catalogues", _catalogues)
    smoke.check("icons", _icons)
    choice = smoke.check("browser_resolved", _resolve_browser)
    if choice is not None:
        smoke.info["browser"] = choice.description
    smoke.check("driver_bundled", lambda: _driver(smoke))
    smoke.check("team_database_driver", lambda: _team_driver(smoke))
    if choice is not None:
        smoke.check("browser_launch", lambda: _on_thread(_launch_headless(choice)))
    _demo_batch(smoke, app)


def _quiet_offscreen(_kind: object, _context: object, message: str) -> None:
    """The offscreen platform's notes (it cannot size windows by hints) are not findings."""
    if "propagateSizeHints" not in message:
        sys.stderr.write(message + "\n")


def _assets(smoke: SmokeTest, resources: Path, icons: list[Path]) -> bool:
    smoke.info["resources"] = str(resources)
    missing = [str(p) for p in icons if not p.is_file()]
    if missing:
        raise FileNotFoundError(", ".join(missing))
    return True


def _adapters() -> int:
    from media_assistant.providers.web.adapter import builtin_ids, load_adapter

    ids = builtin_ids()
    for site in ids:
        load_adapter(site=site)  # parsed and validated
    return len(ids) if "sim" in ids else 0


def _catalogues() -> bool:
    from PySide6.QtCore import QTranslator

    from media_assistant.assets import i18n_dir

    for language in ("zh_CN", "en"):
        translator = QTranslator()
        path = i18n_dir() / f"media_assistant_{language}.qm"
        if not translator.load(str(path)) or translator.isEmpty():
            raise FileNotFoundError(f"{path}: missing or empty")
        if language == "zh_CN" and translator.translate("App", "Media Assistant") in ("", None):
            raise ValueError(f"{path}: no translation for the app's name")
    from media_assistant.gui.common.i18n import qt_translations

    qt = qt_translations("zh_CN")  # Qt's own dialogs in Chinese (the file picker)
    if qt is None or not qt.translate("QFileDialog", "Look in:"):
        raise FileNotFoundError("qtbase_zh_CN.qm: Qt's own Chinese catalogue is missing")
    return True


def _icons() -> bool:
    from media_assistant.gui.common.app_icon import app_icon

    icon = app_icon()
    return not icon.isNull() and len(icon.availableSizes()) >= 4


def _resolve_browser() -> Any:
    from media_assistant.providers.web.executable import resolve_browser

    return resolve_browser(None)


def _driver(smoke: SmokeTest) -> bool:
    from media_assistant.providers.web.download import driver_command

    node, cli = driver_command()
    smoke.info["driver"] = {"node": node, "cli": cli}
    inside = True
    if is_frozen():  # the bundle's own driver, not one found elsewhere on the machine
        bundle = Path(sys._MEIPASS).resolve()  # type: ignore[attr-defined]
        inside = Path(node).resolve().is_relative_to(bundle)
    return inside and Path(node).is_file() and Path(cli).is_file()


def _team_driver(smoke: SmokeTest) -> bool:
    """Team mode's driver loads with its own libpq (the binary wheel's, bundled): nothing to
    install on an operator's PC to reach a team database."""
    import psycopg

    smoke.info["psycopg"] = {"version": psycopg.__version__, "impl": psycopg.pq.__impl__}
    return psycopg.pq.__impl__ in ("binary", "c") and psycopg.pq.version() > 0


def _on_thread(coro: Any) -> Any:
    """Playwright on a loop of its own (as the app's browser driver does)."""
    result: list[Any] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coro))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target, name="smoke-browser")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


async def _launch_headless(choice: Any) -> bool:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=choice.executable_path, channel=choice.channel, headless=True
        )
        try:
            page = await browser.new_page()
            await page.goto("about:blank")
            return bool(await page.evaluate("() => 6 * 7") == 42)
        finally:
            await browser.close()


def _demo_batch(smoke: SmokeTest, app: Any) -> None:
    """The demo's simulators and config, one web account, one task per lane."""
    from media_assistant.core.files.locks import DataDirLock
    from media_assistant.core.files.paths import Paths
    from media_assistant.demo import DemoEnvironment
    from media_assistant.gui.bridge.event_loop import AppEventLoop

    demo = DemoEnvironment(
        smoke.root,
        web_time_scale=0.01,
        api_time_scale=0.05,
        use_browser=True,
        headless=True,
        web_accounts=("smoke-web",),
    )
    if not smoke.check("demo_started", lambda: _start(demo)):
        demo.stop()
        return
    try:
        paths = Paths.resolve(demo.data_dir)
        services = smoke.check("migrations", lambda: _open_services(paths))
        if services is None:
            return
        try:
            loop = AppEventLoop(app)
            asyncio.set_event_loop(loop)
            with loop:
                loop.run_until_complete(_window_and_batch(smoke, services))
        finally:
            services.close()
    finally:
        demo.stop()
    smoke.check("shutdown", lambda: _nothing_left(paths, DataDirLock(paths.data_dir)))


def _start(demo: Any) -> bool:
    demo.start()  # simulators on loopback, the demo config, the web profile signed in
    return True


def _open_services(paths: Any) -> Any:
    from media_assistant.core.store import migrations, schema
    from media_assistant.services import Services

    services = Services.open(paths, team=False)
    with services.engine.connect() as conn:
        version = migrations.current_version(conn)
    if version != schema.SCHEMA_VERSION:
        services.close()
        raise RuntimeError(f"schema version {version}, expected {schema.SCHEMA_VERSION}")
    return services


async def _window_and_batch(smoke: SmokeTest, services: Any) -> None:
    """Everything the scheduler does in the smoke test is here, in one place."""
    from media_assistant.core.model.states import TERMINAL_STATES
    from media_assistant.demo import sample_batch
    from media_assistant.gui.bridge.controller import AppController

    batch = sample_batch("smoke")
    tasks = [
        next(t for t in batch if t.model_kind.value == "web"),
        next(t for t in batch if t.model_kind.value == "api"),
    ]
    services.bind_loop()
    scheduler = services.scheduler()
    controller = AppController(services, scheduler)
    window = await smoke.acheck("main_window", lambda: _window(controller))
    await scheduler.start()
    try:
        ids = list((await scheduler.submit(tasks)).added)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BATCH_TIMEOUT_S
        while loop.time() < deadline:
            rows = await services.async_store.get_many(ids)
            if len(rows) == len(ids) and all(r.state in TERMINAL_STATES for r in rows):
                break
            await asyncio.sleep(0.2)
        rows = await services.async_store.get_many(ids)
        states = {r.task_id: (r.model_kind, r.state, r.error_message) for r in rows}
        smoke.info["batch"] = {tid: state for tid, (_, state, _) in states.items()}
        smoke.check(
            "demo_batch",
            lambda: len(rows) == 2 and all(r.state == "success" for r in rows) or _why(states),
        )
        # The answers as operators take them away: Word (python-docx's template and lxml must
        # be in the bundle) and Excel, written as the window's export job writes them — in a
        # child process (core/exports/child.py: multiprocessing in the frozen app).
        await smoke.acheck(
            "exports", lambda: asyncio.to_thread(_exports, controller, smoke.root, ids)
        )
    finally:
        await scheduler.stop()
        await controller.close()
        if window is not None:
            window.close()
            window.deleteLater()


async def _window(controller: Any) -> Any:
    from media_assistant.gui.window.log_panel import LogModel
    from media_assistant.gui.window.main_window import MainWindow

    window = MainWindow(controller, LogModel())
    await controller.follower.start(await window.load())
    painted = window.next_paint()
    window.show()
    # Wait on the loop, not with processEvents(): a nested event loop inside a coroutine would
    # re-enter the asyncio tasks qasync runs from Qt's events.
    await asyncio.wait_for(painted, 10)
    return window if window.isVisible() and not window.windowIcon().isNull() else None


def _exports(controller: Any, root: Path, ids: list[str]) -> bool:
    from media_assistant.core.exports.write import ExportScope
    from media_assistant.core.model.jobs import JobControl

    for name in ("smoke.docx", "smoke.xlsx"):
        work = controller.export_work(root / name, None, ExportScope(task_ids=tuple(ids)))
        if work(JobControl(lambda done, total: None)) != len(ids):
            raise RuntimeError(f"{name}: not every task was written")
        if not (root / name).stat().st_size:
            raise RuntimeError(f"{name}: nothing written")
    return True


def _why(states: dict[str, tuple[str, str, str | None]]) -> bool:
    details = "; ".join(f"{t} [{k}] {state}: {error}" for t, (k, state, error) in states.items())
    raise RuntimeError(details or "no task was added")


def _nothing_left(paths: Any, lock: Any) -> bool:
    """The scheduler's lock is free again and no browser runs on the demo's profiles."""
    from media_assistant.providers.web.processes import browser_processes

    left = browser_processes(paths.profiles / "smoke-web")
    if left:
        raise RuntimeError(f"browser processes left: {[p.pid for p in left]}")
    lock.acquire()  # raises SchedulerBusy if anything still held it
    lock.release()
    return True
