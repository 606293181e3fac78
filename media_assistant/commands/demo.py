"""``demo``: the built-in demo without a window — both simulators, demo accounts, a sample
batch run through both lanes with progress on stdout."""

from __future__ import annotations

import argparse
import asyncio

from media_assistant.commands.run import _run
from media_assistant.core.locks import DataDirLock
from media_assistant.core.paths import Paths
from media_assistant.demo import DemoEnvironment, sample_batch
from media_assistant.services import Services


def cmd_demo(paths: Paths | None, args: argparse.Namespace) -> int:
    env = DemoEnvironment(
        paths.data_dir if paths else None, use_browser=False if args.no_browser else None
    )
    env.start()
    try:
        demo_paths = Paths.resolve(env.data_dir)
        print(f"demo data: {env.data_dir}  (web: {env.browser_description or 'simulated'})")
        lock = DataDirLock(demo_paths.data_dir)
        lock.acquire()
        services = Services.open(demo_paths)
        try:
            batch = f"demo-{services.clock.now():.0f}"
            return asyncio.run(_run(services, sample_batch(batch)))
        finally:
            services.close()
            lock.release()
    finally:
        env.stop()
