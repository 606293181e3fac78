"""The two engines under the task store, one module each: ``sqlite`` (a workstation's own file,
the default) and ``postgres`` (a team's shared database). Everything one engine needs and the
other does not lives in its module; the rooms of the store write portable SQLAlchemy and reach
the few engine-specific operations through ``core/store/db.py``."""
