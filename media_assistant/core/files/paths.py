"""Where things live. Data dir: ``--data-dir``, else $MEDIA_ASSISTANT_HOME, else the platform's
per-user data directory."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from media_assistant.core.files.private_files import private_dir
from media_assistant.core.files.windows_acl import protect_data_folder

log = logging.getLogger(__name__)

APP_NAME = "media-assistant"
HOME_ENV = "MEDIA_ASSISTANT_HOME"


def default_data_dir() -> Path:
    env = os.environ.get(HOME_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


@dataclass(frozen=True, slots=True)
class Paths:
    data_dir: Path
    config_file: Path

    @classmethod
    def resolve(cls, data_dir: Path | None = None, config_file: Path | None = None) -> Paths:
        data = (data_dir or default_data_dir()).expanduser().resolve()
        config = (config_file or data / "config.toml").expanduser().resolve()
        return cls(data, config)

    @property
    def database(self) -> Path:
        return self.data_dir / "media-assistant.db"

    @property
    def profiles(self) -> Path:
        return self.data_dir / "profiles"

    def profile(self, account_id: str) -> Path:
        return self.profiles / account_id

    @property
    def sites(self) -> Path:
        return self.data_dir / "sites"

    @property
    def diagnostics(self) -> Path:
        """Screenshots and DOM dumps of failed web tasks."""
        return self.data_dir / "diagnostics"

    @property
    def backups(self) -> Path:
        """Daily copies of the task store (core/disk/backups.py)."""
        return self.data_dir / "backups"

    @property
    def local_state(self) -> Path:
        """What this workstation's window remembers of this queue (core/files/local_state.py):
        notices and their read marks, the batch shown last, the export folder."""
        return self.data_dir / "window-state.json"

    @property
    def logs(self) -> Path:
        """Inside the data dir (0700): logs quote prompts and site messages."""
        return self.data_dir / "logs"

    def ensure(self) -> None:
        """The data dir and the profiles dir exist and are private (0700 on POSIX; on Windows
        an ACL for this user alone when the folder lies outside the profile)."""
        private_dir(self.data_dir)
        problem = protect_data_folder(self.data_dir)
        if problem:
            log.warning("%s", problem)
        private_dir(self.profiles)
