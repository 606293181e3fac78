"""The task store as a file and what can happen to it: checked at every open, damaged or held
by another program (``store_file``), backed up and restored (``backups``), a full disk noticed
and waited out (``full``), the reserve kept for the last writes (``reserve``) and those writes
and their recovery (``last_writes``), and what a scheduler does once a day at start
(``upkeep``). May import ``core.model``, ``files``, ``rules``, ``config`` and ``store``."""
