"""How much a candidate on a changed page looks like the element a step used (issue 33 item 2).

Pure: two descriptions (:mod:`fingerprint_js` ``describe``) in, a score in 0..1 out. The signals
and their weights follow Healenium's (tag 100, path 100, id 50, classes 40, text 30, other
attributes 30 out of 350) and Similo's lesson that many weak signals beat a few strong ones;
ours are scaled to points:

=================  ======  ==========================================================
signal             weight  how it is compared
=================  ======  ==========================================================
tag                10      equal
role               8       equal (implicit roles: a textarea is a textbox)
id                 10      string similarity (an id that looks generated is ignored)
test id            12      string similarity
aria-label         12      string similarity
placeholder        8       string similarity
name               5       string similarity
title              5       string similarity
role attributes    6       share of ``data-role``-like attributes with equal values
classes            8       Jaccard overlap of the **stable** classes (hashed CSS-in-JS
                           classes are never compared: they change with every build)
own text           6       string similarity (controls only: content keeps no text)
neighbours         10      Jaccard overlap of the labels of the buttons around it
DOM path           14      longest common subsequence of the root-to-element paths
position           6       1 − the distance between the centres (viewport units)
=================  ======  ==========================================================

A signal is counted only where the fingerprint or the candidate has something to compare (a
button without an id is not marked down for having none); the score is the points earned over
the points possible. String similarity is :class:`difflib.SequenceMatcher`'s ratio (the
standard library's: no dependency for one ratio), or for a label that grew a word ("Send" →
"Send message") 0.85 × the share of the shorter label's words in the longer one.

Choosing (``choose``): only visible candidates, and for a control or a composer only enabled
ones; the winner must score at least ``MIN_SCORE`` (Healenium's score cap, 0.5), have a
selector that finds it and nothing else visible, and lead the best candidate that is neither
its wrapper nor its part by at least ``MIN_MARGIN`` — a look-alike neighbour (``Submit
feedback`` beside ``Send``) close behind means no choice at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

MIN_SCORE = 0.5
MIN_MARGIN = 0.08

WEIGHTS: dict[str, float] = {
    "tag": 10,
    "role": 8,
    "id": 10,
    "testid": 12,
    "aria_label": 12,
    "placeholder": 8,
    "name": 5,
    "title": 5,
    "attrs": 6,
    "classes": 8,
    "text": 6,
    "neighbours": 10,
    "path": 14,
    "position": 6,
}


def _words(text: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)  # camelCase: two words
    return {w for w in re.split(r"[^0-9A-Za-z\u4e00-\u9fff]+", spaced.lower()) if w}


def similarity(a: str, b: str) -> float:
    """The strings' character similarity, or — a label that grew a word ("Send" → "Send
    message") — 0.85 × the share of the shorter one's words found in the longer one."""
    if not a and not b:
        return 1.0
    ratio = SequenceMatcher(None, a.lower(), b.lower()).ratio()
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return ratio
    contained = len(wa & wb) / min(len(wa), len(wb))
    return max(ratio, 0.85 * contained)


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    sa, sb = set(a), set(b)
    return len(sa & sb) / len(sa | sb) if sa | sb else 1.0


def lcs_ratio(a: Sequence[str], b: Sequence[str]) -> float:
    """The longest common subsequence of two DOM paths over the longer one."""
    if not a or not b:
        return 0.0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1] / max(len(a), len(b))


def _generated(value: str) -> bool:
    digits = sum(c.isdigit() for c in value)
    return digits >= 3 or (len(value) >= 8 and digits / len(value) > 0.25)


def signals(fp: dict[str, Any], cand: dict[str, Any]) -> dict[str, float | None]:
    """Each signal's similarity in 0..1, or None where there is nothing to compare."""
    out: dict[str, float | None] = {}
    out["tag"] = float(fp.get("tag") == cand.get("tag"))
    role_a, role_b = fp.get("role", ""), cand.get("role", "")
    out["role"] = float(role_a == role_b) if role_a or role_b else None
    for key in ("id", "testid", "aria_label", "placeholder", "name", "title"):
        a, b = str(fp.get(key) or ""), str(cand.get(key) or "")
        if key == "id":
            a, b = ("" if _generated(a) else a), ("" if _generated(b) else b)
        out[key] = similarity(a, b) if a or b else None
    fa, ca = fp.get("attrs") or {}, cand.get("attrs") or {}
    names = set(fa) | set(ca)
    out["attrs"] = sum(fa.get(n) == ca.get(n) for n in names) / len(names) if names else None
    fc, cc = fp.get("classes") or [], cand.get("classes") or []
    out["classes"] = jaccard(fc, cc) if fc or cc else None
    ft, ct = fp.get("text", ""), cand.get("text", "")
    out["text"] = similarity(ft, ct) if ft or ct else None
    fn, cn = fp.get("neighbours") or [], cand.get("neighbours") or []
    out["neighbours"] = jaccard(fn, cn) if fn or cn else None
    out["path"] = lcs_ratio(fp.get("path") or [], cand.get("path") or [])
    dx = float(fp.get("x", 0)) - float(cand.get("x", 0))
    dy = float(fp.get("y", 0)) - float(cand.get("y", 0))
    out["position"] = max(0.0, 1.0 - (dx * dx + dy * dy) ** 0.5)
    return out


def score(fp: dict[str, Any], cand: dict[str, Any]) -> float:
    earned = possible = 0.0
    for name, value in signals(fp, cand).items():
        if value is None:
            continue
        earned += WEIGHTS[name] * value
        possible += WEIGHTS[name]
    return earned / possible if possible else 0.0


@dataclass(frozen=True)
class Choice:
    """The candidate chosen for a key, or why none was."""

    selector: str | None
    score: float
    margin: float
    why: str  # "" when chosen; else the refusal in words
    runner_up: str = ""  # the best other candidate's selector (or description)

    @property
    def chosen(self) -> bool:
        return self.selector is not None


def _name(c: dict[str, Any]) -> str:
    if c.get("selectors"):
        return str(c["selectors"][0])
    return f"<{c.get('tag')}> {c.get('aria_label') or c.get('text') or ''}".strip()


def choose(
    fp: dict[str, Any],
    candidates: list[dict[str, Any]],
    *,
    control: bool,
    exclude: Sequence[str] = (),
) -> Choice:
    """The candidate to try for a key (see the module's docstring for the rules).

    ``exclude``: selectors already tried and disproved (the next best gets its chance)."""
    eligible = [c for c in candidates if c.get("visible") and (c.get("enabled") or not control)]
    if not eligible:
        return Choice(None, 0.0, 0.0, "no visible, enabled element of that kind on the page")
    ranked = sorted(((score(fp, c), c) for c in eligible), key=lambda p: -p[0])
    ranked = [(s, c) for s, c in ranked if not set(c.get("selectors") or []) & set(exclude)]
    if not ranked:
        return Choice(None, 0.0, 0.0, "every candidate was tried and failed its proof")
    best_score, best = ranked[0]
    related = set(best.get("ancestors") or [])
    rivals = [
        (s, c)
        for s, c in ranked[1:]
        if c.get("index") not in related and best.get("index") not in (c.get("ancestors") or [])
    ]
    second_score, second = rivals[0] if rivals else (0.0, None)
    margin = best_score - second_score
    runner = _name(second) if second is not None else ""
    if best_score < MIN_SCORE:
        return Choice(
            None,
            best_score,
            margin,
            f"the best match scores {best_score:.2f} (< {MIN_SCORE}): {_name(best)}",
            runner,
        )
    if margin < MIN_MARGIN:
        return Choice(
            None,
            best_score,
            margin,
            f"{_name(best)} ({best_score:.2f}) is not "
            f"clearly ahead of {runner} ({second_score:.2f})",
            runner,
        )
    if not best.get("selectors"):
        return Choice(None, best_score, margin, f"no selector finds {_name(best)} alone", runner)
    return Choice(str(best["selectors"][0]), best_score, margin, "", runner)
