"""Editing config.toml the way an operator's hand-written file deserves: in place.

The set-up window adds, edits and removes ``[[accounts]]`` and ``[[models]]`` through a
:class:`ConfigDocument`. It is tomlkit's document of the file, so every comment, blank line and
key order the operator (or the team's template) wrote survives; only the keys the window edits
change, and keys it does not know (``pacing``, ``enabled``) are left as they were. tomlkit,
not tomllib + a writer of our own: tomllib cannot write, and tomli-w drops comments.

Nothing is written until :meth:`ConfigDocument.save`, which validates the whole result with
the one schema (``core/config/schema.py``; plus every web account's site adapter when a checker is
given) and replaces the file atomically (a temporary file renamed over it: a reader never
sees half a file, a crash leaves the old one) — only if the file still holds what the change
was made to: a hand edit made while the set-up window was open is never overwritten
(:class:`ConfigChanged`; saving again makes the change to the file as it is then).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import AoT, Comment, Null, Table, Whitespace
from tomlkit.toml_document import TOMLDocument

from media_assistant.core.config.schema import AppConfig, ConfigProblem, check_config
from media_assistant.core.files.atomic import write_atomically
from media_assistant.core.model.errors import ConfigError

# The keys the set-up window edits; any other key of an edited table is kept as it is.
ACCOUNT_KEYS = (
    "id",
    "kind",
    "site",
    "site_file",
    "origin",
    "base_url",
    "api_key_env",
    "models",
    "concurrency",
    "rpm",
    "tpm",
    "proxy",  # issue 32: the account editor's proxy (its password lives in the keyring)
)
MODEL_KEYS = ("name", "kind", "need_empty_prompt", "upstream", "system_prompt")
# Single settings the set-up window edits outside the lists: where the queue lives and this
# workstation's name (its Team database page).
SETTING_KEYS = frozenset({("store", "url"), ("team", "workstation")})

NEW_FILE_HEADER = (
    "# Media Assistant configuration. Written by the set-up window; comments and keys you add\n"
    "# by hand are kept when it saves. Every key: README, 'Configuration'.\n"
)

# Extra checks after the schema (the site adapters of web accounts, which live in providers/).
ExtraCheck = Callable[[AppConfig], list[ConfigProblem]]


class ConfigChanged(ConfigError):
    """The file changed on disk after this change began (a hand edit, another window): saving
    now would throw that away. Nothing was written; start the change again from the file."""


def read_config_text(path: Path) -> str | None:
    """The file's text as it is on disk now (None: there is no file)."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def replace_config(path: Path, text: str, *, based_on: str | None) -> None:
    """Write ``text`` to ``path`` atomically (fsync'd, a symbolic link kept), only if the file
    still holds ``based_on`` (None: still absent) — what the change was made to. Raises
    :class:`ConfigChanged` (nothing written) otherwise, InputError if it cannot write.

    The look and the rename are not one step: an edit saved in the few microseconds between
    them is still lost; one made while a dialog was open, which is what happens, is not."""
    if read_config_text(path) != based_on:
        raise ConfigChanged(
            f"{path} was changed by another program (or by hand) while this change was made; "
            "nothing was saved — save again to make the change to the file as it is now"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


class ConfigDocument:
    def __init__(self, path: Path, text: str | None = None, *, based_on: str | None = None) -> None:
        """``text``: the content to edit (read from ``path`` when None; a missing file is an
        empty configuration). ``based_on``: the file's content it was made from, when ``text``
        is given (:meth:`save` writes only over that)."""
        self.path = path
        if text is None:
            based_on = read_config_text(path)
            text = based_on or ""
        self.based_on = based_on
        try:
            self.doc: TOMLDocument = tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as exc:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        if not text.strip():
            self.doc.add(tomlkit.comment(NEW_FILE_HEADER.splitlines()[0].removeprefix("# ")))
            self.doc.add(tomlkit.comment(NEW_FILE_HEADER.splitlines()[1].removeprefix("# ")))
            self.doc.add(tomlkit.nl())

    # ---------------------------------------------------------------- reading

    def data(self) -> dict[str, Any]:
        """Plain Python values, as ``core.config.schema`` validates them."""
        return self.doc.unwrap()

    def accounts(self) -> list[dict[str, Any]]:
        return list(self.data().get("accounts", []))

    def models(self) -> list[dict[str, Any]]:
        return list(self.data().get("models", []))

    def account_index(self, account_id: str) -> int | None:
        return _index(self.accounts(), "id", account_id)

    def model_index(self, name: str) -> int | None:
        return _index(self.models(), "name", name)

    def text(self) -> str:
        return tomlkit.dumps(self.doc)

    def copy(self) -> ConfigDocument:
        """A document to try a change on, saved over the same file content as this one."""
        return ConfigDocument(self.path, self.text(), based_on=self.based_on)

    def setting(self, section: str, key: str) -> Any:
        table = self.data().get(section)
        return table.get(key) if isinstance(table, dict) else None

    # ---------------------------------------------------------------- editing

    def put_account(self, values: Mapping[str, Any], *, replacing: str | None = None) -> int:
        """Add an account, or change the one whose id is ``replacing`` (its id may change).
        ``values`` holds the edited keys; a key given as None is removed. Returns its index."""
        return self._put("accounts", "id", ACCOUNT_KEYS, values, replacing)

    def put_model(self, values: Mapping[str, Any], *, replacing: str | None = None) -> int:
        return self._put("models", "name", MODEL_KEYS, values, replacing)

    def remove_account(self, account_id: str) -> bool:
        return self._remove("accounts", "id", account_id)

    def remove_model(self, name: str) -> bool:
        """Removes the model and takes it out of every account's ``models``."""
        removed = self._remove("models", "name", name)
        for table in self._tables("accounts"):
            served = table.get("models")
            if isinstance(served, list) and name in served:
                table["models"] = [m for m in served if m != name]
        return removed

    def put_setting(self, section: str, key: str, value: Any) -> None:
        """Set ``[section] key`` in place (its comment kept); None removes it, and a table
        left with nothing in it goes too. Only :data:`SETTING_KEYS`."""
        if (section, key) not in SETTING_KEYS:
            raise ValueError(f"not an editable setting: {section}.{key}")
        table = self.doc.get(section)
        if table is not None and not isinstance(table, Table):
            raise ConfigError(f"{self.path}: {section} must be a table ([{section}])")
        if value is None:
            if table is None or key not in table:
                return
            del table[key]
            if all(
                k is None and isinstance(item, Whitespace | Null) for k, item in table.value.body
            ):
                del self.doc[section]
            return
        if table is None:
            table = tomlkit.table()
            body = self.doc.body
            if body and not (body[-1][0] is None and isinstance(body[-1][1], Whitespace)):
                self.doc.add(tomlkit.nl())  # a blank line above the new table
            self.doc.append(section, table)
        if table.get(key) != value:
            table[key] = value

    def _tables(self, section: str) -> list[Table]:
        aot = self.doc.get(section)
        return list(aot) if isinstance(aot, AoT) else []

    def _put(
        self,
        section: str,
        ident: str,
        keys: Iterable[str],
        values: Mapping[str, Any],
        replacing: str | None,
    ) -> int:
        unknown = set(values) - set(keys)
        if unknown:
            raise ValueError(f"not an editable key of {section}: {sorted(unknown)}")
        tables = self._tables(section)
        index = (
            next((i for i, t in enumerate(tables) if t.get(ident) == replacing), None)
            if replacing is not None
            else None
        )
        if index is None:
            table = tomlkit.table()
            for key in keys:  # the usual order of keys, whatever order values came in
                if values.get(key) is not None:
                    table[key] = values[key]
            self._append(section, table)
            return len(tables)
        table = tables[index]
        for key, value in values.items():
            if value is None:
                if key in table:
                    del table[key]
            elif table.get(key) != value:
                table[key] = value
        return index

    def _append(self, section: str, table: Table) -> None:
        aot = self.doc.get(section)
        if not isinstance(aot, AoT) or not len(aot):
            if section in self.doc:
                del self.doc[section]
            body = self.doc.body
            if body and not (body[-1][0] is None and isinstance(body[-1][1], Whitespace)):
                self.doc.add(tomlkit.nl())  # a blank line above the first table of its kind
            self.doc.append(section, tomlkit.aot())
            aot = self.doc[section]
            assert isinstance(aot, AoT)
            aot.append(table)
            return
        # Comments after the last table of this kind introduce whatever follows it (often
        # "# the API accounts" above [[accounts]]): they move below the new table.
        moved = _take_trailing_comments(aot[-1])
        last = aot[-1].value.body
        if not (last and last[-1][0] is None and isinstance(last[-1][1], Whitespace)):
            table.trivia.indent = "\n" + table.trivia.indent.lstrip("\n")
        aot.append(table)
        if moved:
            table.add(tomlkit.nl())
            table.value.body.extend(moved)

    def _remove(self, section: str, ident: str, value: str) -> bool:
        aot = self.doc.get(section)
        if not isinstance(aot, AoT):
            return False
        for i, table in enumerate(aot):
            if table.get(ident) == value:
                moved = _take_trailing_comments(table)  # they introduce what follows
                del aot[i]
                if not len(aot):
                    del self.doc[section]
                elif moved and i > 0:
                    aot[i - 1].add(tomlkit.nl())
                    aot[i - 1].value.body.extend(moved)
                return True
        return False

    # ---------------------------------------------------------------- checking and saving

    def check(
        self, extra: ExtraCheck | None = None
    ) -> tuple[AppConfig | None, list[ConfigProblem]]:
        """Everything ``load_config`` (and with ``extra``, ``Services.open``) would refuse."""
        config, problems = check_config(self.data())
        if config is not None and extra is not None:
            problems = extra(config)
            if problems:
                config = None
        return config, problems

    def describe(self, problems: Iterable[ConfigProblem]) -> str:
        data = self.data()
        return "\n".join(f"{self.path}: {p.where(data)}: {p.message}" for p in problems)

    def save(self, extra: ExtraCheck | None = None) -> AppConfig:
        """Validate, then replace the file atomically (0600: it may name key variables and
        the team's hosts) — if it is still what this document was read from. Raises
        ConfigError (the file untouched; :class:`ConfigChanged` when it changed meanwhile) or
        InputError (cannot write)."""
        config, problems = self.check(extra)
        if config is None:
            raise ConfigError(self.describe(problems))
        replace_config(self.path, self.text(), based_on=self.based_on)
        self.based_on = read_config_text(self.path)
        return config


def _take_trailing_comments(table: Table) -> list[tuple[Any, Any]]:
    """The comment lines (and the blank lines between them) at the end of ``table``, taken
    off it: tomlkit keeps a comment above a table header in the table before it."""
    body = table.value.body
    first = next(
        (
            i
            for i, (key, item) in enumerate(body)
            if key is None
            and isinstance(item, Comment)
            and all(k is None and isinstance(it, Comment | Whitespace) for k, it in body[i:])
        ),
        None,
    )
    if first is None:
        return []
    moved = body[first:]
    del body[first:]
    return moved


def _index(rows: list[dict[str, Any]], key: str, value: str) -> int | None:
    return next((i for i, row in enumerate(rows) if row.get(key) == value), None)
