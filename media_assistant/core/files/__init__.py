"""The data folder on disk: where things live (``paths``), who may read them (private modes,
``private_files``), file names made from ids (``filenames``), atomic writes (``atomic``),
cross-process locks (one scheduler per data dir, one user per browser profile: ``locks``),
how long diagnostics are kept (``diagnostics``) and what a workstation's window remembers of
the queue (``local_state``). May import ``core.model`` only."""
