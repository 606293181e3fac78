"""Pure rules: functions of their inputs and a ``now`` passed in — no I/O, no clock of their own,
so the lanes, ``status``, the window and unit tests share them: pacing of web accounts
(``pacing``), retry and backoff (``retry``), the quality gate's checks (``quality``), batch
schedules (``schedules``), the lanes' ETA by list scheduling (``eta``) and when a web account's
failures say its site changed its page, with the site check's report (``site_breakage``). May
import ``core.model`` only."""
