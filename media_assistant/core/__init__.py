"""Pure-Python core: tasks, states, store, scheduler, lanes.

Never imports Qt, Playwright or httpx.
"""
