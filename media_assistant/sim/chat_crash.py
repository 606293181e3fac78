"""Fault ``browser_crash``: the Chromium asking for an answer dies while it streams, for real.

A browser crash cannot be drawn by a page — it is the client's process that dies — so the
simulator finds that process and kills it: the TCP connection of the completion request belongs
to a process of this machine (the chat site serves loopback); its owner (Chromium's network
service) is climbed up to the browser's main process (the one with ``--user-data-dir`` and no
``--type``), and that process and every process under it get SIGKILL, as an out-of-memory kill or
a crash would end them. The page's generation was started and is left on the site (the site
keeps generating for a page that went away, as the real sites do).

Nothing that is not a Chromium is ever killed: a peer that is a proxy (tinyproxy, dante), a
script or this very process is left alone, and the fault then does nothing but say so in the
log. psutil (already a dependency) reads the connection table and the process tree; no
hand-written /proc parsing.
"""

from __future__ import annotations

import logging
import os

import psutil

log = logging.getLogger(__name__)

Address = tuple[str, int]


def _connection_owner(peer: Address, local: Address) -> int | None:
    """The pid of the process holding the client side of the connection ``peer`` → ``local``."""
    for conn in psutil.net_connections(kind="tcp"):
        if conn.pid is None or not conn.laddr or not conn.raddr:
            continue
        if (conn.laddr.ip, conn.laddr.port) == peer and (conn.raddr.ip, conn.raddr.port) == local:
            return int(conn.pid)
    return None


def _is_browser_main(proc: psutil.Process) -> bool:
    args = proc.cmdline()
    return any(a.startswith("--user-data-dir") for a in args) and not any(
        a.startswith("--type=") for a in args
    )


def browser_of(pid: int) -> psutil.Process | None:
    """The Chromium main process ``pid`` is (or runs under); None if it is no Chromium's."""
    try:
        proc: psutil.Process | None = psutil.Process(pid)
        while proc is not None and proc.pid > 1:
            if proc.pid == os.getpid():
                return None  # never this process (nor what started it)
            if _is_browser_main(proc):
                return proc
            proc = proc.parent()
    except psutil.Error:
        return None
    return None


def kill_tree(main: psutil.Process) -> int:
    """SIGKILL the browser's main process, then whatever ran under it. Processes killed."""
    try:
        children = main.children(recursive=True)
    except psutil.Error:
        children = []
    killed = 0
    for proc in (main, *children):
        try:
            proc.kill()
            killed += 1
        except psutil.Error:
            continue
    return killed


def crash_peer_browser(peer: Address | None, local: Address | None) -> int | None:
    """Kill the Chromium at the other end of a request's connection; its main pid, or None
    (no connection known, or the peer is not a Chromium: nothing killed)."""
    if peer is None or local is None:
        return None
    owner = _connection_owner((peer[0], peer[1]), (local[0], local[1]))
    main = browser_of(owner) if owner is not None else None
    if main is None:
        log.warning(
            "fault browser_crash: the client at %s:%s is no Chromium (pid %s): nothing killed",
            peer[0],
            peer[1],
            owner,
        )
        return None
    kill_tree(main)
    return main.pid
