"""In a team every workstation's app derives the same notices from the shared queue; a webhook
carries each one once (the first workstation to claim its key sends it), not once per PC."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from media_assistant.core.files.paths import Paths
from media_assistant.core.model.states import NoticeKind
from media_assistant.core.notices.center import Notice, batch_notice
from media_assistant.notices_runtime import Notices
from media_assistant.services import Services
from tests.conftest import make_tasks

CONFIG = """
[team]
workstation = "{name}"

[[webhooks]]
kind = "json"
url_env = "MA_TEAM_HOOK_URL"
"""


def workstation(tmp_path: Path, name: str, url: str) -> tuple[Services, Notices, list[Notice]]:
    data = tmp_path / name
    data.mkdir()
    (data / "config.toml").write_text(CONFIG.format(name=name), encoding="utf-8")
    services = Services.open(Paths.resolve(data), store_url=url)
    notices = Notices(services)
    sent: list[Notice] = []
    assert notices.sender is not None
    notices.sender.send_soon = sent.append  # type: ignore[method-assign]
    return services, notices, sent


async def test_a_batch_that_ends_is_sent_to_the_webhooks_once_for_the_team(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MA_TEAM_HOOK_URL", "http://127.0.0.1:9/hook")
    stations = [workstation(tmp_path, f"pc-{i}", pg_url) for i in (1, 2, 3)]
    services = stations[0][0]
    services.store.submit(make_tasks(2, batch="b1"))
    for task_id in ("api-000", "api-001"):
        claim = services.store.claim_next(
            kind=make_tasks(1)[0].model_kind,
            account_id="api-1",
            models=["api-model"],
            owner_id="o",
            deadline_s=60,
        )
        assert claim is not None and claim.task_id == task_id
        assert services.store.finish_success(claim, "ok")
    # Each workstation's notice center derives the batch's end (at its own moment).
    for i, (_, notices, _) in enumerate(stations):
        notices._to_webhooks(batch_notice("b1", {"success": 2}, 1000.0 + i))
    for _, notices, _ in stations:
        await asyncio.gather(*notices._claims)
    assert sum(len(sent) for _, _, sent in stations) == 1
    # A later episode of the same batch (a retry ended it again) is news once more.
    retried = batch_notice("b1", {"success": 1, "failed": 1}, 2000.0)
    for _, notices, _ in stations:
        notices._to_webhooks(retried)
        await asyncio.gather(*notices._claims)
    assert sum(len(sent) for _, _, sent in stations) == 2
    # A workstation's own disk is its own notice: never deduplicated away.
    disk = Notice(NoticeKind.DISK_LOW, str(tmp_path / "pc-2"), 3000.0, {"free_mb": 10})
    stations[1][1]._to_webhooks(disk)
    assert stations[1][2][-1] is disk
    for s, _, _ in stations:
        s.store.engine.dispose()
