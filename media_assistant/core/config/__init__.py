"""Configuration: the one typed, validated schema of ``config.toml`` (``schema``; unknown keys
are errors, every default documented), and editing the file in place with the operator's
comments kept (``edit``). May import ``core.model``, ``core.files`` and ``core.rules`` (the
pacing and quality tables are theirs)."""
