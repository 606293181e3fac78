"""``sites repair`` (issue 33) against the loopback chat site with real Chromium: fingerprints
recorded by a successful check, each site update repaired from the live page and proven by a
site check before it is installed (version + 1, rollback keeps the old one), and the look-alike
decoys refused: a hidden or disabled second composer, a "Submit feedback" button beside Send."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from media_assistant.providers.web.canary import CHECK_PROMPT
from media_assistant.sim.chat_adapters import alt_adapter_text
from media_assistant.sim.chat_config import ChatSiteConfig
from media_assistant.sim.chat_site import ChatSiteSimulator
from tests.integration.test_sites_cli import adapter_text, cli, configure

pytestmark = [pytest.mark.chromium, pytest.mark.timeout(420)]  # several CLI runs, each a browser


@pytest.fixture
def sim() -> Iterator[ChatSiteSimulator]:
    site = ChatSiteSimulator(ChatSiteConfig(latency_s=(40, 80), time_scale=0.005, seed=33))
    site.start_in_thread()
    yield site
    site.stop_in_thread()


def ready(root: Path, sim: ChatSiteSimulator, text: str | None = None) -> Path:
    """A signed-in account whose adapter (short waits, version 2026.12.01) worked once."""
    env = configure(root, sim)
    data = env.paths.data_dir
    env.store.engine.dispose()
    asyncio.run(env.sign_in("web-1"))
    shipped = root / "sim-2026.12.01.toml"
    shipped.write_text(text or adapter_text(version="2026.12.01"), encoding="utf-8")
    assert cli(data, "sites", "install", str(shipped)).returncode == 0
    check = cli(data, "sites", "check", "--account", "web-1")
    assert check.returncode == 0, check.stdout + check.stderr
    return data


def repair(data: Path, *flags: str) -> tuple[int, dict, str]:
    done = cli(data, "sites", "repair", "web-1", "--json", *flags)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def test_a_successful_check_records_fingerprints_without_prompt_or_answer_text(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    data = ready(tmp_path, sim)
    path = data / "fingerprints" / "sim.json"
    text = path.read_text(encoding="utf-8")
    keys = json.loads(text)["keys"]
    assert {"input", "send", "done", "answer", "user_message", "new_chat"} <= set(keys)
    assert keys["send"]["element"]["aria_label"] == "Send"
    assert keys["answer"]["element"]["text"] == ""  # content keeps no text
    assert any(c.startswith("css-") for c in keys["answer"]["element"]["unstable_classes"])
    assert "css-" not in " ".join(keys["answer"]["element"]["classes"])
    assert "message-actions" in " ".join(keys["done"]["element"]["path"])
    assert "Answer to" not in text and "bold" not in text and CHECK_PROMPT[:20] not in text
    assert path.stat().st_mode & 0o777 == 0o600
    assert len(text) < 20_000


@pytest.mark.parametrize(
    ("breakage", "keys", "how"),
    [
        ("composer_renamed", {"input"}, "--yes"),
        ("classes_rotated", {"answer", "done"}, "--yes"),
        ("decoy_composer", {"input"}, "auto_repair"),
        ("decoy_send", {"send"}, "--yes"),
    ],
)
def test_a_site_update_is_repaired_proven_and_installed(
    tmp_path: Path, sim: ChatSiteSimulator, breakage: str, keys: set[str], how: str
) -> None:
    data = ready(tmp_path, sim)
    if how == "auto_repair":  # night runs: no one to say yes
        with (data / "config.toml").open("a", encoding="utf-8") as config:
            config.write("\n[sites]\nauto_repair = true\n")
    sim.break_page(breakage)
    code, report, stderr = repair(data, *([how] if how == "--yes" else []))
    assert code == 0, report
    assert "notice: web-1: site sim repaired and installed by itself" in stderr
    assert ("auto_repair" in stderr) == (how == "auto_repair")
    assert set(report) == {
        "account",
        "site",
        "step",
        "proposed",
        "proven",
        "installed_version",
        "check",
    }
    assert report["proven"] is True and report["installed_version"] == "2026.12.01.1"
    assert {p["key"] for p in report["proposed"]} == keys
    assert report["check"]["ok"] is True
    for p in report["proposed"]:
        assert set(p) == {"key", "old", "new", "score", "margin"}
        assert p["score"] >= 0.5 and p["margin"] >= 0.08
        assert not any("Message" in s or "feedback" in s for s in p["new"])  # no decoy
    assert cli(data, "sites", "check", "--account", "web-1").returncode == 0
    assert "2026.12.01.1" in cli(data, "sites", "list").stdout
    back = cli(data, "sites", "rollback", "sim")
    assert back.returncode == 0 and "2026.12.01" in back.stdout


@pytest.mark.parametrize("breakage", ["testids_renamed", "send_icon_only", "answer_wrapped"])
def test_updates_that_break_a_test_id_or_label_adapter_are_repaired(
    tmp_path: Path, sim: ChatSiteSimulator, breakage: str
) -> None:
    data = ready(tmp_path, sim, alt_adapter_text(adapter_text(version="2026.12.01")))
    sim.break_page(breakage)
    code, report, _ = repair(data, "--yes")
    assert code == 0 and report["proven"] and report["installed_version"] == "2026.12.01.1"
    assert cli(data, "sites", "check", "--account", "web-1").returncode == 0


def test_a_page_no_selector_fixes_is_not_repaired_and_nothing_is_installed(
    tmp_path: Path, sim: ChatSiteSimulator
) -> None:
    data = ready(tmp_path, sim)
    sim.break_page("login_wall")
    code, report, stderr = repair(data, "--yes")
    assert code == 1 and "notice:" not in stderr
    assert report["proven"] is False and report["installed_version"] is None
    assert report["step"] == "signed_in" and report["proposed"] == []
    assert report["check"]["ok"] is False
    assert "2026.12.01.1" not in cli(data, "sites", "list").stdout
    assert not (data / "sites" / "proposed").exists()


def test_a_false_heal_is_refused_by_its_proof(tmp_path: Path, sim: ChatSiteSimulator) -> None:
    """The fingerprint made to look like the look-alike: the "Submit feedback" button wins the
    score, sends nothing, fails the proof and is never installed."""
    data = ready(tmp_path, sim)
    path = data / "fingerprints" / "sim.json"
    fp = json.loads(path.read_text(encoding="utf-8"))
    send = fp["keys"]["send"]["element"]
    send.update(aria_label="Submit feedback", title="Submit feedback", text="", testid="")
    send["x"] -= 0.03  # where the decoy sits
    path.write_text(json.dumps(fp), encoding="utf-8")
    sim.break_page("decoy_send")
    done = cli(data, "sites", "repair", "web-1", "--yes")
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout
    assert 'send: button[aria-label="Submit feedback"]' in out  # chosen first by its score
    assert out.count("sent failed") == 2  # ...disproved by the check
    installed = data / "sites" / "sim.toml"
    assert "feedback" not in installed.read_text(encoding="utf-8")
    if done.returncode == 1:
        assert "nothing proven" in out and "2026.12.01.1" not in cli(data, "sites", "list").stdout


async def test_auto_repair_in_a_running_scheduler_installs_a_proven_repair_and_resumes(
    tmp_path: Path, sim: ChatSiteSimulator, caplog: pytest.LogCaptureFixture
) -> None:
    """Night runs (``[sites] auto_repair = true``): the verdict holds the account, its worker
    repairs the adapter from the page at once, a proven repair is installed (version + 1) with
    a notice in the log, and the held tasks finish with their own answers — nobody involved."""
    from media_assistant.core.config.schema import parse_config
    from media_assistant.core.model.records import NewTask
    from media_assistant.core.model.states import ModelKind
    from tests.integration.test_web_lane import WebEnv

    env = WebEnv(tmp_path, sim, accounts=1)
    data = env.config.model_dump(mode="json", exclude_none=True)
    data["sites"] = {"auto_repair": True}
    env.config = parse_config(data, "test")
    env.paths.sites.mkdir(parents=True, exist_ok=True)
    (env.paths.sites / "sim.toml").write_text(adapter_text(version="2026.12.01"), "utf-8")
    try:
        await env.sign_in("web-1")
        s = await env.start()
        await s.submit([NewTask("first", "web-model", ModelKind.WEB, "question one", "b")])
        await env.run()
        assert (env.paths.data_dir / "fingerprints" / "sim.json").exists()  # a task recorded it
        sim.break_page("answer_renamed")
        await s.submit(
            [NewTask(f"t{i}", "web-model", ModelKind.WEB, f"question {i}", "b") for i in range(3)]
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 240
        while {r.state for r in env.store.list_tasks()} != {"success"}:  # the batch finishes
            assert loop.time() < deadline, [(r.task_id, r.state) for r in env.store.list_tasks()]
            await asyncio.sleep(0.2)
        rows = {r.task_id: r for r in env.store.list_tasks()}
        assert {r.state for r in rows.values()} == {"success"}
        for i in range(3):
            assert (rows[f"t{i}"].result_plain or "").startswith(f"Answer to: question {i}")
        installed = (env.paths.sites / "sim.toml").read_text(encoding="utf-8")
        assert 'version = "2026.12.01.1"' in installed and ".markdown'" not in installed
        assert "repaired and installed by itself ([sites] auto_repair)" in caplog.text
    finally:
        await env.close()
