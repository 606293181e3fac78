"""Loopback simulators (OpenAI-compatible API, chat site) for tests, benchmarks and the demo."""
