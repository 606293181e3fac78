"""submit, status, export, cancel, retry: they work while a scheduler runs in another process
(the database is shared; the scheduler notices cancels within half a second)."""

from __future__ import annotations

import argparse
from pathlib import Path

from media_assistant.commands.common import (
    open_services,
    print_json,
    read_batch_and_info,
    schedule_report,
    scheduler_holder,
    seen_text,
    submit_report,
    workstations_data,
)
from media_assistant.commands.pacing import pacing_status
from media_assistant.commands.queue import pause_line
from media_assistant.core.exports.write import (
    ExportScope,
    default_export_name,
    export_scope,
    resolve_format,
)
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.records import Pause
from media_assistant.core.model.states import ModelKind, TaskState
from media_assistant.core.rules.schedules import held_until, start_text
from media_assistant.core.store.backends.postgres import redacted
from media_assistant.services import Services

EXIT_OK, EXIT_SOME_FAILED = 0, 1


def cmd_submit(paths: Paths, args: argparse.Namespace) -> int:
    services = open_services(paths, args)
    try:
        tasks, info = read_batch_and_info(services, args)
        result = services.store.submit(
            tasks, max_attempts=services.config.scheduler.max_attempts, batch=info
        )
        schedule = schedule_report(services, result.batch_id)
    finally:
        services.close()
    print(submit_report(result))
    if schedule:
        print(schedule)
    return EXIT_OK


def status_data(services: Services) -> dict[str, object]:
    counts = services.store.counts()
    lanes: dict[str, dict[str, int]] = {}
    for kind in ModelKind:
        row = {s.value: counts.get((kind.value, s.value), 0) for s in TaskState}
        row["total"] = sum(row.values())
        lanes[kind.value] = row
    now = services.clock.now()
    statuses = services.accounts.all()
    pacing = pacing_status(services)
    accounts = []
    for a in services.config.accounts:
        st = statuses.get(a.id)
        accounts.append(
            {
                "id": a.id,
                "kind": a.kind.value,
                # No row yet (a read-only command does not create one): its configured state.
                "state": st.state(now).value if st else ("enabled" if a.enabled else "disabled"),
                "reason": st.reason(now) if st else "",
                "models": a.models,
                "concurrency": ((st.concurrency if st else None) or a.concurrency)
                if a.kind is ModelKind.API
                else 1,
                **({"pacing": pacing.get(a.id)} if a.kind is ModelKind.WEB else {}),
            }
        )
    pauses = services.store.pauses()
    scheduled = []
    for batch in services.store.batches():
        until = held_until(batch, now)
        if until is not None or batch.active_hours:
            scheduled.append(
                {
                    "batch": batch.batch_id,
                    "start_at": batch.start_at,
                    "active_hours": batch.active_hours,
                    "held_until": until,
                    "text": start_text(batch, now) or f"active hours {batch.active_hours}",
                }
            )
    return {
        "data_dir": str(services.paths.data_dir),
        "scheduler": scheduler_holder(services.paths),
        "lanes": lanes,
        "accounts": accounts,
        "pauses": [
            {
                "scope": p.scope,
                "target": p.target,
                "since": p.paused_at,
                "running": services.store.running_in(p.scope, p.target),
            }
            for p in pauses
        ],
        "schedules": scheduled,
        # Team mode: the shared database (no password) and every workstation on it; on a
        # workstation's own SQLite file, null and itself.
        "team_database": redacted(services.store_url) if services.store_url else None,
        "workstations": workstations_data(services),
        # Fair share (issue 30): per active batch its part of the team's capacity and the ETA
        # that part gives it (core/store/fair_reads.py).
        "shares": services.store.shares_report(),
    }


def cmd_status(paths: Paths, args: argparse.Namespace) -> int:
    services = open_services(paths, args, read_only=True, require_config=False)
    try:
        data = status_data(services)
    finally:
        services.close()
    if args.json:
        print_json(data)
        return EXIT_OK
    holder = data["scheduler"]
    print(f"data dir: {data['data_dir']}")
    print(
        "scheduler: "
        + (
            f"running (pid {holder['pid']} on {holder['host']})"
            if isinstance(holder, dict)
            else "not running"
        )
    )
    team = data["team_database"]
    if team:
        workstations = data["workstations"]
        assert isinstance(workstations, list)
        online = [w for w in workstations if w["online"]]
        print(f"team database: {team} (this workstation: {services.workstation})")
        print(f"Team: {len(online)} workstation{'s' if len(online) != 1 else ''} online")
        for w in workstations:
            state = (
                f"online, running {w['running']}"
                if w["online"]
                else f"offline, seen {seen_text(w['last_seen_s'])}"
            )
            held = f"; web accounts: {', '.join(w['web_accounts'])}" if w["web_accounts"] else ""
            print(f"  {w['workstation']}: {state}{held}")
    states = [s.value for s in TaskState] + ["total"]
    print(f"{'lane':<6}" + "".join(f"{s:>10}" for s in states))
    lanes = data["lanes"]
    assert isinstance(lanes, dict)
    for kind, row in lanes.items():
        print(f"{kind:<6}" + "".join(f"{row[s]:>10}" for s in states))
    accounts = data["accounts"]
    assert isinstance(accounts, list)
    if accounts:
        print("accounts:")
        for a in accounts:
            extra = f"  concurrency {a['concurrency']}" if a["kind"] == "api" else ""
            reason = f"  ({a['reason']})" if a["reason"] else ""
            paced = a.get("pacing")
            extra += f"  pacing: {paced['text'] or 'ready'}" if paced else ""
            print(f"  [{a['kind']}] {a['id']:<20} {a['state']:<22}{extra}{reason}")
    pauses = data["pauses"]
    assert isinstance(pauses, list)
    for p in pauses:
        line = pause_line(Pause(p["scope"], p["target"], p["since"]))
        if p["running"]:
            line += f": pausing after the current task ({p['running']} running)"
        print(f"paused: {line}")
    shares = data["shares"]
    assert isinstance(shares, list)
    if shares:
        print("shares:")
        for sh in shares:
            eta = f", done in ~{sh['eta_s'] / 60:.0f} min" if sh["eta_s"] is not None else ""
            who = f" ({sh['tenant']})" if sh["tenant"] else ""
            print(
                f"  {sh['batch']}{who}: {sh['share'] * 100:.0f} % of the team's capacity, "
                f"{sh['pending']} pending, {sh['running']} running{eta}"
            )
    schedules = data["schedules"]
    assert isinstance(schedules, list)
    for entry in schedules:
        print(f"batch {entry['batch']}: {entry['text']}")
    return EXIT_OK


def cmd_export(paths: Paths, args: argparse.Namespace) -> int:
    states = tuple(TaskState(s) for s in args.state) if args.state else None
    scope = ExportScope(
        task_ids=tuple(args.ids) if args.ids else None, batch_id=args.batch, states=states
    )
    output: Path | None = args.output
    if output is None:  # never a fixed name: the batch (or "tasks") and the time
        fmt = args.format or "xlsx"
        output = Path.cwd() / default_export_name(scope, fmt)
    else:
        fmt = resolve_format(output, args.format)
    services = open_services(paths, args, read_only=True, require_config=False)
    try:
        if args.ids:
            _check_known(services, args.ids)
        written = export_scope(services.store, scope, output, fmt, headers=args.headers)
    finally:
        services.close()
    print(f"{written} tasks written to {output}")
    return EXIT_OK


def cmd_cancel(paths: Paths, args: argparse.Namespace) -> int:
    if not args.ids and not args.batch:
        raise InputError("cancel: name task ids or --batch B")
    services = open_services(paths, args, require_config=False)
    try:
        if args.ids:
            _check_known(services, args.ids)
        result = services.store.request_cancel(args.ids or None, batch_id=args.batch)
    finally:
        services.close()
    print(
        f"canceled: {len(result.canceled)}; cancel requested (running, stops at its next "
        f"checkpoint): {len(result.requested)}; already finished: {len(result.unchanged)}"
    )
    return EXIT_OK


def cmd_retry(paths: Paths, args: argparse.Namespace) -> int:
    if args.batch and not args.failed:
        raise InputError("retry: --batch goes with --failed (or name task ids)")
    if not args.ids and not args.failed:
        raise InputError("retry: name task ids or --failed")
    services = open_services(paths, args, require_config=False)
    try:
        if args.ids:
            _check_known(services, args.ids)
        if args.batch and not services.store.batch_exists(args.batch):
            raise InputError(f"unknown batch {args.batch!r}")
        hopeless = services.store.failed_counts(args.batch)[1] if args.failed else 0
        retried = services.store.retry(
            args.ids or None,
            all_failed=args.failed,
            extra_attempts=services.config.scheduler.max_attempts,
            batch_id=args.batch,
        )
    finally:
        services.close()
    skipped = len(args.ids) - len(retried) if args.ids else 0
    print(
        f"{len(retried)} tasks back to pending"
        + (f"; {skipped} skipped (not failed or canceled)" if skipped else "")
        + (
            f"; {hopeless} left out (content policy, prompt too long or bad input: they "
            "would fail the same way; retry them by id)"
            if hopeless
            else ""
        )
    )
    if retried and scheduler_holder(paths) is None:
        print("no scheduler is running: start one with 'media-assistant run'")
    return EXIT_OK


def _check_known(services: Services, ids: list[str]) -> None:
    found = {r.task_id for r in services.store.get_many(ids)}
    unknown = [i for i in ids if i not in found]
    if unknown:
        raise InputError("unknown task id(s): " + ", ".join(unknown[:20]))
