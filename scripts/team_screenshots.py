"""Screenshots of team mode: the main window on a team database with another workstation's web
accounts and the Workstation column, the set-up window's Team database page after *Test
connection*, and the banner while the database is away — a whole screen, one language a run:

    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python scripts/team_screenshots.py \
        docs/screenshots 1366x768 zh_CN
    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/team_screenshots.py \
        docs/screenshots 1600x1000 en

It starts a PostgreSQL server of its own in a temporary folder (tests/support/postgres.py, as the
test suite does), puts two other workstations on it (pc-03 online with two web accounts and
tasks it runs, pc-02 gone since a while), then the real app as pc-01 (its own web account on the
simulated site), and saves team-window, team-database and team-banner PNGs. Look at them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import sys, time
from pathlib import Path
import keyring
import tomlkit
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
import media_assistant.app as app_module
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store.sessions import SessionStore
from media_assistant.gui.accounts.setup_dialog import SetupDialog
from media_assistant.gui.window.main_window import MainWindow
from media_assistant.services import Services
from tests.support.file_keyring import FileKeyring
from tests.support.postgres import PASSWORD, PASSWORD_ROLE, start_server
import psycopg

out, suffix, lang, home = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(home))
import os
os.environ["MA_TEST_KEYRING_FILE"] = str(home / "keyring.json")
keyring.set_keyring(FileKeyring())
server = start_server()
server.ensure_password_role()
with psycopg.connect(server.admin_url(), autocommit=True) as conn:
    conn.execute(f'CREATE DATABASE media OWNER {PASSWORD_ROLE}')
url = f"postgresql://{PASSWORD_ROLE}@127.0.0.1:{server.port}/media"
import os
os.environ["PGPASSWORD"] = PASSWORD  # the workstations' libpq finds it (the page tests typed)

def config(data, workstation, web):
    doc = {
        "models": [{"name": "deepseek-web", "kind": "web"}],
        "accounts": [
            {"id": a, "kind": "web", "site": "fake", "models": ["deepseek-web"]} for a in web
        ],
        "store": {"url": url},
        "team": {"workstation": workstation},
        "simulation": {"web_latency_s": [6.0, 14.0], "seed": 7},
        "ui": {"language": lang},
    }
    data.mkdir(parents=True, exist_ok=True)
    (data / "config.toml").write_text(tomlkit.dumps(doc), encoding="utf-8")
    return Paths.resolve(data)

gone = Services.open(config(home / "pc-02", "pc-02", ["ds-web-5"]))
sessions = SessionStore(gone.engine, SystemClock())
sessions.close(sessions.open(workstation="pc-02", app_version="0.9.0"))
gone.close()
other = Services.open(config(home / "pc-03", "pc-03", ["ds-web-3", "ds-web-4"]))
beats = SessionStore(other.engine, SystemClock())
session = beats.open(workstation="pc-03", app_version="1.0.0")
prompts = ["春季护肤笔记", "保温杯五个标题", "咖啡店开业文案", "周末露营清单", "新品口红测评",
           "健身餐一周食谱", "猫粮选购指南", "城市骑行路线"]
other.store.submit([NewTask(f"t{i:02d}", "deepseek-web", ModelKind.WEB,
                            f"{p}：写一篇小红书笔记", "春季新品")
                    for i, p in enumerate(prompts)])
for account in ("ds-web-3", "ds-web-4"):
    claim = other.store.claim_next(kind=ModelKind.WEB, account_id=account,
                                   models=("deepseek-web",), owner_id=session, deadline_s=900,
                                   workstation="pc-03")
    if account == "ds-web-3":
        time.sleep(4)  # a generation that took a while: the lane's ETA has a duration to use
        other.store.finish_success(claim, "……")
        claim = other.store.claim_next(kind=ModelKind.WEB, account_id=account,
                                       models=("deepseek-web",), owner_id=session,
                                       deadline_s=900, workstation="pc-03")
app = QApplication(sys.argv[:1])
state = {"ticks": 0}

def shot(name):
    app.primaryScreen().grabWindow(0).save(str(out / f"{name}-{suffix}-{lang}.png"))

def top(kind):
    return next((w for w in QApplication.topLevelWidgets()
                 if isinstance(w, kind) and w.isVisible()), None)

def later(fn, ms=400):
    QTimer.singleShot(ms, fn)

def beat():
    beats.beat(session)
    QTimer.singleShot(3000, beat)

def wait_for_window():
    w = top(MainWindow)
    if w is None or not w.team_view.status.text():
        later(wait_for_window, 300)
        return
    state["w"] = w
    rows = w.model.rows()
    if sum(r.state == "running" for r in rows) < 3 and state["ticks"] < 60:
        state["ticks"] += 1
        later(wait_for_window, 300)
        return
    later(window_shot, 1500)

def window_shot():
    shot("team-window")
    w = state["w"]
    dialog = w.open_setup()
    dialog.tabs.setCurrentWidget(dialog.team_tab)
    page = dialog.team_page
    later(lambda: test(page), 800)

def test(page):
    page.test_button.click()
    later(lambda: page_shot(page), 2500)

def page_shot(page):
    shot("team-database")
    page.window().close()
    server.stop("fast")
    later(banner_shot, 9000)

def banner_shot():
    shot("team-banner")
    server.start()
    later(lambda: state["w"].close(), 4000)

beat()
later(wait_for_window, 500)
try:
    code = app_module.main(data_dir=config(home / "pc-01", "pc-01", ["ds-web-1"]).data_dir)
finally:
    beats.close(session)
    other.close()
    server.destroy()
sys.exit(code)
"""


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots").resolve()
    suffix = sys.argv[2] if len(sys.argv) > 2 else "1366x768"
    lang = sys.argv[3] if len(sys.argv) > 3 else "zh_CN"
    locale = {"zh_CN": "zh_CN.UTF-8", "en": "en_US.UTF-8"}[lang]
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ma-shot-") as tmp:
        os.chmod(tmp, 0o755)  # the PostgreSQL server runs as its own user under root
        env = {
            **os.environ,
            "LANG": locale,
            "LC_ALL": locale,
            "LANGUAGE": lang,
            "MEDIA_ASSISTANT_NO_ERROR_DIALOG": "1",
            "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        }
        subprocess.run(
            [sys.executable, "-c", CHILD, str(out), suffix, lang, tmp],
            env=env,
            check=True,
            timeout=300,
        )
    print(f"{lang}: {out}/team-window-{suffix}-{lang}.png, team-database-…, team-banner-…")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
