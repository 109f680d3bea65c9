"""What the host keeps of one request to a worker process, and the errors a worker's loss or a broken domain raise."""

from __future__ import annotations

import asyncio
import re
from typing import Any

__all__ = ["DomainLoadError", "Request", "WorkerLostError"]


class WorkerLostError(Exception):
    """The worker was killed (budget) or died; it has been replaced by a fresh process.

    ``budget``: the request that gets this ran past its own wall-time budget (it is the cause);
    otherwise the worker died under it (killed from outside, a crash) and a retry is safe."""

    def __init__(self, reason: str, budget: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.budget = budget


class DomainLoadError(RuntimeError):
    """The worker could not load a domain's tools (a broken package served with --skip-validation).

    ``str()`` is the worker's report with its traceback, for validation reports; ``summary``
    is its first line, without file paths, for agents and harnesses.
    """

    def __init__(self, report: str) -> None:
        super().__init__(f"worker could not load domain: {report}")
        first = report.splitlines()[0] if report else "unknown error"
        self.summary = re.sub(r"(?<![\w.])/[^\s'\",)]+", "<path>", first)[:300]


class Request:
    """One request to a worker, kept until it is answered."""

    __slots__ = ("future", "data", "timeout", "recovery", "message", "moved")

    def __init__(self, future: asyncio.Future[Any], data: bytes, timeout: float | None, recovery: bool,
                 message: tuple[Any, ...] = ()) -> None:
        self.future = future
        self.data = data  # kept until answered: a request the lost worker never started is sent again
        self.timeout = timeout
        self.recovery = recovery  # sent by the recovery itself, ahead of the held requests
        self.message = message  # what it asks, for whoever moves the episodes of a stalled worker
        self.moved = False  # a place-holder: the request went to another worker; its reply here is dropped

    def placeholder(self) -> Request:
        """What stays in this worker's queue when the request moves: the worker still answers it."""
        stand_in = Request(self.future.get_loop().create_future(), self.data, self.timeout, False)
        stand_in.moved = True
        return stand_in
