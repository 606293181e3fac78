"""Issue 9, item 7: a task id becomes a file name only through ``safe_file_stem``."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from media_assistant.core.files.filenames import safe_file_stem
from media_assistant.providers.web.executable import resolve_browser
from media_assistant.providers.web.signin import visit
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.faults.conftest import mode, write_csv

CHROMIUM = "/usr/lib/chromium/chromium"
HOSTILE = [
    "../../x",
    "/tmp/pwn",
    "..",
    ".",
    "",
    "v1.2",
    "C:\\evil",
    "con",
    "a/b",
    "~root",
    "x" * 200,
]


def _safe(name: str) -> bool:
    return (
        name not in ("", ".", "..")
        and not any(c in name for c in '/\\:*?"<>|\0')
        and not name.startswith(".")
        and len(name.encode("utf-8")) <= 200
        and PurePosixPath(name).name == name
        and PureWindowsPath(name).name == name
        and name.split(".", maxsplit=1)[0].lower() not in ("con", "prn", "aux", "nul")
    )


@pytest.mark.parametrize("task_id", HOSTILE)
def test_hostile_ids_give_names_that_stay_in_their_folder(task_id: str, tmp_path: Path) -> None:
    """Before: ``../../x`` and ``/tmp/pwn`` wrote screenshots and DOM dumps of a logged-in page
    outside the data dir (an absolute id replaced the folder altogether)."""
    name = safe_file_stem(task_id)
    assert _safe(name), name
    target = tmp_path / f"{name}-attempt2"
    assert target.parent == tmp_path
    assert target.with_suffix(".png").name == f"{name}-attempt2.png"  # nothing cut off


def test_dotted_ids_keep_their_attempt_number() -> None:
    """Before: ``Path.with_suffix`` cut ``v1.2-attempt3`` at its dot: ``v1.png``, and every
    attempt of ``v1.2`` and ``v1.3`` overwrote the same files."""
    names = {safe_file_stem(t) for t in ("v1.2", "v1.3", "v1_2", "V1.2")}
    assert len(names) == 4
    for name in names:
        assert Path(f"{name}-attempt3").with_suffix(".png").stem.endswith("-attempt3")


def test_readable_ids_stay_as_they_are() -> None:
    for plain in ("daily-greetings-00002", "art_7", "t0"):
        assert safe_file_stem(plain) == plain
    assert safe_file_stem("每日问候-00001").startswith("每日问候_00001~")
    assert safe_file_stem("Task-1") != safe_file_stem("task-1")  # case-insensitive disks


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=60), min_size=2, max_size=12, unique=True))
def test_distinct_ids_never_share_a_file_even_ignoring_case(ids: list[str]) -> None:
    names = [safe_file_stem(i) for i in ids]
    assert all(_safe(n) for n in names), names
    assert len({n.casefold() for n in names}) == len(ids)


@pytest.fixture
def chat_sim() -> Iterator[ChatSiteSimulator]:
    sim = ChatSiteSimulator(ChatSiteConfig(latency_s=(31, 60), time_scale=0.005, seed=3))
    sim.start_in_thread()
    yield sim
    sim.stop_in_thread()


@pytest.mark.chromium
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
def test_diagnostics_of_hostile_ids_land_inside_the_data_dir(
    tmp_path: Path, chat_sim: ChatSiteSimulator
) -> None:
    """Real Chromium on the simulated chat site, signed out: each task fails as "login
    required" and the provider saves a screenshot and a DOM dump for it."""
    pwn = f"/tmp/pwn-{uuid.uuid4().hex[:8]}"
    ids = ["../../escaped", pwn, "v1.2"]
    data = tmp_path / "work" / "data"
    data.mkdir(parents=True)
    accounts = "".join(
        f'\n[[accounts]]\nid = "w{i}"\nkind = "web"\nsite = "sim"\norigin = "{chat_sim.base_url}"'
        '\nmodels = ["chat"]\n'
        for i in range(len(ids))
    )
    (data / "config.toml").write_text(
        f'[browser]\nexecutable = "{CHROMIUM}"\nheadless = true\n'
        f'\n[[models]]\nname = "chat"\nkind = "web"\n{accounts}',
        encoding="utf-8",
    )
    # Profiles that never signed in: the page shows the login form.
    for i in range(len(ids)):
        asyncio.run(
            visit(data / "profiles" / f"w{i}", resolve_browser(CHROMIUM), chat_sim.base_url)
        )
    batch = write_csv(
        tmp_path / "hostile.csv",
        [{"task_id": t, "prompt": f"question {n}", "model": "chat"} for n, t in enumerate(ids)],
    )
    result = subprocess.run(  # noqa: PLW1510 - the exit code is the subject
        [sys.executable, "-m", "media_assistant", "--data-dir", str(data), "run", str(batch)],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )
    assert result.returncode == 1, result.stdout + result.stderr  # they fail: signed out
    folder = data / "diagnostics"
    saved = sorted(p.name for p in folder.iterdir())
    for task_id in ids:
        stem = f"{safe_file_stem(task_id)}-attempt1"
        assert f"{stem}.html" in saved, (task_id, saved)
    assert all(p.name.startswith(tuple(safe_file_stem(t) for t in ids)) for p in folder.iterdir())
    assert not Path(f"{pwn}-attempt1.png").exists() and not Path(f"{pwn}-attempt1.html").exists()
    assert not list((tmp_path / "work").glob("escaped*")) and not list(tmp_path.glob("escaped*"))
    assert mode(folder) == 0o700 and all(mode(p) == 0o600 for p in folder.iterdir())
