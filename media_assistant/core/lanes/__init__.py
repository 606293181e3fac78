"""The scheduler and its two lanes (DESIGN §4): a web lane with exactly one running task per web
account, and an API lane with per-account concurrency and rate limits; they never share
workers. Also the attempt runner (heartbeats, fenced outcomes, retries), the quality gate's
place in an attempt, account changes reaching a running scheduler (``live_accounts``) and site
checks served by a web account's worker between two tasks (``site_checks``).
The top of the core: may import every other core package."""
