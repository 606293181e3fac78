"""The words for a web account's pacing (core/rules/pacing.py's PacingView), in the operator's
language: "next task in 1:42", "3 of 4 in 30 min", "cooling down: captcha, 44 min",
"paused until 08:00". The core returns kinds and times; only the words live here."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from media_assistant.core.rules.pacing import (
    Hold,
    PacingView,
    clock_text,
    time_of_day,
)

_RISK_KINDS: dict[str, object] = {
    "captcha": QT_TRANSLATE_NOOP("PacingKind", "captcha"),
    "rate_limited": QT_TRANSLATE_NOOP("PacingKind", "rate limit"),
    "busy": QT_TRANSLATE_NOOP("PacingKind", "site busy"),
    "login_lost": QT_TRANSLATE_NOOP("PacingKind", "login lost"),
    "conflict": QT_TRANSLATE_NOOP("PacingKind", "site conflict"),
}


def risk_kind(kind: str | None) -> str:
    source = _RISK_KINDS.get(kind or "")
    return kind or "" if source is None else QCoreApplication.translate("PacingKind", str(source))


def minutes(seconds: float) -> str:
    """``44 min`` / ``2 h 05 min``."""
    total = max(1, -(-int(seconds) // 60))
    if total < 60:
        return QCoreApplication.translate("Pacing", "%1 min", "minutes").replace("%1", str(total))
    return (
        QCoreApplication.translate("Pacing", "%1 h %2 min", "hours and minutes")
        .replace("%1", str(total // 60))
        .replace("%2", f"{total % 60:02d}")
    )


def window(seconds: float) -> str:
    """The length of a pacing window: ``30 min`` / ``1 h`` / ``90 s``."""
    if seconds < 120:
        return QCoreApplication.translate("Pacing", "%1 s", "seconds").replace(
            "%1", f"{seconds:.0f}"
        )
    if seconds % 3600 == 0:
        return QCoreApplication.translate("Pacing", "%1 h", "hours").replace(
            "%1", f"{seconds / 3600:.0f}"
        )
    return QCoreApplication.translate("Pacing", "%1 min", "minutes").replace(
        "%1", str(round(seconds / 60))
    )


def hold_text(v: PacingView, now: float) -> str:
    """Why the account waits and until when (empty when it may start now)."""
    until = time_of_day(v.ready_at, now)
    if v.hold is Hold.GAP:
        return QCoreApplication.translate("Pacing", "next task in %1").replace(
            "%1", clock_text(v.wait_s)
        )
    if v.hold is Hold.WINDOW:
        return QCoreApplication.translate("Pacing", "window full, next task in %1").replace(
            "%1", clock_text(v.wait_s)
        )
    if v.hold is Hold.COOLDOWN:
        return (
            QCoreApplication.translate("Pacing", "cooling down: %1, %2", "risk kind, time left")
            .replace("%1", risk_kind(v.cooldown_kind))
            .replace("%2", minutes(v.wait_s))
        )
    if v.hold is Hold.PAUSED:
        return QCoreApplication.translate(
            "Pacing", "paused until %1 (risk signals in a row)"
        ).replace("%1", until)
    if v.hold is Hold.OFF_HOURS:
        return (
            QCoreApplication.translate("Pacing", "paused until %1 (active hours %2)")
            .replace("%1", until)
            .replace("%2", v.active_hours or "")
        )
    if v.hold is Hold.DAILY_CAP:
        return QCoreApplication.translate("Pacing", "daily cap reached, paused until %1").replace(
            "%1", until
        )
    return ""


def counts_text(v: PacingView) -> str:
    """``3 of 4 in 30 min · 12 of 50 today`` (the limits that are set)."""
    parts = []
    if v.window_limit is not None:
        parts.append(
            QCoreApplication.translate(
                "Pacing", "%1 of %2 in %3", "prompts used of the limit, in the window"
            )
            .replace("%1", str(v.window_used or 0))
            .replace("%2", str(v.window_limit))
            .replace("%3", window(v.window_s))
        )
    if v.daily_cap is not None:
        parts.append(
            QCoreApplication.translate("Pacing", "%1 of %2 today", "prompts used of the daily cap")
            .replace("%1", str(v.today_used))
            .replace("%2", str(v.daily_cap))
        )
    return " · ".join(parts)


def pacing_text(v: PacingView, now: float) -> str:
    return " · ".join(p for p in (hold_text(v, now), counts_text(v)) if p)


def pause_notice(v: PacingView, now: float) -> str:
    """The notification text when the risk guard pauses an account."""
    return (
        QCoreApplication.translate("Pacing", "%1 risk signals in a row (%2): no new tasks until %3")
        .replace("%1", str(len((v.pause_reason or "").split(", "))))
        .replace("%2", ", ".join(risk_kind(k) for k in (v.pause_reason or "").split(", ")))
        .replace("%3", time_of_day(v.ready_at, now))
    )
