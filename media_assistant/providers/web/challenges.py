"""Verification pages every site may show, known without an adapter declaring them (issue 32).

A challenge — Cloudflare's "checking your browser" interstitial and its Turnstile widget, a
reCAPTCHA or hCaptcha frame, GeeTest, Aliyun's and Tencent's sliders — is added to every
adapter's ``markers.captcha``: it holds the account ("needs you: a verification in the
browser"), the task goes back without an attempt used, and the account resumes by itself once
its page is past it (core/lanes/web.py). Never a lost login, never a changed site.

What each looks like in the page comes from the vendors' public integration docs and the markup
their widgets insert (ids, class names, the frames' addresses). Only what shows while a person
is asked is listed: a widget that stays invisible (reCAPTCHA v3's badge, an invisible hCaptcha
before it challenges) is left out by its address (``size=invisible``) or by being hidden — the
page script counts only visible elements.
"""

from __future__ import annotations

from typing import Any

# Substrings of the page's address while Cloudflare's interstitial runs.
CHALLENGE_URLS = ("__cf_chl_", "/cdn-cgi/challenge-platform/")

CHALLENGE_SELECTORS = (
    # Cloudflare: the interstitial ("Just a moment…") and the Turnstile widget.
    "#challenge-stage",
    "#challenge-running",
    "#challenge-form",
    "#cf-challenge-running",
    ".cf-turnstile",
    'iframe[src*="challenges.cloudflare.com"]',
    # Google reCAPTCHA v2: the checkbox and the image challenge (not v3's invisible badge).
    'iframe[src*="/recaptcha/api2/anchor"]:not([src*="size=invisible"])',
    'iframe[src*="/recaptcha/enterprise/anchor"]:not([src*="size=invisible"])',
    'iframe[src*="/recaptcha/api2/bframe"]',
    'iframe[src*="/recaptcha/enterprise/bframe"]',
    # hCaptcha: the checkbox and the challenge frames.
    'iframe[src*="hcaptcha.com"][src*="frame=checkbox"]',
    'iframe[src*="hcaptcha.com"][src*="frame=challenge"]',
    # GeeTest v3 (panel, slider) and v4 (box).
    ".geetest_panel_box",
    ".geetest_holder",
    ".geetest_slider_button",
    ".geetest_box_wrap",
    ".geetest_captcha",
    # Aliyun: the "no captcha" slider (nc_) and Captcha 2.0's pop-up.
    ".nc_wrapper",
    ".nc-container",
    "#nc_1_n1z",
    '[id^="aliyunCaptcha-window"]',
    '[id^="aliyunCaptcha-sliding"]',
    # Tencent Cloud captcha (TCaptcha): its pop-up and frame.
    "#tCaptchaDyMainWrap",
    "#tcaptcha_iframe_dy",
    "#tcaptcha_iframe",
    'iframe[src*="captcha.qq.com"]',
    'iframe[src*="turing.captcha.qcloud.com"]',
)


def with_builtin_challenges(captcha: dict[str, Any]) -> dict[str, Any]:
    """An adapter's ``markers.captcha`` (as the page script takes it) with the built-in
    challenge markers after its own."""
    return {
        **captcha,
        "selectors": [*captcha.get("selectors", []), *CHALLENGE_SELECTORS],
        "url": [*captcha.get("url", []), *CHALLENGE_URLS],
    }
