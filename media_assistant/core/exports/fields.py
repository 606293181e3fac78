"""What an export says of a task, whatever the format: the fields and their order, the English
or Chinese headers and words, a record's values and input columns, rows for tabular formats and
a task's Markdown section. The writers (``write``, ``xlsx``, ``docx``, ``folder``) share these;
the formula guard per format is described in :mod:`media_assistant.core.exports.write`."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from media_assistant.core.model.records import TaskRecord

# Order of the columns: what the task was given, its result, then the bookkeeping.
EXPORT_FIELDS = (
    "task_id",
    "batch_id",
    "title",
    "prompt",
    "system_prompt",
    "result_text",
    "state",
    "error_kind",
    "error_message",
    "model",
    "model_kind",
    "account_id",
    "workstation",  # team mode: the one that ran it last (empty on a workstation of its own)
    "attempt",
    "created_at",
    "started_at",
    "finished_at",
)
INPUTS_AFTER = "system_prompt"  # tabular formats put the source row's columns right after it
Headers = Literal["en", "zh"]
HEADER_LANGUAGES: tuple[Headers, ...] = ("en", "zh")

ZH_HEADERS = {
    "task_id": "任务ID",
    "batch_id": "批次",
    "title": "标题",
    "prompt": "提示词",
    "system_prompt": "系统提示词",
    "result_text": "结果",
    "state": "状态",
    "error_kind": "错误类型",
    "error_message": "错误信息",
    "model": "模型",
    "model_kind": "通道",
    "account_id": "账号",
    "workstation": "工作站",
    "attempt": "尝试次数",
    "created_at": "创建时间",
    "started_at": "开始时间",
    "finished_at": "完成时间",
}
# Words of the document formats (Markdown, DOCX) beside the headers.
_WORDS = {
    "en": {
        "inputs": "Inputs",
        "result": "Result",
        "error": "Error",
        "no_result": "(no result)",
        "input_suffix": " (input)",
        "batch": "Batch",
    },
    "zh": {
        "inputs": "输入",
        "result": "结果",
        "error": "错误",
        "no_result": "（无结果）",
        "input_suffix": "（输入）",
        "batch": "批次",
    },
}
# With Chinese headers the values that are kinds are Chinese words too (the window's words:
# tests/gui/test_chinese_window.py holds them to the catalogue); English keeps the kinds, stable
# for scripts. An id, a model's name or a message is never translated.
ZH_VALUES: dict[str, dict[str, str]] = {
    "state": {
        "pending": "等待中",
        "running": "运行中",
        "success": "成功",
        "failed": "失败",
        "canceled": "已取消",
    },
    "model_kind": {"web": "网页版", "api": "接口"},
    "error_kind": {
        "auth_rejected": "密钥被拒绝",
        "bad_request": "请求无效，已被拒绝",
        "context_too_long": "提示词超出模型长度限制",
        "content_policy": "被内容安全策略拦截",
        "insufficient_quota": "额度已用完",
        "login_required": "需要重新登录",
        "bad_input": "输入有误",
        "bad_config": "配置有误",
        "profile_in_use": "浏览器配置被其他程序占用",
        "no_account": "没有已启用的账号支持此模型",
        "deadline": "等待超过截止时间",
        "rate_limited": "触发限流",
        "site_busy": "网站繁忙",
        "captcha": "需要完成验证码",
        "leftover_generation": "该账号之前的回答仍在网站上生成",
        "server_error": "服务器错误",
        "network": "网络错误",
        "timeout": "超时",
        "protocol": "响应格式异常",
        "session_conflict": "同一会话中回答重叠",
        "site_changed": "网站页面已改版",
        "proxy_unreachable": "代理无法连接",
        "proxy_auth": "代理拒绝了密码",
        "browser_crashed": "浏览器崩溃",
        "lost": "心跳丢失",
        "quality_rejected": "回答未通过质量检查",
        "internal": "内部错误",
        "canceled": "已取消",
    },
}
TIMESTAMP_FIELDS = frozenset({"created_at", "started_at", "finished_at"})
# Excel evaluates a CSV cell starting with one of these (OWASP "CSV injection").
_CSV_FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def header_of(name: str, headers: Headers) -> str:
    return ZH_HEADERS.get(name, name) if headers == "zh" else name


def word(key: str, headers: Headers) -> str:
    return _WORDS[headers][key]


# ------------------------------------------------------------------------------- field values

Value = str | int | dt.datetime | None


def record_values(
    record: TaskRecord, *, typed: bool = False, headers: Headers = "en"
) -> dict[str, Value]:
    """The export fields of a record; timestamps as local ISO text, or (``typed``) as naive
    local datetimes for spreadsheet date cells; with Chinese ``headers`` the state, lane and
    error kind in Chinese words."""
    out: dict[str, Value] = {}
    for name in EXPORT_FIELDS:
        value: object = getattr(record, name)
        words = ZH_VALUES.get(name) if headers == "zh" else None
        if words is not None and isinstance(value, str):
            out[name] = words.get(value, value)
        elif name in TIMESTAMP_FIELDS:
            if not isinstance(value, int | float):
                out[name] = None
            elif typed:
                out[name] = local_datetime(value).replace(tzinfo=None, microsecond=0)
            else:
                out[name] = local_iso(value)
        elif value is None or isinstance(value, str | int):
            out[name] = value
        else:
            out[name] = str(value)
    return out


def record_inputs(record: TaskRecord) -> dict[str, str]:
    """The batch file's source row of a task ({} for pasted prompts)."""
    if not record.inputs_json:
        return {}
    try:
        data = json.loads(record.inputs_json)
    except ValueError:
        return {}
    return (
        {str(k): "" if v is None else str(v) for k, v in data.items()}
        if isinstance(data, dict)
        else {}
    )


def collect_input_columns(records: Iterable[TaskRecord]) -> list[str]:
    seen: dict[str, None] = {}
    for record in records:
        for key in record_inputs(record):
            seen.setdefault(key)
    return list(seen)


def tabular_header(headers: Headers, input_columns: Sequence[str]) -> list[tuple[str, str]]:
    """(key, header) per column: the fields with the input columns after ``INPUTS_AFTER``. An
    input column's key is ``input:<name>``; one named like a field header gets a suffix."""
    fixed = {header_of(name, headers) for name in EXPORT_FIELDS}
    out: list[tuple[str, str]] = []
    for name in EXPORT_FIELDS:
        out.append((name, header_of(name, headers)))
        if name == INPUTS_AFTER:
            for column in input_columns:
                shown = column + word("input_suffix", headers) if column in fixed else column
                out.append((f"input:{column}", shown))
    return out


def tabular_row(
    columns: Sequence[tuple[str, str]], values: Mapping[str, Any], inputs: Mapping[str, Any]
) -> list[Any]:
    return [
        inputs.get(key[6:]) if key.startswith("input:") else values.get(key) for key, _ in columns
    ]


def local_datetime(timestamp: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(timestamp, tz=dt.UTC).astimezone()


def local_iso(timestamp: float) -> str:
    """Epoch seconds as local ISO-8601 with offset, to the second: 2026-11-30T14:25:01+08:00."""
    return local_datetime(timestamp).isoformat("T", "seconds")


def one_newline_style(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def csv_safe(text: str) -> str:
    """A leading ' keeps Excel/LibreOffice from evaluating a CSV cell as a formula."""
    return "'" + text if text.startswith(_CSV_FORMULA_TRIGGERS) else text


def markdown_section(record: TaskRecord, headers: Headers, *, level: int = 2) -> str:
    """One task as Markdown: a heading (title, else task id), the bookkeeping in one line, the
    inputs, the prompt, the error if any, then the answer as it came."""
    row = record_values(record, headers=headers)
    title = row["title"] or row["task_id"]
    state = row["state"]
    parts = [f"{'#' * level} {title} — {state}", markdown_meta(row, headers)]
    inputs = record_inputs(record)
    if inputs:
        lines = [
            f"- **{k}**: {one_newline_style(v).replace(chr(10), ' ')}" for k, v in inputs.items()
        ]
        parts.append(f"**{word('inputs', headers)}**\n\n" + "\n".join(lines))
    parts.append(f"**{header_of('prompt', headers)}**\n\n" + _quoted(str(row["prompt"] or "")))
    if row["system_prompt"]:
        parts.append(
            f"**{header_of('system_prompt', headers)}**\n\n" + _quoted(str(row["system_prompt"]))
        )
    if row["error_kind"] or row["error_message"]:
        kind = row["error_kind"] or ""
        kind = (f" `{kind}`" if headers == "en" else f" {kind}") if kind else ""
        parts.append(f"**{word('error', headers)}**{kind}: {row['error_message'] or ''}".rstrip())
    result = row["result_text"]
    if isinstance(result, str) and result:
        parts.append(f"**{word('result', headers)}**\n\n" + one_newline_style(result).rstrip("\n"))
    elif not (row["error_kind"] or row["error_message"]):
        parts.append(f"*{word('no_result', headers)}*")
    return "\n\n".join(parts) + "\n"


def _quoted(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in one_newline_style(text).split("\n"))


def markdown_meta(row: Mapping[str, Value], headers: Headers) -> str:
    h = header_of
    parts = [
        f"{h('task_id', headers)} `{row['task_id']}`",
        f"{h('batch_id', headers)} `{row['batch_id']}`",
    ]
    parts.append(f"{h('model', headers)} `{row['model']}` ({row['model_kind']})")
    if row["account_id"]:
        parts.append(f"{h('account_id', headers)} `{row['account_id']}`")
    if row["workstation"]:
        parts.append(f"{h('workstation', headers)} `{row['workstation']}`")
    parts.append(f"{h('attempt', headers)} {row['attempt']}")
    parts += [f"{h(name, headers)} {row[name]}" for name in sorted(TIMESTAMP_FIELDS) if row[name]]
    return " · ".join(parts)
