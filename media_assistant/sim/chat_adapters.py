"""Adapters for the loopback chat site other than the built-in one (issue 33's site updates).

Some site updates break only adapters that lean on what changed: test ids renamed, the send
button's text label gone, the answer wrapped in one more container (a ``>`` selector). The
"alt" adapter is the built-in ``sim`` adapter with such selectors — what an adapter written
against the page's test ids and labels looks like — so those updates break something.
"""

from __future__ import annotations

from media_assistant.assets import sites_dir

ALT_SELECTORS = {
    "input": """input = ['div[data-testid="chat-input"]']""",
    "send": """send = ['button:has-text("发送 / Send")']""",
    "answer": 'answer = [\'.message[data-role="assistant"] > '
    '[data-testid="assistant-message-content"]\']',
}
# Which adapter each site update breaks: "sim" (built-in) or "alt".
ADAPTER_FOR = {
    "composer_renamed": "sim",
    "send_moved": "sim",
    "answer_renamed": "sim",
    "done_missing": "sim",
    "classes_rotated": "sim",
    "decoy_composer": "sim",
    "decoy_send": "sim",
    "testids_renamed": "alt",
    "send_icon_only": "alt",
    "answer_wrapped": "alt",
}


def alt_adapter_text(text: str | None = None) -> str:
    """``text`` (default: the built-in sim adapter) with the alt selectors."""
    base = text if text is not None else (sites_dir() / "sim.toml").read_text(encoding="utf-8")
    lines = []
    for line in base.splitlines():
        key = line.split(" = ")[0]
        lines.append(ALT_SELECTORS.get(key, line) if " = [" in line else line)
    return "\n".join(lines) + "\n"
