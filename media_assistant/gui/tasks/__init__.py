"""The task table and everything about one task: the table's rows and model (``rows``,
``model``), its view and actions (``view``, ``actions``), the details window (``details``,
``event_log``, ``result``) and the export dialog. May import ``gui.common`` and
``gui.bridge``."""
