"""Settings of the fake chat site (see :mod:`media_assistant.sim.chat_site`)."""

from __future__ import annotations

from dataclasses import dataclass

# What a site update does to an adapter (chat_page.html, "site updates"): the composer renamed,
# the send button moved (and Enter no longer sends), the answer's body renamed, the done
# marker (the action bar's Copy button) renamed, a new sign-in wall the login markers miss.
# Issue 33 adds what real sites' updates also do: every CSS-in-JS class hash rotated (the
# answer body and its action bar keep only hashed classes), test ids renamed, the send button's
# text label gone (an icon with an aria-label only), the answer wrapped in one more container,
# and look-alike decoys beside a renamed control: a hidden and a disabled second composer, a
# "Submit feedback" button beside a renamed Send.
BREAKAGES = frozenset(
    {
        "composer_renamed",
        "send_moved",
        "answer_renamed",
        "done_missing",
        "login_wall",
        "classes_rotated",
        "testids_renamed",
        "send_icon_only",
        "answer_wrapped",
        "decoy_composer",
        "decoy_send",
    }
)


@dataclass(frozen=True)
class ChatSiteConfig:
    latency_s: tuple[float, float] = (31.0, 370.0)  # generation time, uniform, per generation
    time_scale: float = 1.0  # multiplies every simulated duration; 0.01 = 100x faster
    seed: int | None = None  # latencies and answers repeat with a seed
    answer_chars: tuple[int, int] = (300, 1200)  # filler length after "Answer to: <text>\n\n"
    users: dict[str, str] | None = None  # username → password; None: any non-empty pair
    session_secret: str | None = None  # fixed: logins survive simulator restarts; None: random
    keep_generating_on_disconnect: bool = True  # real sites do; False: a gone page stops it
    # -- variations seen on real chat UIs (all off by default) ------------------------------
    markdown_answers: bool = False  # answers in Markdown, rendered to HTML on the page
    # ...with emphasis drawn by utility classes (<span class="font-bold">, as Tailwind/shadcn
    # UIs do), typography-plugin styles (italic quotes, a monospace table column) and a code
    # block header of the UI's own (its language label, a Copy button): markdown_answers only
    emphasis_classes: bool = False
    # ...with code blocks drawn by a code editor, as some chat UIs do: "codemirror" (CodeMirror
    # 6: a gutter of line numbers and fold markers, the language on .cm-content) or "monaco"
    # (lines positioned by style top and out of document order, spaces as no-break spaces, the
    # language on the editor's host as data-mode-id); "" for plain <pre> (markdown_answers only)
    code_editor: str = ""
    page_load_s: tuple[float, float] = (0.0, 0.0)  # a full page load takes this long (real s)
    new_chat_button: bool = False  # a client-side New chat button (no page load)
    new_chat_s: float = 0.4  # how long that button takes to show an empty chat (real s)
    # ...asks to confirm first, when there is a chat to clear: a dialog "Create New Chat — this
    # will clear your current chat history … Cancel / Confirm" (new_chat_button only)
    new_chat_confirm: bool = False
    # ...whose dialog zooms in for this long (real s; dialog libraries take ~0.15 s), and whose
    # Confirm button may ignore clicks that are not the user's own (event.isTrusted false)
    new_chat_dialog_s: float = 0.15
    new_chat_trusted_only: bool = False
    signin_flash_s: float = 0.0  # > 0: every full load first shows a sign-in screen this long
    models: tuple[str, ...] = ()  # a model picker with these models (first: the default)
    # > 0: once the server took a message, nothing shows generating (no stop button, no
    # answer) for this long (real s), then the answer streams as usual
    indicator_gap_s: float = 0.0
    slow_render_s: float = 4.0  # fault slow_render: the composer shows after this long (real s)
    # -- site updates (issue 21): a redesign that breaks an adapter's selectors, from the next
    # page load on (ChatSiteSimulator.break_page switches it while the site runs): see BREAKAGES
    breakage: str = ""

    def __post_init__(self) -> None:
        low, high = self.latency_s
        if not 0 <= low <= high:
            raise ValueError(f"latency_s must be 0 <= low <= high, got {self.latency_s}")
        if self.time_scale <= 0:
            raise ValueError("time_scale must be positive")
        if not 0 <= self.page_load_s[0] <= self.page_load_s[1]:
            raise ValueError(f"page_load_s must be 0 <= low <= high, got {self.page_load_s}")
        if min(self.new_chat_s, self.signin_flash_s, self.indicator_gap_s) < 0:
            raise ValueError("new_chat_s, signin_flash_s and indicator_gap_s must not be negative")
        if self.breakage and self.breakage not in BREAKAGES:
            raise ValueError(f"breakage must be one of {sorted(BREAKAGES)}, got {self.breakage!r}")
        if self.code_editor not in ("", "codemirror", "monaco"):
            raise ValueError(
                f"code_editor must be '', 'codemirror' or 'monaco', got {self.code_editor!r}"
            )
        if self.new_chat_dialog_s < 0:
            raise ValueError("new_chat_dialog_s must not be negative")
        if not 0 <= self.answer_chars[0] <= self.answer_chars[1]:
            raise ValueError(f"answer_chars must be 0 <= low <= high, got {self.answer_chars}")
