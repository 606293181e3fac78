from media_assistant.cli import main

# Guarded: a child process the app starts (an export, core/exports/child.py) imports this module
# again under another name and must not run the command line.
if __name__ == "__main__":
    raise SystemExit(main())
