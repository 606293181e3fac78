"""A file held for a moment (issue 29 item 7): Windows' sharing violations retried for about
two seconds on an injected clock; real permission problems raised at once. The Windows errors
are made as Windows makes them (a PermissionError carrying ``winerror``); the renames are real."""

from __future__ import annotations

from pathlib import Path

import pytest

from media_assistant.core.files import held
from media_assistant.core.files.held import held_for_a_moment, retry_while_held


class SharingViolation(PermissionError):
    winerror = 32  # ERROR_SHARING_VIOLATION: Defender, the indexer, OneDrive has it open


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_a_rename_held_for_a_moment_goes_through(tmp_path: Path) -> None:
    source, target = tmp_path / "new.tmp", tmp_path / "config.toml"
    source.write_text("new")
    target.write_text("old")
    clock = Clock()
    refusals = iter([SharingViolation(13, "in use"), SharingViolation(13, "in use")])

    def rename() -> None:
        for refusal in refusals:
            raise refusal
        source.replace(target)

    retry_while_held(rename, sleep=clock.sleep, clock=clock)
    assert target.read_text() == "new" and not source.exists()
    assert clock.sleeps == [0.05, 0.1]


def test_a_file_held_for_good_is_said_after_about_two_seconds() -> None:
    clock = Clock()
    tries = 0

    def held_open() -> None:
        nonlocal tries
        tries += 1
        raise SharingViolation(13, "The process cannot access the file")

    with pytest.raises(SharingViolation):
        retry_while_held(held_open, sleep=clock.sleep, clock=clock)
    assert 1.5 <= clock.now <= held.HELD_WAIT_S and tries == len(clock.sleeps) + 1


def test_a_real_permission_problem_is_raised_at_once(tmp_path: Path) -> None:
    clock = Clock()

    def denied() -> None:
        raise PermissionError(13, "Permission denied")  # POSIX: no winerror, no moment

    with pytest.raises(PermissionError):
        retry_while_held(denied, sleep=clock.sleep, clock=clock)
    assert clock.sleeps == []
    assert not held_for_a_moment(FileNotFoundError(2, "gone"))
    assert held_for_a_moment(SharingViolation(13, "in use"))


def test_the_plain_paths_still_work(tmp_path: Path) -> None:
    source, target = tmp_path / "a", tmp_path / "b"
    source.write_text("x")
    held.replace_file(source, target)
    assert target.read_text() == "x"
    held.unlink_file(target)
    assert not target.exists()
