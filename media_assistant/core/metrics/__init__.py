"""The lanes measured (issue 31): percentiles of wait, generation and end-to-end time, finished per
minute, busy share, timeout/failure/deferral rates, backlog and its trend, API quota use — per
lane, model, account and workstation over a window — and the alarms on them. Computed from the
store (so a restart and a team's workstations see the same figures), on a database thread.

May import (core): model, files, rules, config, store.
"""
