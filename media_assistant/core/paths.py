"""Where things live. Data dir: ``--data-dir``, else $MEDIA_ASSISTANT_HOME, else the platform's
per-user data directory."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

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
    def logs(self) -> Path:
        return Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))

    def ensure(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.profiles.mkdir(mode=0o700, exist_ok=True)
