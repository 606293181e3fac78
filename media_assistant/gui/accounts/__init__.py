"""Accounts and set-up: the accounts panel, the set-up window (accounts, models, their editors,
the session that writes ``config.toml``), config problems in words and the browser download.
May import ``gui.common`` and ``gui.bridge``."""
