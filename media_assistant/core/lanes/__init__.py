"""The two lanes (DESIGN §4): a web lane with exactly one running task per web account, and an
API lane with per-account concurrency and rate limits. They never share workers."""
