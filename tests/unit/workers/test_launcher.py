"""Workers forked from a warm launcher (``workers.launcher``): one launcher per environment forks them,
a launcher that dies takes its workers with it and the pool carries on with a new one, and where no
launcher can start the workers are fresh interpreters as before. Real processes, read through /proc."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from scaleenv_mcp.workers.pool import WorkerLostError, WorkerPool
from tests.support_processes import parent_pid

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks through pidfds, reads /proc")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _name(pid: int) -> str:
    return Path(f"/proc/{pid}/comm").read_text().strip()


def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if " Z " in Path(f"/proc/{pid}/stat").read_text():
                return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
async def own_pool(request: pytest.FixtureRequest) -> AsyncIterator[WorkerPool]:
    """A pool whose environment no other test's pool has, so its launcher is its own to kill."""
    pool = WorkerPool(2, memory_limit=1024**3, env={"SCALEENV_TEST_POOL": f"{request.node.name}-{os.urandom(4).hex()}"})
    pool.start()
    yield pool
    pool.stop()


async def _ping(pool: WorkerPool) -> list[object]:
    return list(await asyncio.gather(*(w.request(("ping",), 30) for w in pool.workers)))


async def test_one_launcher_forks_the_workers_of_an_environment(own_pool: WorkerPool):
    assert await _ping(own_pool) == [("ok", "pong")] * 2
    pids = [w.pid for w in own_pool.workers]
    launchers = {parent_pid(pid) for pid in pids}
    assert len(launchers) == 1 and os.getpid() not in launchers
    launcher = launchers.pop()
    assert parent_pid(launcher) == os.getpid()
    assert _name(launcher) == "scaleenv-launch" and [_name(pid) for pid in pids] == ["scaleenv-worker"] * 2
    again = WorkerPool(1, memory_limit=1024**3, env=own_pool.env)  # same environment: the same launcher
    again.start()
    try:
        assert parent_pid(again.workers[0].pid) == launcher  # type: ignore[arg-type]
    finally:
        again.stop()
    own_pool.workers[0].replace()  # a replaced worker is killed through its pidfd and forked again
    assert _gone(pids[0]) and parent_pid(own_pool.workers[0].pid) == launcher  # type: ignore[arg-type]
    assert await _ping(own_pool) == [("ok", "pong")] * 2


async def test_a_killed_launcher_takes_its_workers_and_the_pool_forks_from_a_new_one(own_pool: WorkerPool):
    await _ping(own_pool)
    pids = [w.pid for w in own_pool.workers]
    launcher = parent_pid(pids[0])  # type: ignore[arg-type]
    os.kill(launcher, signal.SIGKILL)
    assert _gone(launcher) and all(_gone(pid) for pid in pids)  # nothing outlives it
    replies: list[object] = []
    for _ in range(5):  # the first requests may meet the dead workers: they fail as lost, then come back
        try:
            replies = await _ping(own_pool)
            break
        except WorkerLostError:
            await asyncio.sleep(0.1)
    assert replies == [("ok", "pong")] * 2
    fresh = {parent_pid(w.pid) for w in own_pool.workers}  # type: ignore[arg-type]
    assert len(fresh) == 1 and launcher not in fresh and os.getpid() not in fresh


async def test_where_no_launcher_can_start_the_workers_are_fresh_interpreters(tmp_path: Path):
    site, started = tmp_path / "site", tmp_path / "launchers-started"
    site.mkdir()  # every launcher in this environment exits before it forks anything, saying it started
    (site / "sitecustomize.py").write_text(
        "import os, sys\n"
        "if 'scaleenv_mcp.workers.launcher' in sys.orig_argv:\n"
        f"    open({str(started)!r}, 'a').write('started\\n')\n"
        "    os._exit(3)\n")
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    for _ in range(2):
        pool = WorkerPool(2, memory_limit=1024**3, env={"PYTHONPATH": path})
        pool.start()
        try:
            assert await _ping(pool) == [("ok", "pong")] * 2
            assert [parent_pid(w.pid) for w in pool.workers] == [os.getpid()] * 2  # type: ignore[arg-type]
        finally:
            pool.stop()
    assert started.read_text() == "started\n"  # tried once for the environment, not for every worker
