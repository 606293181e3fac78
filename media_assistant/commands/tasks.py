"""submit, status, export, cancel, retry: they work while a scheduler runs in another process
(the database is shared; the scheduler notices cancels within half a second)."""

from __future__ import annotations

import argparse
from pathlib import Path

from media_assistant.commands.common import (
    open_services,
    print_json,
    read_batch_args,
    scheduler_holder,
    submit_report,
)
from media_assistant.commands.pacing import pacing_status
from media_assistant.core.errors import InputError
from media_assistant.core.export import (
    ExportScope,
    default_export_name,
    export_scope,
    resolve_format,
)
from media_assistant.core.paths import Paths
from media_assistant.core.states import ModelKind, TaskState
from media_assistant.services import Services

EXIT_OK, EXIT_SOME_FAILED = 0, 1


def cmd_submit(paths: Paths, args: argparse.Namespace) -> int:
    services = open_services(paths, args)
    try:
        tasks = read_batch_args(services, args)
        result = services.store.submit(tasks, max_attempts=services.config.scheduler.max_attempts)
    finally:
        services.close()
    print(submit_report(result))
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
    return {
        "data_dir": str(services.paths.data_dir),
        "scheduler": scheduler_holder(services.paths),
        "lanes": lanes,
        "accounts": accounts,
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
    if not args.ids and not args.failed:
        raise InputError("retry: name task ids or --failed")
    services = open_services(paths, args, require_config=False)
    try:
        if args.ids:
            _check_known(services, args.ids)
        retried = services.store.retry(
            args.ids or None,
            all_failed=args.failed,
            extra_attempts=services.config.scheduler.max_attempts,
        )
    finally:
        services.close()
    skipped = len(args.ids) - len(retried) if args.ids else 0
    print(
        f"{len(retried)} tasks back to pending"
        + (f"; {skipped} skipped (not failed or canceled)" if skipped else "")
    )
    if retried and scheduler_holder(paths) is None:
        print("no scheduler is running: start one with 'media-assistant run'")
    return EXIT_OK


def _check_known(services: Services, ids: list[str]) -> None:
    found = {r.task_id for r in services.store.get_many(ids)}
    unknown = [i for i in ids if i not in found]
    if unknown:
        raise InputError("unknown task id(s): " + ", ".join(unknown[:20]))
