"""The vocabulary every other package speaks: task and account states, errors as kinds,
plain records, typed change events and their bus, event codes, the injectable clock, the
Provider protocol both ways of generating implement, and what long work sees of its caller
(job control). Imports nothing of ours: everything else may import it."""
