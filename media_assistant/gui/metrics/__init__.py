"""The Metrics window (issue 31 item 2): the lanes' figures (core/metrics/) as tables and charts
— finished per minute and p90 end to end over the day per lane, busy share per account, quota use
per API account against its limit. May import ``gui.common`` and ``gui.bridge``."""
