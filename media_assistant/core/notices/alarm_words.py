"""An alarm's words (issue 31: core/metrics/alarms.py), in Chinese and English, for webhooks and
the terminal; the window words its list through its own catalogue (gui/notices)."""

from __future__ import annotations

from collections.abc import Mapping

_LANE_ZH = {"web": "网页版", "api": "接口"}  # as the window names the lanes
_TITLES = {
    "timeout_rate": ("{lane}通道超时过多", "Too many timeouts on the {lane} lane"),
    "failure_rate": (
        "{lane}通道失败和延后过多",
        "Too many failures and deferrals on the {lane} lane",
    ),
    "quota_use": ("API 账号 {s} 的配额快用完了", "API account {s} is near its quota"),
    "backlog_growing": ("{lane}通道积压在增长", "The {lane} lane's backlog keeps growing"),
    "p90_total": ("{lane}通道任务耗时过长", "Tasks take too long on the {lane} lane"),
}


def _pct(value: float) -> str:
    return f"{value * 100:.0f}%"


def alarm_text(
    cleared: bool, subject: str, params: Mapping[str, str | int | float], language: str
) -> tuple[str, str]:
    """(title, text) of an alarm notice (``cleared``: it is back under its threshold)."""
    zh = language == "zh"
    kind = str(params.get("alarm", ""))
    lane = _LANE_ZH.get(subject, subject) if zh else subject
    zh_title, en_title = _TITLES.get(kind, ("{s}：告警", "{s}: alarm"))
    title = (zh_title if zh else en_title).format(lane=lane, s=subject)
    if cleared:
        return (
            (f"已恢复：{title}", "已回到阈值以内")
            if zh
            else (f"Cleared: {title}", "back under its threshold")
        )
    value, threshold = float(str(params.get("value", 0))), float(str(params.get("threshold", 0)))
    words = {
        "minutes": f"{float(str(params.get('minutes', 0))):g}",
        "value": _pct(value),
        "threshold": _pct(threshold),
        "count": f"{value:g}",
        "start": f"{threshold:g}",
        "seconds": f"{value:.0f}",
        "bound": f"{threshold:.0f}",
    }
    return title, _TEXTS.get(kind, _TEXTS["p90_total"])[0 if zh else 1].format(**words)


_TEXTS = {
    "timeout_rate": (
        "最近 {minutes} 分钟的尝试中超时占 {value}（阈值 {threshold}）",
        "timeouts: {value} of the attempts in the last {minutes} min (threshold {threshold})",
    ),
    "failure_rate": (
        "最近 {minutes} 分钟的尝试中失败和延后占 {value}（阈值 {threshold}）",
        "failures and deferrals: {value} of the attempts in the last {minutes} min "
        "(threshold {threshold})",
    ),
    "quota_use": (
        "连续 {minutes} 分钟每分钟用量至少为限额的 {value}（阈值 {threshold}）",
        "at least {value} of its per-minute limit for {minutes} min (threshold {threshold})",
    ),
    "backlog_growing": (
        "最近 {minutes} 分钟积压从 {start} 增加到 {count} 个任务，而该通道有账号空闲",
        "from {start} to {count} tasks in {minutes} min while an account of the lane sat idle",
    ),
    "p90_total": (
        "最近 {minutes} 分钟端到端 P90 为 {seconds} 秒（上限 {bound} 秒）",
        "p90 end to end {seconds} s in the last {minutes} min (bound {bound} s)",
    ),
}
