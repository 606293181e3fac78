#!/usr/bin/env bash
# Update the translation catalogues from the GUI sources, then compile them for the app.
#
#   scripts/i18n.sh            lupdate → resources/i18n/media_assistant_<lang>.ts
#                              lrelease → the .qm next to each (loaded at run time; packaged)
#
# After adding or changing a user-facing string: run this, translate the new entries in the
# .ts files (Qt Linguist: .venv/bin/pyside6-linguist, or by hand), run it again, commit the .ts
# and .qm files. tests/gui/test_i18n.py fails while a string is missing or untranslated.
# No source locations in the .ts files: moving code around does not touch them.
# Plurals: self.tr("%n task(s)", "", n) in a QObject subclass. lupdate does not see a plural in
# QCoreApplication.translate(ctx, text, "", n) with a variable n, so English would read "task(s)".
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
DIR=resources/i18n
SOURCES=(media_assistant/gui/*.py media_assistant/gui/*/*.py media_assistant/app.py)
mkdir -p "$DIR"
for lang in zh_CN en; do
    "$BIN/pyside6-lupdate" -silent -no-obsolete -locations none \
        "${SOURCES[@]}" -ts "$DIR/media_assistant_$lang.ts"
    "$BIN/pyside6-lrelease" -silent "$DIR/media_assistant_$lang.ts" \
        -qm "$DIR/media_assistant_$lang.qm"
done
