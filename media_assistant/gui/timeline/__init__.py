"""The timeline of every account's tasks: the tracks (pure layout), the painting and the
view. May import ``gui.common``."""
