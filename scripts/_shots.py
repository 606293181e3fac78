"""What the screenshot scripts share: run a child script (the real app under a given system
locale, on the demo, in a temporary data dir) once per UI language."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

LANGUAGES = (("zh_CN", "zh_CN.UTF-8"), ("en", "en_US.UTF-8"))


def shoot_each_language(child: str, *, demo_speed: str, timeout: float, saved: str) -> int:
    """``child`` gets ``OUT LANG DATA_DIR`` as its arguments; ``saved`` names what it wrote
    (``{out}`` and ``{lang}`` are filled in) for the line printed after each language."""
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots").resolve()
    out.mkdir(parents=True, exist_ok=True)
    for lang, locale in LANGUAGES:
        with tempfile.TemporaryDirectory(prefix="ma-shot-") as tmp:
            env = {
                **os.environ,
                "LANG": locale,
                "LC_ALL": locale,
                "LANGUAGE": lang,
                "MEDIA_ASSISTANT_DEMO_SPEED": demo_speed,
                "MEDIA_ASSISTANT_NO_ERROR_DIALOG": "1",
            }
            subprocess.run(
                [sys.executable, "-c", child, str(out), lang, tmp],
                env=env,
                check=True,
                timeout=timeout,
            )
        print(f"{lang}: " + saved.format(out=out, lang=lang))
    return 0
