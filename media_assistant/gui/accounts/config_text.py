"""A configuration problem in the operator's language, for the set-up window.

The schema (``core/config/schema.py``'s ``check_config``, and the site adapters' check) reports each
problem with an English message — what the command line prints — and a ``code``: a rule of ours
(``core/model/errors.py`` ``RuleBroken``: "url_scheme", "duplicate_account"…) or pydantic's error
type ("missing", "less_than_equal"…), with its parameters. The words are here, in the
catalogue's "ConfigProblem" context; a code this table does not know is shown as the English
message. A problem about another entry than the one being edited names that entry first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from media_assistant.core.config.edit import ConfigChanged
from media_assistant.core.config.schema import ConfigProblem

_CTX = "ConfigProblem"


def _t(text: object) -> str:
    return QCoreApplication.translate(_CTX, str(text))


def _fill(text: object, *values: object) -> str:
    out = _t(text)
    for i, value in enumerate(values, start=1):
        out = out.replace(f"%{i}", str(value))
    return out


def _kind(value: object) -> str:
    return {
        "web": _t(QT_TRANSLATE_NOOP("ConfigProblem", "web")),
        "api": _t(QT_TRANSLATE_NOOP("ConfigProblem", "API")),
    }.get(str(value), str(value))


_TEXTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    # pydantic's error types (the parameters are its own: ge, le, min_length, expected…)
    "missing": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Required")),
    "extra_forbidden": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Unknown setting")),
    "int_parsing": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Enter a whole number")),
    "int_type": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Enter a whole number")),
    "int_from_float": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Enter a whole number")),
    "float_parsing": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Enter a number")),
    "float_type": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Enter a number")),
    "bool_type": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Choose yes or no")),
    "bool_parsing": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Choose yes or no")),
    "string_type": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Enter text")),
    "list_type": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Enter a list")),
    "string_too_short": lambda p: _t(QT_TRANSLATE_NOOP("ConfigProblem", "Required")),
    "string_pattern_mismatch": lambda p: _t(
        QT_TRANSLATE_NOOP(
            "ConfigProblem", "Use lower-case letters, digits, - and _ only, no spaces"
        )
    ),
    "greater_than_equal": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "Must be at least %1"), p.get("ge")
    ),
    "greater_than": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "Must be more than %1"), p.get("gt")
    ),
    "less_than_equal": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "Must be at most %1"), p.get("le")
    ),
    "less_than": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "Must be less than %1"), p.get("lt")
    ),
    "literal_error": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "Choose one of: %1"), p.get("expected")
    ),
    "enum": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "Choose one of: %1"), p.get("expected")
    ),
    # our rules (core/config/schema.py, core/config/team.py, core/rules/pacing.py,
    # providers/adapter_check.py)
    "account_id_chars": lambda p: _t(
        QT_TRANSLATE_NOOP(
            "ConfigProblem",
            "Use letters, digits and - _ . only (no spaces), starting with a letter or digit",
        )
    ),
    "account_id_windows": lambda p: _t(
        QT_TRANSLATE_NOOP(
            "ConfigProblem",
            "Windows cannot use this name for a folder: not CON, PRN, AUX, NUL, COM1-9 or "
            "LPT1-9, and not ending in a dot",
        )
    ),
    "account_without_model": lambda p: _t(
        QT_TRANSLATE_NOOP("ConfigProblem", "Choose at least one model for this account")
    ),
    "site_one_of": lambda p: _t(
        QT_TRANSLATE_NOOP("ConfigProblem", "Choose a site, or a site adapter file (not both)")
    ),
    "url_scheme": lambda p: _t(
        QT_TRANSLATE_NOOP("ConfigProblem", "The address must start with http:// or https://")
    ),
    "base_url_missing": lambda p: _t(
        QT_TRANSLATE_NOOP("ConfigProblem", "An API account needs its base URL")
    ),
    "api_only_key": lambda p: _t(
        QT_TRANSLATE_NOOP("ConfigProblem", "Only API accounts have this setting")
    ),
    "web_only_key": lambda p: _t(
        QT_TRANSLATE_NOOP("ConfigProblem", "Only web accounts have this setting")
    ),
    "api_key_env_pasted": lambda p: _t(
        QT_TRANSLATE_NOOP(
            "ConfigProblem",
            "This looks like the API key itself. Paste the key into the key field (it goes "
            "to the system keyring); here goes only the name of an environment variable "
            "that holds it, such as DEEPSEEK_API_KEY",
        )
    ),
    "api_key_env_name": lambda p: _t(
        QT_TRANSLATE_NOOP(
            "ConfigProblem",
            "The name of an environment variable: letters, digits and _, not starting with a "
            "digit (such as DEEPSEEK_API_KEY)",
        )
    ),
    "duplicate_model": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "There is already a model named %1"), p.get("name")
    ),
    "duplicate_account": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "There is already an account named %1"),
        p.get("name"),
    ),
    "account_case": lambda p: _fill(
        QT_TRANSLATE_NOOP(
            "ConfigProblem",
            "%1 and %2 differ only in capital letters: on Windows and macOS they would share "
            "one browser profile. Choose another name",
        ),
        p.get("other"),
        p.get("name"),
    ),
    "unknown_model": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "There is no model named %1"), p.get("name")
    ),
    "model_kind": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "%1 is a %2 model; this account cannot serve it"),
        p.get("name"),
        _kind(p.get("kind")),
    ),
    "model_unserved": lambda p: _fill(
        QT_TRANSLATE_NOOP(
            "ConfigProblem", "No account serves model %1: add it to an account's models"
        ),
        p.get("name"),
    ),
    "fallback_self": lambda p: _t(
        QT_TRANSLATE_NOOP("ConfigProblem", "A model cannot fall back to itself")
    ),
    "fallback_loop": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "%1 and %2 would fall back to each other"),
        p.get("name"),
        p.get("other"),
    ),
    "active_hours_format": lambda p: _t(
        QT_TRANSLATE_NOOP("ConfigProblem", "Write the hours as 08:00-23:00 (24-hour clock)")
    ),
    "active_hours_late": lambda p: _t(
        QT_TRANSLATE_NOOP("ConfigProblem", "24:00 is the latest time")
    ),
    "active_hours_empty": lambda p: _t(
        QT_TRANSLATE_NOOP("ConfigProblem", "The start and the end are the same time")
    ),
    "dead_after_short": lambda p: _t(
        QT_TRANSLATE_NOOP(
            "ConfigProblem", "A task is declared dead only after at least two heartbeats"
        )
    ),
    "string_too_long": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "At most %1 characters"), p.get("max_length")
    ),
    # team mode (core/config/team.py): the team database's address
    "store_url_scheme": lambda p: _t(
        QT_TRANSLATE_NOOP(
            "ConfigProblem",
            "The team database's address must start with postgresql:// (for example "
            "postgresql://ma@db.local:5432/media)",
        )
    ),
    "store_url_password": lambda p: _t(
        QT_TRANSLATE_NOOP(
            "ConfigProblem",
            "The address holds a password: take it out (it is not shown here) and type it in "
            "the password field, which keeps it in the system keyring; or use PGPASSWORD or "
            "the pgpass file",
        )
    ),
    "adapter_unusable": lambda p: _fill(
        QT_TRANSLATE_NOOP("ConfigProblem", "The site adapter cannot be used: %1"),
        adapter_problem_line(p["problem"])
        if isinstance(p.get("problem"), ConfigProblem)
        else p.get("detail"),
    ),
}


def adapter_problem_line(problem: ConfigProblem) -> str:
    """One problem of an adapter file the schema refused (providers/web/adapter.py
    AdapterInvalid: path = (file, key)), the reason in the operator's language."""
    where = ": ".join(str(p) for p in problem.path)
    return f"{where}: {problem_text(problem)}"


def adapter_error_text(exc: Exception) -> str:
    """An adapter file's refusal, each problem in the operator's language where it has a code
    (pydantic's "Field required" → the catalogue's "Required"); other errors as they say it."""
    problems = getattr(exc, "problems", None)
    if not problems:
        return str(exc)
    return "\n".join(adapter_problem_line(p) for p in problems)


def problem_text(problem: ConfigProblem) -> str:
    """The problem in the operator's language (the English message for an unknown code)."""
    words = _TEXTS.get(problem.code)
    return words(problem.params) if words is not None else problem.message


def known_codes() -> frozenset[str]:
    """The codes worded here (tests check every rule of ours has words)."""
    return frozenset(_TEXTS)


def save_error_text(exc: Exception) -> str:
    """Why a change was not saved, for the set-up window: a file changed meanwhile in the
    operator's words (what to do next), anything else as the error says it."""
    if isinstance(exc, ConfigChanged):
        return _t(
            QT_TRANSLATE_NOOP(
                "ConfigProblem",
                "The configuration file was changed outside this window meanwhile; nothing was "
                "saved, so that change is kept. Save again to add yours to the file as it is now.",
            )
        )
    return str(exc)
