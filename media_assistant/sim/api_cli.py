"""``python -m media_assistant.sim.api_cli``: serve the fake OpenAI API until Ctrl-C.

Prints the base URL (``http://127.0.0.1:<port>/v1``) on the first line of stdout, for scripts.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from media_assistant.sim.api_server import ApiSimConfig, ApiSimulator, KeySpec
from media_assistant.sim.threaded import serve_until_signal


def _range(text: str) -> tuple[float, float]:
    low, _, high = text.partition(",")
    return float(low), float(high or low)


def _key_spec(text: str) -> tuple[str, KeySpec]:
    key, _, rpm = text.partition(":")
    return key, KeySpec(rpm=int(rpm) if rpm else None)


def _parse_args(argv: Sequence[str] | None) -> tuple[ApiSimConfig, int]:
    parser = argparse.ArgumentParser(
        prog="python -m media_assistant.sim.api_cli",
        description="Serve a fake OpenAI-compatible API on 127.0.0.1 until Ctrl-C.",
    )
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--latency", default="8,20", help="seconds per generation: LOW,HIGH")
    parser.add_argument("--time-scale", type=float, default=1.0, help="0.01 = 100x faster")
    parser.add_argument("--rpm", type=int, default=None, help="requests per minute per key")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--answer-chars", default="300,1500", help="filler length: LOW,HIGH")
    parser.add_argument(
        "--sim-time-headers",
        action="store_true",
        help="report waits in simulated seconds (for clients on a scaled clock)",
    )
    parser.add_argument(
        "--key",
        action="append",
        default=None,
        metavar="KEY[:RPM]",
        help="accept only these bearer keys (repeatable); RPM overrides --rpm for the key",
    )
    args = parser.parse_args(argv)
    try:
        chars = _range(args.answer_chars)
        config = ApiSimConfig(
            latency_s=_range(args.latency),
            time_scale=args.time_scale,
            seed=args.seed,
            rpm=args.rpm,
            keys=dict(_key_spec(k) for k in args.key) if args.key else None,
            answer_chars=(int(chars[0]), int(chars[1])),
            sim_time_headers=args.sim_time_headers,
        )
    except ValueError as exc:
        parser.error(str(exc))
    return config, args.port


def main(argv: Sequence[str] | None = None) -> int:
    config, port = _parse_args(argv)
    return serve_until_signal(ApiSimulator(config), port)


if __name__ == "__main__":
    raise SystemExit(main())
