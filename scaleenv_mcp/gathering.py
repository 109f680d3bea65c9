"""Run awaitables concurrently and fail like a plain ``await``: ``gather_all``.

Used by the generation stages, the task rewording in synthesis, and the eval runner and regrade
(where the first failure is an infrastructure error the CLI turns into its exit code); it lives in
the core so that no layer imports another for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TypeVar

__all__ = ["gather_all"]

Result = TypeVar("Result")


async def gather_all(awaitables: Iterable[Awaitable[Result]]) -> list[Result]:
    """Run concurrently, results in order; on the first failure cancel the rest and raise it
    (not an ExceptionGroup: the CLI maps the error itself to an exit code)."""
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(_as_coroutine(a)) for a in awaitables]
    except BaseExceptionGroup as group_error:
        first = group_error.exceptions[0]
        while isinstance(first, BaseExceptionGroup):  # a job that ran a task group of its own
            first = first.exceptions[0]
        raise first from None
    return [t.result() for t in tasks]


async def _as_coroutine(awaitable: Awaitable[Result]) -> Result:
    return await awaitable
