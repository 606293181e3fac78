"""A data folder outside the Windows profile is made private (issue 29 item 3): the decision
and icacls' command line, as Windows would get them (icacls itself runs only there)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from media_assistant.core.files.windows_acl import (
    MARKER,
    icacls_command,
    inside_profile,
    protect_data_folder,
)

ENV = {
    "USERPROFILE": "/profiles/wang",
    "LOCALAPPDATA": "/profiles/wang/AppData/Local",
    "USERNAME": "wang",
    "USERDOMAIN": "OFFICE",
}


def test_folders_in_the_profile_are_left_as_they_are() -> None:
    assert inside_profile(Path("/profiles/wang/AppData/Local/media-assistant"), ENV)
    assert inside_profile(Path("/profiles/wang"), ENV)
    assert not inside_profile(Path("/profiles/wang-old/data"), ENV)  # a prefix is not a parent
    assert not inside_profile(Path("/srv/媒体助理"), ENV)


def test_a_folder_elsewhere_gets_an_acl_for_the_user_and_system_once(tmp_path: Path) -> None:
    folder = tmp_path / "媒体助理"
    folder.mkdir()
    ran: list[list[str]] = []

    def run(argv: Sequence[str]) -> int:
        ran.append(list(argv))
        return 0

    assert protect_data_folder(folder, env=ENV, run=run, windows=True) is None
    assert ran == [
        [
            "icacls",
            str(folder),
            "/inheritance:r",
            "/grant:r",
            "OFFICE\\wang:(OI)(CI)F",
            "/grant:r",
            "*S-1-5-18:(OI)(CI)F",
            "/T",
            "/Q",
        ]
    ]
    assert (folder / MARKER).exists()
    assert protect_data_folder(folder, env=ENV, run=run, windows=True) is None
    assert len(ran) == 1  # once per folder


def test_a_failure_is_said_and_nothing_is_marked(tmp_path: Path) -> None:
    problem = protect_data_folder(tmp_path, env=ENV, run=lambda _argv: 5, windows=True)
    assert problem is not None and "other users may read it" in problem and "exit 5" in problem
    assert not (tmp_path / MARKER).exists()


def test_nothing_happens_off_windows_or_inside_the_profile(tmp_path: Path) -> None:
    def never(_argv: Sequence[str]) -> int:
        raise AssertionError("icacls must not run")

    assert protect_data_folder(tmp_path, env=ENV, run=never, windows=False) is None
    inside = {**ENV, "LOCALAPPDATA": str(tmp_path)}
    assert protect_data_folder(tmp_path / "x", env=inside, run=never, windows=True) is None


def test_a_local_account_without_a_domain() -> None:
    env = {"USERNAME": "operator"}
    assert "operator:(OI)(CI)F" in icacls_command(Path("D:/data"), env)
