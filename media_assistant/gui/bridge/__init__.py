"""Between the window and the app: core events turned into Qt signals (``bus``), the one
controller widgets call (``controller``), background jobs with progress and Cancel (``jobs``),
the qasync loop (``event_loop``), OS signals that close the window (``shutdown_signals``) and
the window's copy of pauses and schedules (``queue_holds``). May import ``gui.common``."""
