"""One timer for every worker of a pool: the budgets of their running requests, and their stalls.

A worker runs one request at a time, so the request at the head of its queue is the one it runs.
Two instants matter per head: its deadline (past it the worker is killed: ``WorkerHandle.expire``)
and, when the pool moves episodes off a busy worker, the moment it has run ``stall_after`` seconds
(``WorkerHandle.stall``: the episodes queued behind it go to another worker, #29 item 5). One
``asyncio`` timer per pool is armed at the earliest of those instants, never one timer per call.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scaleenv_mcp.workers.pool import WorkerHandle

__all__ = ["Watchdog"]


class Watchdog:
    """One timer for the budgets and stalls of every worker of a pool, armed at the earliest instant."""

    def __init__(self) -> None:
        self.handles: list[WorkerHandle] = []
        self.timer: asyncio.TimerHandle | None = None
        self.timer_loop: asyncio.AbstractEventLoop | None = None

    def arm(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        timer = self.timer
        if timer is None or deadline < timer.when() or self.timer_loop is not loop:
            if timer is not None:
                timer.cancel()
            self.timer, self.timer_loop = loop.call_at(deadline, self._check, loop), loop

    def _check(self, loop: asyncio.AbstractEventLoop) -> None:
        self.timer = self.timer_loop = None
        now = loop.time() + 0.001  # a timer may fire a clock tick early
        for handle in list(self.handles):
            if handle.loop is not loop:
                continue
            if handle.deadline is not None and handle.deadline <= now:
                handle.expire()
            elif handle.stall_at is not None and handle.stall_at <= now:
                handle.stall()
        upcoming = [t for h in self.handles if h.loop is loop for t in (h.deadline, h.stall_at) if t is not None]
        if upcoming:
            self.arm(loop, min(upcoming))
