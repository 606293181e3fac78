"""Verification pages of the simulated chat site, in the shapes real sites show (issue 32).

While a challenge is open for a user, every chat page load answers with it instead of the chat
(Cloudflare's interstitial with HTTP 403, as Cloudflare does; the others with 200 and the widget
in the middle of an otherwise empty page). Each page carries the markup its vendor's widget puts
in a page — the ids, class names and frame addresses the app's built-in markers look for
(providers/web/challenges.py) — and none of the ``sim`` adapter's own captcha selectors, so a
test proves the built-in markers. The frames' addresses sit behind ``about:blank#`` so nothing
is fetched from the vendors.

A person "passes" it with :meth:`ChallengeBook.pass_challenge` (``POST /_sim/challenge``) or the
page's own button; the page asks ``GET /api/challenge/state`` every half second and goes on to
the chat once it is passed, as Cloudflare's page continues by itself.
"""

from __future__ import annotations

import threading

_WIDGETS = {
    "cloudflare": """
<h1>Just a moment...</h1>
<div id="challenge-stage"><div id="challenge-running">Checking if the site connection is
secure</div></div>
<form id="challenge-form" action="/chat?__cf_chl_f_tk=sim" method="POST"></form>""",
    "turnstile": """
<div class="cf-turnstile" style="width:300px;height:65px">
<iframe style="width:300px;height:65px;border:0"
 src="about:blank#https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0/rcv0/0/sim/normal"
 title="Widget containing a Cloudflare security challenge"></iframe></div>""",
    "recaptcha": """
<div style="width:400px;height:580px">
<iframe style="width:400px;height:580px;border:0" title="recaptcha challenge expires in two minutes"
 src="about:blank#https://www.google.com/recaptcha/api2/bframe?hl=zh-CN&k=sim"></iframe></div>""",
    "hcaptcha": """
<div style="width:400px;height:600px">
<iframe style="width:400px;height:600px;border:0" title="Main content of the hCaptcha challenge"
 src="about:blank#https://newassets.hcaptcha.com/captcha/v1/sim/static/hcaptcha.html#frame=challenge&id=sim"></iframe>
</div>""",
    "geetest": """
<div class="geetest_panel geetest_wind">
<div class="geetest_panel_box" style="width:278px;height:285px">
<div class="geetest_slider"><div class="geetest_slider_button" style="width:60px;height:40px"></div>
</div><span>拖动滑块完成拼图</span></div></div>""",
    "aliyun": """
<div id="nc_1_wrapper" class="nc_wrapper" style="width:300px;height:34px">
<div id="nc_1__scale_text" class="nc_scale">
<span class="nc-lang-cnt">请按住滑块，拖动到最右边</span></div>
<span id="nc_1_n1z" class="nc_iconfont btn_slide"
 style="display:inline-block;width:40px;height:32px"></span>
</div>""",
    "tencent": """
<div id="tCaptchaDyMainWrap" style="width:360px;height:360px">
<iframe id="tcaptcha_iframe_dy" style="width:360px;height:360px;border:0"
 src="about:blank#https://turing.captcha.qcloud.com/cap_union_new_show?aid=sim"></iframe></div>""",
}
SHAPES = tuple(_WIDGETS)

_PAGE = """<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>{title}</title></head>
<body>
{widget}
<button class="sim-challenge-pass" type="button">我是真人 / I am human</button>
<script>
  const go = () => location.replace("/chat");
  document.querySelector(".sim-challenge-pass").addEventListener("click", async () => {{
    await fetch("/api/challenge/pass", {{ method: "POST" }});
    go();
  }});
  setInterval(async () => {{
    const r = await fetch("/api/challenge/state");
    if (r.ok && !(await r.json()).open) go();
  }}, 500);
</script>
</body></html>"""


def challenge_page(shape: str) -> tuple[str, int]:
    """The page (and its HTTP status) of an open challenge of ``shape``."""
    title = "Just a moment..." if shape == "cloudflare" else "安全验证 / Security check"
    status = 403 if shape == "cloudflare" else 200
    return _PAGE.format(title=title, widget=_WIDGETS[shape]), status


class ChallengeBook:
    """Open challenges per user (thread-safe: tests drive it from their own thread)."""

    def __init__(self) -> None:
        self._open: dict[str, str] = {}
        self._lock = threading.Lock()

    def show(self, user: str, shape: str) -> None:
        if shape not in _WIDGETS:
            raise ValueError(f"unknown challenge {shape!r} (known: {', '.join(SHAPES)})")
        with self._lock:
            self._open[user] = shape

    def open_for(self, user: str) -> str | None:
        with self._lock:
            return self._open.get(user)

    def pass_challenge(self, user: str) -> None:
        with self._lock:
            self._open.pop(user, None)

    def clear(self) -> None:
        with self._lock:
            self._open.clear()
