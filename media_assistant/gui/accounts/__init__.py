"""Accounts and set-up: the accounts panel, the set-up window (accounts, models, their editors,
the session that writes ``config.toml``), config problems in words, the browser download, and
*Check site* / *Install adapter file…* (``site_actions``).
May import ``gui.common`` and ``gui.bridge``."""
