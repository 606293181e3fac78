"""What the set-up window edits and how a change takes effect: the operator's config.toml as a
:class:`~media_assistant.core.config.edit.ConfigDocument`, checked with the one schema (plus
every web account's site adapter), saved atomically, then applied to the running scheduler
(:meth:`AppController.apply_config`) — no restart, no TOML typed by hand."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from media_assistant.core.config.edit import ConfigDocument
from media_assistant.core.config.schema import AppConfig, ConfigProblem
from media_assistant.core.files.paths import Paths
from media_assistant.core.model.states import ModelKind
from media_assistant.gui.bridge.controller import AppController
from media_assistant.providers.adapter_check import (
    AdapterEntry,
    adapter_entries,
    site_adapter_problems,
)


class SetupSession:
    def __init__(self, controller: AppController) -> None:
        self.controller = controller
        self.paths: Paths = controller.services.paths
        self.doc = ConfigDocument(self.paths.config_file)  # ConfigError: shown by the caller

    def draft(self) -> ConfigDocument:
        """The file as it is now (the settings dialog may have saved meanwhile), to try a
        change on; the file itself is not touched."""
        self.doc = ConfigDocument(self.paths.config_file)
        return self.doc.copy()

    def _extra(self) -> Callable[[AppConfig], list[ConfigProblem]]:
        return lambda config: site_adapter_problems(config, self.paths)

    def check(self, doc: ConfigDocument) -> tuple[AppConfig | None, list[ConfigProblem]]:
        return doc.check(self._extra())

    async def commit(self, doc: ConfigDocument) -> AppConfig:
        """Save ``doc`` (validated again, written atomically, off the GUI thread) and switch
        the running scheduler to it. Raises ConfigError / InputError with the file untouched."""
        config = await asyncio.to_thread(doc.save, self._extra())
        self.doc = doc
        await self.controller.apply_config(config)
        return config

    async def save_for_next_start(self, doc: ConfigDocument) -> AppConfig:
        """Save ``doc`` (validated, atomically, off the GUI thread) without applying it:
        where the queue lives and this workstation's name take effect at the next start
        (the Team database page). Raises ConfigError / InputError with the file untouched."""
        config = await asyncio.to_thread(doc.save, self._extra())
        self.doc = doc
        return config

    # ---------------------------------------------------------------- what the forms offer

    def adapters(self) -> list[AdapterEntry]:
        """Every site adapter an account can use (built-in, the operator's, site_file ones)."""
        entries = adapter_entries(self.controller.services.config, self.paths)
        return [e for e in entries if e.adapter is not None]

    def model_names(self, kind: ModelKind) -> list[str]:
        return [m["name"] for m in self.doc.models() if m.get("kind") == kind.value]

    def account(self, account_id: str) -> dict[str, object] | None:
        index = self.doc.account_index(account_id)
        return self.doc.accounts()[index] if index is not None else None

    def accounts_serving(self, model: str) -> list[str]:
        return [a["id"] for a in self.doc.accounts() if model in a.get("models", [])]
