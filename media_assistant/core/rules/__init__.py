"""Pure rules: functions of their inputs and a ``now`` passed in — no I/O, no clock of their own,
so the lanes, ``status``, the window and unit tests share them: pacing of web accounts
(``pacing``), retry and backoff (``retry``), the quality gate's checks (``quality``), batch
schedules (``schedules``) and the lanes' ETA by list scheduling (``eta``). May import
``core.model`` only."""
