"""The two ways to generate: ``api`` (httpx) and ``web`` (Playwright). Never imports Qt."""
