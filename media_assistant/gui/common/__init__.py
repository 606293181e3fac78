"""What every part of the window shares: the palette and fonts (``style``), the translations
(``i18n``), words for states and problems (``labels``, ``pacing_labels``, ``event_text``),
the app's icon and how a form shows a refused value (``form_problems``). Imports no other
``gui`` package."""
