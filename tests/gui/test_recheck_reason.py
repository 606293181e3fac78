"""A held account's own re-check of its site (issue 27 item 8) as the accounts panel says it:
the verdict, then when the account looks again — in English and in a Chinese window."""

from __future__ import annotations

from media_assistant.core.model.accounts import RECHECK_REASON, AccountStatus
from media_assistant.core.model.states import AccountProblem, ModelKind
from media_assistant.gui.common.labels import account_reason
from tests.gui.test_chinese_window import zh  # noqa: F401 - the fixture

NOW = 1_800_000_000.0


def held(cooldown_reason: str | None) -> AccountStatus:
    return AccountStatus(
        account_id="web-1",
        kind=ModelKind.WEB,
        enabled=True,
        problem=AccountProblem.NEEDS_ATTENTION,
        problem_detail="the site's page changed: composer found (div#composer)",
        cooldown_until=NOW + 185,
        cooldown_reason=cooldown_reason,
        concurrency=None,
        browser_pid=None,
        browser_started_at=None,
        problem_code="site_changed",
    )


def test_the_panel_says_when_a_held_account_rechecks_its_site(qapp: object) -> None:
    said = account_reason(held(RECHECK_REASON), NOW)
    assert said.endswith("; re-checked by itself in 3m05s"), said
    assert "re-checked" not in account_reason(held("site_busy"), NOW)  # another cool-down
    assert "re-checked by itself in 3 min" in held(RECHECK_REASON).reason(NOW)  # `status`


def test_a_chinese_window_says_it_in_chinese(zh: None) -> None:  # noqa: F811
    said = account_reason(held(RECHECK_REASON), NOW)
    assert said.endswith("；3分05秒后自动重新检查网站"), said
