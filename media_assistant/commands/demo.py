"""``demo``: the built-in demo without a window — both simulators, demo accounts, a sample
batch run through both lanes with progress on stdout. Its data: ``<data-dir>/demo``."""

from __future__ import annotations

import argparse
import asyncio

from media_assistant.commands.run import _run
from media_assistant.core.files.paths import Paths
from media_assistant.demo import DemoEnvironment, sample_batch, sample_batch_id
from media_assistant.services import Services


def cmd_demo(paths: Paths, args: argparse.Namespace) -> int:
    env = DemoEnvironment(paths.data_dir, use_browser=False if args.no_browser else None)
    env.start()  # holds <data-dir>/demo's scheduler lock (SchedulerBusy: exit 3) until stop()
    try:
        demo_paths = Paths.resolve(env.data_dir)
        print(f"demo data: {env.data_dir}  (web: {env.browser_description or 'simulated'})")
        services = Services.open(demo_paths, team=False)  # a demo never joins a team
        try:
            batch = sample_batch_id(services.clock.now())
            return asyncio.run(_run(services, sample_batch(batch)))
        finally:
            services.close()
    finally:
        env.stop()
