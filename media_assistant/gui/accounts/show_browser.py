"""*Show browser* (an account's context menu, while a verification page holds it: issue 32).

The account's worker in the scheduler serves it (core/lanes/challenge_hold.py): a browser with
a window (the default) has it restored and brought to the front; one that runs without a window
(``[browser] headless = true``) is reopened in a window on the same page, with the same profile
and through the same proxy. The person passes the verification there; the
account works again by itself once its page is past it, and the window goes back to the
taskbar. What was done is said in the status bar, in the operator's words.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from media_assistant.core.model.provider import ShownBrowser, ShowOutcome
from media_assistant.gui.bridge.controller import AppController


def shown_text(account_id: str, shown: ShownBrowser) -> str:
    """What *Show browser* did, for the status bar."""
    source = {
        ShowOutcome.BROUGHT_FORWARD: QT_TRANSLATE_NOOP(
            "ShowBrowser",
            "%1's browser is in front: pass the verification there. The account works again "
            "by itself once the page is past it",
        ),
        ShowOutcome.REOPENED: QT_TRANSLATE_NOOP(
            "ShowBrowser",
            "%1's browser ran without a window: it was reopened in one, on the same page and "
            "through the same proxy. Pass the verification there; the account works again by "
            "itself once the page is past it",
        ),
        ShowOutcome.PASSED: QT_TRANSLATE_NOOP(
            "ShowBrowser", "%1 is past the verification already: it works again"
        ),
        ShowOutcome.NOT_HELD: QT_TRANSLATE_NOOP(
            "ShowBrowser", "%1 is not waiting at a verification page"
        ),
        ShowOutcome.FAILED: QT_TRANSLATE_NOOP("ShowBrowser", "%1's browser could not be shown: %2"),
    }[shown.outcome]
    words = QCoreApplication.translate("ShowBrowser", str(source))
    return words.replace("%1", account_id).replace("%2", shown.detail)


async def show_browser(controller: AppController, account_id: str) -> str:
    """Ask the scheduler to show the account's browser; the words saying what was done."""
    return shown_text(account_id, await controller.show_browser(account_id))
