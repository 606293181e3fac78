"""The frozen app's entry point (packaging/media_assistant.spec): the same ``main`` as the
``media-assistant`` command."""

from media_assistant.cli import main

raise SystemExit(main())
