"""Per-item work of a bulk command as Ray tasks (``run_as_ray_tasks``): verify's gate replays, eval's
episodes, each against episodes on the host actors.

The items are cut into chunks (interleaved, so each chunk gets a like mix); each chunk is one Ray task, a
streaming generator that opens the job once (its own control client, transport, LLM client), runs the
chunk's items, its share of ``concurrency`` at a time, on its own event loop and yields each result as it
finishes. The driver hands each result to ``on_result`` as it arrives (progress, a run store appending
it) and returns them all in input order, so what a caller writes does not depend on where or in what
order items ran.

What it guarantees, and why:
- **No wait for resources that cannot come**: a Ray task asks for no CPU (``num_cpus=0``). Host actors
  reserve a CPU each and a run starts as many as the cluster has CPUs free, so a task asking for any
  would never be scheduled. The chunks are few (the caller gives one per host actor) and mostly wait on
  HTTP, so leaving them out of Ray's CPU accounting oversubscribes nothing by much.
- **Never a hang**: a chunk that Ray has not started within ``START_SECONDS`` is cancelled; a Ray
  task that Ray lost (its worker crashed, its node left) fails only its items not yet returned, each
  through ``failed`` (a clear per-item error the caller records as it records any infrastructure
  failure).
- **The job's own errors stop the run, as they would without Ray**: an exception raised by the job's
  code (opening it, or one item's work) is not Ray's failure but the caller's (a bug, a usage error), so
  it is not turned into per-item failures: the chunk ends, the other chunks are cancelled, and the driver
  raises that exception, its type and message as raised (with a note giving the Ray task's traceback).
  The chunk pickles it itself and checks it unpickles: an exception that does not survive pickling
  (one whose ``__init__`` does not take its ``args`` back) would otherwise reach the driver as Ray's
  ``UnserializableException``, indistinguishable from Ray's own failures; such a one is raised as a
  ``RemoteError`` naming its type and message. A caller whose per-item failures are records (verify's
  ``environment`` gate) catches them in its job, as its local run does.
- **No retries**: ``max_retries=0``. A retried chunk would run again items already returned (an eval
  episode twice); the caller's resume runs failed items again instead.
- **Reachable**: with a loopback control URL (one machine, the default) the chunks run on the driver's
  node, where loopback reaches it; with a routable one Ray spreads them over the nodes.

This module knows nothing of what the items are; it must not import the verifier or the clients.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import pickle
import traceback
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit

from scaleenv_mcp.cluster.hosts import ray_cause
from scaleenv_mcp.cluster.requirement import import_ray
from scaleenv_mcp.gathering import gather_all

__all__ = ["START_SECONDS", "RayJob", "RemoteError", "run_as_ray_tasks"]

log = logging.getLogger("scaleenv.cluster")

Item = TypeVar("Item")
Result = TypeVar("Result")
Item_contra = TypeVar("Item_contra", contravariant=True)
Result_co = TypeVar("Result_co", covariant=True)

START_SECONDS = 120.0  # Ray must start a chunk within this (a worker process to start on a loaded node)


class RayJob(Protocol[Item_contra, Result_co]):
    """What every chunk runs. Pickled to the Ray worker, so it holds only data (URLs, a token, models);
    ``open`` builds there what the items share (clients) and yields the function that runs one item."""

    def open(self) -> contextlib.AbstractAsyncContextManager[Callable[[Item_contra], Awaitable[Result_co]]]: ...


@dataclass(frozen=True)
class _Started:
    """The first thing a chunk yields: where it runs (the driver logs it; tests read it there)."""

    pid: int
    task_id: str
    node_id: str


class RemoteError(Exception):
    """An exception the job raised in a Ray task that does not survive pickling, raised in the driver
    instead: its message is the original's qualified type name and message."""


@dataclass(frozen=True)
class _Raised:
    """What a chunk yields, and then ends, when the job's own code raised: the exception, pickled in the
    Ray task (where it is checked to unpickle), for the driver to raise."""

    pickled: bytes

    @classmethod
    def of(cls, error: Exception) -> _Raised:
        where = f"pid {os.getpid()}, node {import_ray().get_runtime_context().get_node_id()}"
        note = f"raised in a Ray task ({where}):\n{''.join(traceback.format_exception(error)).rstrip()}"
        dumps = import_ray().cloudpickle.dumps  # by value where the job's own module travels by value
        try:
            error.add_note(note)
            pickled = dumps(error)
            pickle.loads(pickled)
        except Exception:  # noqa: BLE001 - it does not travel as itself: its type's name and message do
            kind = type(error)
            stand_in = RemoteError(f"{kind.__module__}.{kind.__qualname__}: {error}")
            stand_in.add_note(note)
            pickled = dumps(stand_in)
        return cls(pickled)

    def error(self) -> BaseException:
        raised = pickle.loads(self.pickled)
        assert isinstance(raised, BaseException)
        return raised


async def _chunk_results(job: RayJob[Any, Any], items: list[Any], concurrency: int
                         ) -> AsyncGenerator[tuple[int, Any] | _Raised, None]:
    """(position, result) per item as it finishes; a ``_Raised``, and the end, when the job's own code
    raised (opening or closing it, or an item's work): the items still running are cancelled."""
    try:
        async with job.open() as run_one:
            gate = asyncio.Semaphore(concurrency)

            async def one(position: int, item: Any) -> tuple[int, Any]:
                async with gate:
                    return position, await run_one(item)

            pending = {asyncio.ensure_future(one(i, item)) for i, item in enumerate(items)}
            try:
                while pending:
                    done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                    for finished in done:
                        yield finished.result()  # an item's exception is raised here
            finally:
                for left in pending:
                    left.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
    except Exception as error:  # noqa: BLE001 - the job's error, for the driver to raise as a local run would
        yield _Raised.of(error)


def _run_chunk(job: RayJob[Any, Any], items: list[Any], concurrency: int) -> Iterator[Any]:
    """The Ray task: a generator (Ray streams what it yields), driving the async chunk on a loop of its own."""
    context = import_ray().get_runtime_context()
    yield _Started(os.getpid(), context.get_task_id() or "", context.get_node_id())
    loop = asyncio.new_event_loop()
    results = _chunk_results(job, items, concurrency)
    try:
        while True:
            try:
                yield loop.run_until_complete(anext(results))
            except StopAsyncIteration:
                return
    finally:
        loop.run_until_complete(results.aclose())
        loop.close()


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _placement(reach: str) -> Any:
    """Where chunks may run: the driver's node when ``reach`` (the control URL) is loopback, else anywhere."""
    ray = import_ray()
    if not _is_loopback(reach):
        return "SPREAD"
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=ray.get_runtime_context().get_node_id(), soft=False)


async def run_as_ray_tasks(job: RayJob[Item, Result], items: Sequence[Item], *, chunks: int, concurrency: int,
                           reach: str, failed: Callable[[Item, str], Result],
                           on_result: Callable[[int, Result], None] | None = None) -> list[Result]:
    """Run ``job`` on every item in ``chunks`` Ray tasks, ``concurrency`` items at a time over all of them.

    Why: the per-item work of ``verify --ray`` and ``eval --ray`` then runs on the cluster's cores, not
    on the command's one process. Ray must already be initialised (``hosts.connect_ray``).

    Args:
        job: what each chunk opens and runs per item (picklable: it travels to the workers).
        items: the work; each must pickle.
        chunks: how many Ray tasks (at most one per item).
        concurrency: items in flight over every chunk (each chunk runs its share, rounded up, at a time).
        reach: the control URL the job talks to; loopback keeps the chunks on this node.
        failed: the result standing for an item Ray could not run to its end (the reason given): its
            chunk's Ray task failed (worker or node lost) or was not started in time.
        on_result: called with (input index, result) as each arrives; if it raises, the chunks still
            running are cancelled and the error raised here.

    Returns:
        One result per item, in input order.

    Raises:
        Exception: what the job's own code raised in a Ray task (opening the job, or one item's work), as
            it was raised (``RemoteError`` when it does not survive pickling); the chunks still running
            are cancelled first.
    """
    ray = import_ray()
    remote = ray.remote(_run_chunk).options(num_cpus=0, max_retries=0, scheduling_strategy=_placement(reach))
    results: dict[int, Result] = {}

    def deliver(index: int, result: Result) -> None:
        results[index] = result
        if on_result is not None:
            on_result(index, result)

    async def drive(indices: list[int]) -> None:
        stream = remote.remote(job, [items[i] for i in indices], per_chunk)
        returned: set[int] = set()
        raised: BaseException | None = None
        finished = False
        try:
            started = await asyncio.wait_for(_next_value(stream), START_SECONDS)
            log.info("%d items run in Ray task %s (pid %d, node %s)", len(indices), started.task_id, started.pid,
                     started.node_id)
            async for ref in stream:
                value = await ref
                if isinstance(value, _Raised):  # raised below, outside the handlers of Ray's failures
                    raised = value.error()
                    break
                position, result = value
                returned.add(position)
                deliver(indices[position], result)
            finished = True
        except ray.exceptions.RayTaskError as error:  # code of the chunk itself raised: a bug, not Ray's failure
            raised = ray_cause(error)
            finished = True
        except (ray.exceptions.RayError, asyncio.TimeoutError, StopAsyncIteration) as error:
            reason = (f"Ray did not start the task running it within {START_SECONDS:g} s"
                      if isinstance(error, asyncio.TimeoutError) else
                      f"the Ray task running it failed: {type(error).__name__}: {_first_line(error)}")
            # a chunk that did not start in time is cancelled (finally): started later, it would run its
            # items again after they were reported failed (an eval episode played twice)
            finished = not isinstance(error, asyncio.TimeoutError)
            for position, index in enumerate(indices):
                if position not in returned:
                    deliver(index, failed(items[index], reason))
        finally:
            if not finished:
                with contextlib.suppress(Exception):
                    ray.cancel(stream, force=True)
        if raised is not None:
            raise raised

    count = max(1, min(chunks, len(items)))
    per_chunk = -(-concurrency // count)
    await gather_all(drive(list(range(len(items)))[c::count]) for c in range(count))
    return [results[i] for i in range(len(items))]


async def _next_value(stream: Any) -> Any:
    return await (await anext(stream))


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""
