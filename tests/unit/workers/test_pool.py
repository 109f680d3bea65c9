"""The worker protocol built for throughput (#25 item 3): one reader per worker, several requests in
flight, one watchdog timer for every budget, and requests queued behind a lost call still answered."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from scaleenv_mcp.workers.pool import WorkerHandle, WorkerLostError, WorkerPool
from scaleenv_mcp.workers.protocol import Frames, frame

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def pool():
    workers = WorkerPool(2, memory_limit=1024**3)
    workers.start()
    yield workers
    workers.stop()


def test_frames_are_read_back_across_any_split():
    messages = [("ok", "x" * n) for n in (0, 1, 300, 70_000)]
    stream = b"".join(frame(m) for m in messages)
    for step in (1, 3, 4096, len(stream)):
        frames = Frames()
        read = [m for i in range(0, len(stream), step) for m in frames.feed(stream[i:i + step])]
        assert read == messages


async def test_pipelined_requests_are_answered_in_order(pool: WorkerPool):
    worker = pool.workers[0]
    futures = [worker.submit(("sleep", 0.001 * (i % 3)), 5) for i in range(30)]
    futures.insert(15, worker.submit(("ping",), 5))
    replies = await asyncio.gather(*futures)
    assert replies[15] == ("ok", "pong")
    assert all(r == ("ok", None) for i, r in enumerate(replies) if i != 15)
    assert not worker._inflight and worker.deadline is None


async def test_one_timer_serves_every_budget(pool: WorkerPool):
    first = pool.workers[0]
    await first.request(("ping",), 30)
    timer = pool.watchdog.timer
    assert timer is not None
    for _ in range(50):  # later deadlines than the armed one: no new timer per call
        await asyncio.gather(*(w.request(("ping",), 30) for w in pool.workers))
    assert pool.watchdog.timer is timer


async def test_each_queued_request_gets_its_budget_from_when_the_worker_starts_it(pool: WorkerPool):
    worker = pool.workers[0]
    await worker.request(("ping",), 60)  # the interpreter's start (seconds on a loaded machine) is no request's
    pid = worker.pid
    started = time.monotonic()
    replies = await asyncio.gather(*(worker.submit(("sleep", 0.4), 1.0) for _ in range(4)))
    assert replies == [("ok", None)] * 4 and time.monotonic() - started >= 1.6
    assert worker.pid == pid  # 1.6 s in all, over one request's 1 s budget: nobody was killed


async def test_requests_behind_a_runaway_are_answered_by_the_fresh_worker(pool: WorkerPool):
    worker = pool.workers[0]
    recovered: list[int] = []

    async def recover(handle: WorkerHandle) -> None:
        recovered.append(handle.pid)  # runs before the held requests: a ping from here goes first
        assert await handle.request(("ping",), 5) == ("ok", "pong")

    worker.recover = recover
    pid = worker.pid
    runaway = worker.submit(("sleep", 60), 0.5)
    behind = [worker.submit(("ping",), 5) for _ in range(3)]
    with pytest.raises(WorkerLostError, match="wall-time budget of 0.5 s"):
        await runaway
    assert await asyncio.gather(*behind) == [("ok", "pong")] * 3
    assert worker.pid != pid and recovered == [worker.pid]
    assert pool.workers[1].pid is not None and await pool.workers[1].request(("ping",), 5) == ("ok", "pong")


async def test_a_worker_that_dies_idle_is_replaced_at_once(pool: WorkerPool):
    worker = pool.workers[1]
    await worker.request(("ping",), 5)
    recovered = asyncio.Event()

    async def recover(handle: WorkerHandle) -> None:
        recovered.set()

    worker.recover = recover
    pid = worker.pid
    os.kill(pid, signal.SIGKILL)
    await asyncio.wait_for(recovered.wait(), 10)  # seen by the reader, not at the next request
    assert worker.pid != pid
    assert await worker.request(("ping",), 5) == ("ok", "pong")


async def test_a_cancelled_caller_does_not_shift_the_replies(pool: WorkerPool):
    worker = pool.workers[0]
    slow = asyncio.ensure_future(worker.request(("sleep", 0.3), 5))
    await asyncio.sleep(0.05)
    slow.cancel()
    assert await worker.request(("ping",), 5) == ("ok", "pong")


async def test_requests_behind_a_stalled_one_are_handed_over_and_replies_still_match():
    """#29 item 5 at the pool level: once the head has run ``stall_after``, ``on_stall`` sees the requests
    behind it and may hand them to another worker. The stalled worker answers their place-holders
    later (dropped), and the requests queued on it after that still get their own replies."""
    workers = WorkerPool(2, memory_limit=1024**3, stall_after=0.3)
    stalls: list[list[tuple[object, ...]]] = []

    def on_stall(handle: WorkerHandle) -> None:
        queued = handle.queued()
        stalls.append([r.message for r in queued])
        handle.hand_over(queued, workers.workers[1])

    workers.on_stall = on_stall
    workers.start()
    try:
        first, second = workers.workers
        await asyncio.gather(first.request(("ping",), 60), second.request(("ping",), 60))  # both interpreters up
        slow = first.submit(("sleep", 1.5), 10)
        behind = [first.submit(("ping",), 5), first.submit(("sleep", 0.01), 5)]
        assert await asyncio.gather(*behind) == [("ok", "pong"), ("ok", None)]
        assert not slow.done()  # answered by the other worker while the first one still sleeps
        assert [m for m in stalls if m][0] == [("ping",), ("sleep", 0.01)]  # (a slow start stalls too)
        late = first.submit(("ping",), 5)  # queued on the stalled worker after the hand-over: moved as well
        assert await late == ("ok", "pong") and not slow.done()
        assert await slow == ("ok", None)
        assert await first.request(("ping",), 5) == ("ok", "pong")  # the place-holders took the moved replies
        assert not first.queued() and first.stall_at is None and not first.stalled
    finally:
        workers.stop()
