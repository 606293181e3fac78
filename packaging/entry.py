"""The frozen app's entry point (packaging/media_assistant.spec): the same ``main`` as the
``media-assistant`` command.

``freeze_support()`` first: a child process the app starts with ``multiprocessing`` (an export,
core/exports/child.py) is this same executable started again with the child's arguments; it must
run the child's work and exit before any of the command line or the window is touched.
"""

import multiprocessing

if __name__ == "__main__":
    multiprocessing.freeze_support()

    from media_assistant.cli import main

    raise SystemExit(main())
