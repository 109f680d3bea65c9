"""``run_as_ray_tasks`` (scaleenv_mcp/cluster/ray_tasks.py), what ``verify --ray`` and ``eval --ray`` run
their per-item work with, on a Ray cluster started here whose every CPU is held (as host actors hold
them): the chunks still run (they ask for none); results come back in input order; a Ray task whose
worker dies fails only its items not yet returned, each with a clear reason; an exception the job's own
code raises (an item's work, opening the job) is not Ray's failure: it stops the run and is raised in
the driver as it was raised (type and message, not a RayTaskError), one that does not survive pickling
as a ``RemoteError`` naming it, the other chunks cancelled at once; an ``on_result`` that raises cancels
what is still running and is raised, without waiting for it. Skipped where Ray is not installed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass

import anyio
import pytest

from scaleenv_mcp.cluster.ray_tasks import RemoteError, run_as_ray_tasks
from scaleenv_mcp.errors import UsageError
from tests.support_ray import ray_cluster  # noqa: F401 - the module's Ray cluster

ray = pytest.importorskip("ray")
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the job travels by value: no import there

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.xdist_group("ray")]  # one Ray cluster at a time

LOOPBACK = "http://127.0.0.1:1"  # where the job "talks": keeps the chunks on this node


@dataclass(frozen=True)
class _Job:
    """Item 7 kills its worker process, item 9 is still running then; the rest return item * 10.
    With ``slow``, every item but 0 takes a minute."""

    slow: bool = False

    @contextlib.asynccontextmanager
    async def open(self) -> AsyncIterator[Callable[[int], Awaitable[int]]]:
        async def one(item: int) -> int:
            if self.slow and item:
                await asyncio.sleep(60)
            if item == 7:
                await asyncio.sleep(1.0)  # items 1, 3 and 5 have been returned by then
                os._exit(1)
            if item == 9:
                await asyncio.sleep(60)
            return item * 10

        yield one


class _TwoArguments(Exception):
    """An exception that pickles but does not unpickle: its ``__init__`` does not take its ``args`` back."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")


@dataclass(frozen=True)
class _Raising:
    """Item 0 returns at once, item 2 raises ``UsageError`` 0.2 s in, every other item takes a minute (the
    chunks are 0, 2, 4 and 1, 3, 5: item 0 is returned before item 2 raises in the same Ray task, whenever
    Ray starts either task);
    with ``open_fails``, opening the job raises ``_TwoArguments`` instead."""

    open_fails: bool = False

    @contextlib.asynccontextmanager
    async def open(self) -> AsyncIterator[Callable[[int], Awaitable[int]]]:
        if self.open_fails:
            raise _TwoArguments("no_client", "the job could not open")

        async def one(item: int) -> int:
            if item == 2:
                await asyncio.sleep(0.2)
                raise UsageError("two is refused")
            if item:
                await asyncio.sleep(60)
            return item * 10

        yield one


@pytest.fixture
def every_cpu_held(ray_cluster: None) -> Iterator[None]:
    """An actor holding both CPUs, as two host actors do in a `--ray` run."""

    @ray.remote(num_cpus=2)
    class Hog:
        def ready(self) -> bool:
            return True

    hog = Hog.remote()
    assert ray.get(hog.ready.remote(), timeout=60)
    assert ray.available_resources().get("CPU", 0.0) == 0.0
    yield
    ray.kill(hog)


async def test_results_in_order_and_a_dead_worker_fails_only_its_unreturned_items(every_cpu_held: None):
    arrived: list[int] = []
    with anyio.fail_after(90):  # item 9 would take a minute: the dead worker's items must not wait for it
        results = await run_as_ray_tasks(_Job(), list(range(10)), chunks=2, concurrency=6, reach=LOOPBACK,
                                         failed=lambda item, reason: f"{item} failed: {reason}",
                                         on_result=lambda index, _: arrived.append(index))
    assert sorted(arrived) == list(range(10))
    # chunks are 0,2,..8 and 1,3,..9
    assert [results[i] for i in (0, 1, 2, 3, 4, 5, 6, 8)] == [0, 10, 20, 30, 40, 50, 60, 80]
    for item in (7, 9):
        assert isinstance(results[item], str) and results[item].startswith(
            f"{item} failed: the Ray task running it failed: "), results


async def test_an_items_own_error_stops_the_run_as_raised_and_cancels_the_rest_at_once(ray_cluster: None):
    arrived: list[int] = []
    failed: list[int] = []

    def failing(item: int, reason: str) -> int:
        failed.append(item)
        return -1

    with anyio.fail_after(30), pytest.raises(UsageError) as raised:  # the other items would take a minute
        await run_as_ray_tasks(_Raising(), list(range(6)), chunks=2, concurrency=6, reach=LOOPBACK,
                               failed=failing, on_result=lambda index, _: arrived.append(index))
    # what the job's code raised, its type and message, not Ray's wrapping of it (RayTaskError(UsageError))
    assert type(raised.value) is UsageError and str(raised.value) == "two is refused"
    assert any(note.startswith("raised in a Ray task (pid ") and "two is refused" in note
               for note in getattr(raised.value, "__notes__", [])), raised.value
    assert arrived == [0] and failed == []  # what finished before was delivered; nothing became a failure


async def test_an_error_opening_the_job_stops_the_run_and_one_that_does_not_unpickle_is_named(ray_cluster: None):
    with anyio.fail_after(30), pytest.raises(RemoteError) as raised:
        await run_as_ray_tasks(_Raising(open_fails=True), list(range(4)), chunks=2, concurrency=4, reach=LOOPBACK,
                               failed=lambda item, reason: -1)
    assert str(raised.value) == f"{__name__}._TwoArguments: no_client: the job could not open"


async def test_an_on_result_that_raises_cancels_the_rest_at_once(every_cpu_held: None):
    def stop(index: int, result: int) -> None:
        raise RuntimeError(f"stop at {index}")

    with anyio.fail_after(45), pytest.raises(RuntimeError, match="stop at 0"):  # the others would take a minute
        await run_as_ray_tasks(_Job(slow=True), list(range(6)), chunks=2, concurrency=6, reach=LOOPBACK,
                               failed=lambda item, reason: -1, on_result=stop)
