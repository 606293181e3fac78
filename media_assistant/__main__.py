from media_assistant.cli import main

raise SystemExit(main())
