"""Synthetic data for B5, as the app would hold it: the rows and the stream of changes for the
lag test, and a data dir with a long-used SQLite database for the startup test."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path
from typing import Any

from media_assistant.core.files.paths import Paths
from media_assistant.core.model.clock import SystemClock
from media_assistant.core.model.records import NewTask
from media_assistant.core.model.states import ModelKind
from media_assistant.core.store import Store, rollups
from media_assistant.core.store.db import open_engine, sqlite_url

# ------------------------------------------------------------------------------------------------
# lag: a 10k-row table and 200 changes per 100 ms

STATES = ("pending", "running", "success", "failed", "canceled")
LOAD_MIX = (0.50, 0.05, 0.35, 0.08, 0.02)  # 10k-row table: a big batch half done
UPDATE_MS = 100
UPDATES_PER_TICK = 200
ERRORS = (
    ("timeout", "no answer appeared within 120 s"),
    ("rate_limited", "the site says: 请求过于频繁，请稍后再试"),
    ("site_busy", "the site says: 服务器繁忙，请稍后再试"),
    ("network", "connection reset by peer"),
)


def table_rows(n: int, rng: random.Random, now: float) -> list[dict[str, Any]]:
    """What ``Store.view_rows`` returns for ``n`` tasks in a realistic mix of states."""
    rows = []
    for i in range(n):
        state = rng.choices(STATES, LOAD_MIX)[0]
        started = now - rng.uniform(30, 3600) if state != "pending" else None
        kind = "web" if i % 3 == 0 else "api"
        error = rng.choice(ERRORS) if state == "failed" else (None, None)
        rows.append(
            {
                "task_id": f"t{i:06d}",
                "seq": i + 1,
                "batch_id": f"batch-{i // 400:03d}",
                "title": None,
                "model": "deepseek-r1-web" if kind == "web" else "deepseek-chat",
                "model_kind": kind,
                "account_id": (f"{kind}-{i % 2 + 1}" if started is not None else None),
                "state": state,
                "attempt": 1 if started is not None else 0,
                "max_attempts": 3,
                "started_at": started,
                "heartbeat_at": now - rng.uniform(0, 14) if state == "running" else None,
                "finished_at": started + rng.uniform(8, 360)
                if started is not None and state not in ("running",)
                else None,
                "not_before": None,
                "cancel_requested": False,
                "progress_chars": 0,
                "error_kind": error[0],
                "error_message": error[1],
                "created_at": now - 7200 + i * 0.1,
                "priority": 0,
                "prompt_head": f"请为第 {i} 号产品写一段两百字左右的介绍，突出续航和价格优势。",
            }
        )
    return rows


def change_batches(
    rows: list[dict[str, Any]], ticks: int, rng: random.Random, now: float
) -> list[tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]]:
    """Per 100 ms tick: 200 task changes (claims, finishes, failures, retries) and heartbeats
    for every running task, precomputed so the measurement sees only the app's code."""
    state = {r["task_id"]: (r["state"], r["attempt"]) for r in rows}
    ids = list(state)
    out = []
    for tick in range(ticks):
        t = now + tick * UPDATE_MS / 1000
        changes: dict[str, dict[str, Any]] = {}
        for task_id in rng.sample(ids, UPDATES_PER_TICK):
            current, attempt = state[task_id]
            if current == "pending":
                attempt += 1
                change: dict[str, Any] = {
                    "state": "running",
                    "attempt": attempt,
                    "account_id": "api-1",
                    "started_at": t,
                    "heartbeat_at": t,
                    "finished_at": None,
                    "not_before": None,
                }
            elif current == "running":
                if rng.random() < 0.8:
                    change = {"state": "success", "finished_at": t}
                elif attempt < 3:
                    kind, message = rng.choice(ERRORS)
                    change = {
                        "state": "pending",
                        "not_before": t + rng.uniform(2, 60),
                        "error_kind": kind,
                        "error_message": message,
                        "started_at": None,
                        "account_id": None,
                    }
                else:
                    kind, message = rng.choice(ERRORS)
                    change = {
                        "state": "failed",
                        "finished_at": t,
                        "error_kind": kind,
                        "error_message": message,
                    }
            else:  # an operator retry puts a finished task back in the queue
                attempt = 0
                change = {
                    "state": "pending",
                    "attempt": 0,
                    "started_at": None,
                    "finished_at": None,
                    "error_kind": None,
                    "error_message": None,
                    "account_id": None,
                }
            state[task_id] = (change["state"], attempt)
            changes[task_id] = change
        beats = {
            task_id: {"heartbeat_at": t, "progress_chars": rng.randint(0, 3000)}
            for task_id, (s, _) in state.items()
            if s == "running"
        }
        out.append((changes, beats))
    return out


# ------------------------------------------------------------------------------------------------
# startup: a data dir with a long-used database

CONFIG = """
[browser]
headless = true

[[models]]
name = "deepseek-r1-web"
kind = "web"
need_empty_prompt = true

[[models]]
name = "kimi-web"
kind = "web"

[[models]]
name = "deepseek-chat"
kind = "api"

[[models]]
name = "qwen-plus"
kind = "api"

[[accounts]]
id = "web-1"
kind = "web"
site = "deepseek"
models = ["deepseek-r1-web"]
enabled = false

[[accounts]]
id = "web-2"
kind = "web"
site = "kimi"
models = ["kimi-web"]
enabled = false

[[accounts]]
id = "api-1"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MA_BENCH_KEY"
models = ["deepseek-chat", "qwen-plus"]
concurrency = 3
enabled = false
"""
MODELS = (
    ("deepseek-r1-web", ModelKind.WEB),
    ("kimi-web", ModelKind.WEB),
    ("deepseek-chat", ModelKind.API),
    ("qwen-plus", ModelKind.API),
)
_TOPICS = ("智能手机", "新能源汽车", "咖啡机", "跑步鞋", "降噪耳机", "空气净化器", "茶叶")
_ASKS = (
    "请写一篇面向年轻上班族的公众号文章，介绍{t}的选购要点，",
    "为电商详情页撰写{t}的产品描述，突出核心卖点和使用场景，",
    "给出十个关于{t}的短视频标题，要求口语化、有悬念，",
    "以资深编辑的口吻点评今年{t}市场的三大趋势，",
)
_DETAILS = (
    "语气亲切专业，避免堆砌术语；",
    "正文分三个部分，每部分配一个小标题；",
    "结合一位真实用户的使用体验展开；",
    "说明价格区间并给出不同预算的建议；",
    "最后用一句话引导读者在评论区留言；",
    "注意不要夸大宣传，符合广告法要求；",
    "字数控制在八百字左右，适合手机阅读；",
)
_ANSWER = "这是一段生成的正文内容，介绍产品特点、使用体验与购买建议。"  # 27 chars


def _prompt(rng: random.Random, i: int) -> str:
    text = rng.choice(_ASKS).format(t=rng.choice(_TOPICS))
    while len(text) < 190:
        text += rng.choice(_DETAILS)
    return text + f"（编号 {i}）"


def build_database(data_dir: Path, n: int, seed: int = 5) -> dict[str, Any]:
    """A data dir with ``n`` tasks as a long-used install has them: batches of 40..400, ~200-char
    Chinese prompts, mostly finished with ~1000-char results, some failed, a pending tail and a
    few running rows of a crashed session (the scheduler's start recovers them)."""
    t0 = time.perf_counter()
    paths = Paths.resolve(data_dir)
    paths.ensure()
    paths.config_file.write_text(CONFIG, encoding="utf-8")
    rng = random.Random(seed)
    store = Store(open_engine(sqlite_url(paths.database)), SystemClock())
    tasks: list[NewTask] = []
    batch = 0
    while len(tasks) < n:
        batch += 1
        model, kind = rng.choice(MODELS)
        for _ in range(min(rng.randint(40, 400), n - len(tasks))):
            i = len(tasks)
            title = f"第 {i} 篇" if rng.random() < 0.3 else None
            tasks.append(
                NewTask(f"t{i:06d}", model, kind, _prompt(rng, i), f"b{batch:04d}", title=title)
            )
    for start in range(0, n, 5000):
        store.submit(tasks[start : start + 5000])
    store.engine.dispose()
    now = time.time()
    updates, events = [], []
    # Running rows: API tasks only (a running web row needs an account of its own).
    tail = [i for i in range(int(n * 0.88), n) if tasks[i].model_kind is ModelKind.API]
    running = set(rng.sample(tail, min(5, len(tail))))
    for i, task in enumerate(tasks):
        fraction = i / n
        r = rng.random()
        if i in running:
            state = "running"
        elif fraction > 0.88:
            state = "pending"
        else:
            state = "success" if r < 0.91 else ("failed" if r < 0.98 else "canceled")
        started = now - (n - i) * 9.0 if state != "pending" else None
        finished = started + rng.uniform(8, 360) if started and state != "running" else None
        error = ("timeout", "no answer within 120 s") if state == "failed" else (None, None)
        result = _ANSWER * rng.randint(20, 60) if state == "success" else None
        account = ("api-1" if task.model_kind is ModelKind.API else "web-1") if started else None
        attempt = 0 if state == "pending" else (3 if state == "failed" else 1)
        updates.append(
            (
                state,
                attempt,
                account,
                started,
                started,
                finished,
                result,
                len(result or ""),
                error[0],
                error[1],
                "crashed-session" if state == "running" else None,
                task.task_id,
            )
        )
        if started is not None:
            lane = task.model_kind.value
            events += [
                (task.task_id, started, "state", lane, account, 1, f"[{lane} {account}] claimed"),
                (task.task_id, started + 1, "log", lane, account, 1, f"[{lane}] request sent"),
            ]
            if finished is not None:
                events.append((task.task_id, finished, "state", lane, account, 1, state))
    con = sqlite3.connect(paths.database)
    rollups.register_sqlite_functions(con)  # the rollups' triggers pack with them
    with con:
        con.executemany(
            "UPDATE tasks SET state=?, attempt=?, account_id=?, started_at=?, heartbeat_at=?, "
            "finished_at=?, result_text=?, progress_chars=?, error_kind=?, error_message=?, "
            "owner_id=? WHERE task_id=?",
            updates,
        )
        con.executemany(
            "INSERT INTO task_events (task_id, at, kind, lane, account_id, attempt, message) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            events,
        )
    counts = dict(con.execute("SELECT state, count(*) FROM tasks GROUP BY state").fetchall())
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return {
        "tasks": n,
        "batches": batch,
        "states": counts,
        "events": len(events) + n,
        "db_mb": paths.database.stat().st_size / 2**20,
        "build_s": time.perf_counter() - t0,
    }
