"""config.toml edited in place (core/config/edit.py): comments and unknown keys survive, problems
come back at the key they are about (one schema: core/config/schema.py), nothing half-written."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from media_assistant.core.config.edit import ConfigChanged, ConfigDocument
from media_assistant.core.config.schema import ConfigProblem, check_config, load_config
from media_assistant.core.model.errors import ConfigError

HAND_WRITTEN = """\
# Team config — ask Li Wei before changing the browser.
[browser]
headless = false   # the operators like to watch

[[models]]
name = "ds-chat"   # DeepSeek V3
kind = "api"

# Our API accounts
[[accounts]]
id = "ds-api"
kind = "api"
base_url = "https://api.deepseek.com/v1"  # the company proxy later
api_key_env = "DS_KEY"
models = ["ds-chat"]
concurrency = 3     # the quota allows 3
rpm = 60
"""


def test_edits_keep_comments_layout_and_keys_the_window_does_not_edit(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    doc = ConfigDocument(path)
    doc.put_model({"name": "ds-web", "kind": "web", "need_empty_prompt": True})
    doc.put_account({"id": "ds-web-1", "kind": "web", "site": "deepseek", "models": ["ds-web"]})
    doc.put_account({"concurrency": 4, "rpm": None}, replacing="ds-api")
    doc.save()
    text = path.read_text(encoding="utf-8")
    for comment in (
        "# Team config — ask Li Wei",
        "# the operators like to watch",
        "# DeepSeek V3",
        "# the company proxy later",
    ):
        assert comment in text
    assert "concurrency = 4     # the quota allows 3" in text  # the value changed in place
    assert "rpm" not in text
    # The comment introducing the accounts still sits right above the first [[accounts]].
    assert '# Our API accounts\n[[accounts]]\nid = "ds-api"' in text
    data = tomllib.loads(text)
    assert [m["name"] for m in data["models"]] == ["ds-chat", "ds-web"]
    assert [a["id"] for a in data["accounts"]] == ["ds-api", "ds-web-1"]
    assert load_config(path).account("ds-web-1") is not None
    if os.name == "posix":
        assert path.stat().st_mode & 0o777 == 0o600


def test_renaming_and_removing_keep_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        HAND_WRITTEN + '\n[[accounts]]\nid = "b"\nkind = "api"\n'
        'base_url = "http://127.0.0.1:9/v1"\nmodels = ["ds-chat"]\n'
        "pacing = { min_gap_s = 0 }\n",
        encoding="utf-8",
    )
    doc = ConfigDocument(path)
    doc.put_account({"id": "ds-api-main"}, replacing="ds-api")
    assert doc.account_index("ds-api") is None and doc.account_index("ds-api-main") == 0
    assert doc.remove_account("b") and not doc.remove_account("b")
    doc.save()
    assert [a["id"] for a in tomllib.loads(path.read_text("utf-8"))["accounts"]] == ["ds-api-main"]
    # Removing a model takes it out of the accounts that served it.
    doc.put_model({"name": "extra", "kind": "api"})
    doc.put_account({"models": ["ds-chat", "extra"]}, replacing="ds-api-main")
    doc.remove_model("extra")
    assert doc.accounts()[0]["models"] == ["ds-chat"]


def test_problems_come_back_at_the_field_they_are_about(tmp_path: Path) -> None:
    doc = ConfigDocument(tmp_path / "config.toml")  # no file yet: an empty configuration
    doc.put_model({"name": "m", "kind": "api"})
    doc.put_account({"id": "a1", "kind": "api", "models": ["m"], "concurrency": 9})
    config, problems = doc.check()
    assert config is None
    assert [p.path for p in problems] == [("accounts", 0, "concurrency")]
    doc.put_account({"concurrency": 3}, replacing="a1")
    _, problems = doc.check()  # the account's own rules run once its fields are right
    assert [(p.path, p.message) for p in problems] == [
        (("accounts", 0, "base_url"), "an API account needs 'base_url'")
    ]
    doc.put_account(
        {"base_url": "ftp://x", "api_key_env": "sk-test-fake-key-0000-not-real"}, replacing="a1"
    )
    _, problems = doc.check()
    [problem] = problems
    # A kind-specific rule names one key: it is reported there (FieldProblem).
    assert problem.path == ("accounts", 0, "api_key_env")
    assert "sk-test-fake" not in problem.message  # the pasted key is never repeated
    doc.put_account({"api_key_env": "M_KEY", "base_url": "ftp://x"}, replacing="a1")
    _, problems = doc.check()
    assert [(p.path, p.message) for p in problems] == [
        (("accounts", 0, "base_url"), "'base_url' must start with http:// or https://")
    ]


def test_cross_table_rules_have_paths_and_the_cli_wording_is_unchanged() -> None:
    data = {
        "models": [{"name": "w", "kind": "web"}, {"name": "lonely", "kind": "api"}],
        "accounts": [{"id": "x", "kind": "api", "base_url": "http://h/v1", "models": ["w"]}],
    }
    _, problems = check_config(data)
    assert (
        ConfigProblem(
            ("accounts", 0, "models"), "model 'w' is a web model; this account is kind = 'api'"
        )
        in problems
    )
    assert (
        ConfigProblem(("models", 1), "no account serves this model (add it to an account)")
        in problems
    )
    assert {p.where(data) for p in problems} >= {"accounts[0] (x).models", "models[1] (lonely)"}


def test_an_invalid_result_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    before = path.read_bytes()
    doc = ConfigDocument(path)
    doc.put_account({"concurrency": 7}, replacing="ds-api")
    with pytest.raises(ConfigError, match=r"accounts\[0\] \(ds-api\)\.concurrency"):
        doc.save()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temporary left


def test_a_new_file_starts_with_a_note_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "config.toml"
    doc = ConfigDocument(path)
    doc.put_model({"name": "m", "kind": "web"})
    doc.put_account({"id": "w1", "kind": "web", "site": "deepseek", "models": ["m"]})
    config = doc.save()
    assert config.account("w1") is not None
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Media Assistant configuration.")
    assert "\n\n[[accounts]]" in text and "\n\n[[models]]" in text


def test_a_broken_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[[accounts]\nid = ", encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid TOML"):
        ConfigDocument(path)


def test_a_hand_edit_made_during_a_change_is_never_overwritten(tmp_path: Path) -> None:
    """Before: the set-up window read config.toml when a change began and wrote it back at the
    end, over whatever the operator had saved in an editor meanwhile."""
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    change = ConfigDocument(path).copy()  # as SetupSession.draft gives it
    change.put_account({"concurrency": 5}, replacing="ds-api")
    by_hand = HAND_WRITTEN.replace("rpm = 60", "rpm = 30   # lowered by hand")
    path.write_text(by_hand, encoding="utf-8")
    with pytest.raises(ConfigChanged, match="changed by another program"):
        change.save()
    assert path.read_text(encoding="utf-8") == by_hand  # nothing written
    again = ConfigDocument(path).copy()  # the change made again, to the file as it is now
    again.put_account({"concurrency": 5}, replacing="ds-api")
    again.save()
    text = path.read_text(encoding="utf-8")
    assert "rpm = 30   # lowered by hand" in text and "concurrency = 5" in text
    again.put_account({"concurrency": 4}, replacing="ds-api")
    again.save()  # its own save is what it is based on now
    assert "concurrency = 4" in path.read_text(encoding="utf-8")


def test_a_linked_config_stays_a_link_and_every_write_reaches_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: saving replaced a symlinked config.toml by a regular file (the team's shared
    template was no longer followed), and neither the file nor the rename was flushed: a power
    cut right after a save could leave an empty config."""
    shared = tmp_path / "team" / "config.toml"
    shared.parent.mkdir()
    shared.write_text(HAND_WRITTEN, encoding="utf-8")
    link = tmp_path / "data" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(shared)
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    doc = ConfigDocument(link)
    doc.put_account({"concurrency": 2}, replacing="ds-api")
    doc.save()
    assert link.is_symlink() and link.resolve() == shared.resolve()
    assert "concurrency = 2" in shared.read_text(encoding="utf-8")
    assert [Path(p).name for p in os.listdir(shared.parent)] == ["config.toml"]
    # the temporary file's content first, then the folder that holds the rename
    assert len(synced) == 2, synced
    assert Path(synced[0]).name.startswith(".config.toml.") and synced[1] == str(shared.parent)


def test_the_team_settings_are_set_in_place_and_removed_cleanly(tmp_path: Path) -> None:
    """The set-up window's Team database page: ``[store] url`` and ``[team] workstation``."""
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN + '\n[team]\nworkstation = "pc-1"  # by the window\n')
    doc = ConfigDocument(path)
    doc.put_setting("store", "url", "postgresql://ma@db.local:5432/media?sslmode=require")
    doc.put_setting("team", "workstation", "pc-07")
    config = doc.save()
    assert config.store.url == "postgresql://ma@db.local:5432/media?sslmode=require"
    assert config.team.workstation == "pc-07"
    text = path.read_text(encoding="utf-8")
    assert 'workstation = "pc-07"  # by the window' in text  # its comment stays
    assert "# the operators like to watch" in text
    assert doc.setting("store", "url") == config.store.url
    # A password pasted into the URL is refused, and the file keeps what it had.
    bad = ConfigDocument(path)
    bad.put_setting("store", "url", "postgresql://ma:secret-pw@db.local/media")
    with pytest.raises(ConfigError) as refused:
        bad.save()
    assert "secret-pw" not in str(refused.value)
    assert load_config(path).store.url == config.store.url  # the file as it was
    # Back to this PC's own queue: the key and its table go, nothing else moves.
    doc = ConfigDocument(path)
    doc.put_setting("store", "url", None)
    doc.put_setting("team", "workstation", None)
    doc.save()
    text = path.read_text(encoding="utf-8")
    assert "[store]" not in text and "[team]" not in text
    assert text.rstrip() == HAND_WRITTEN.rstrip()
    with pytest.raises(ValueError):
        doc.put_setting("browser", "headless", True)
