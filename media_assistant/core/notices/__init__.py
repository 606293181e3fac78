"""Notices that reach people — a batch ended, an account needs the operator, the disk is nearly
full — derived from the store's events (``center``), and their settings
(``[notifications]``, ``[[webhooks]]``: ``config``). The webhooks themselves are sent by
``providers/webhooks.py``. May import ``core.model``, ``files``, ``rules``, ``config`` and
``store``."""
