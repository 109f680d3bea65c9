"""``tasks synth --ray``: task synthesis with each round's candidates built and verified inside two host
actors of a Ray cluster started here writes the local run's tasks.jsonl byte for byte, and the same
report but for the timings (issue #22 item 3); a host actor that dies mid-run fails it, at once and
clearly, and nothing is written.

Real Ray (2 CPUs), real host actors with their SQLite workers, candidates built in the actors' processes.
Skipped where Ray is not installed (CI installs it through the ``test`` extra).
"""

from __future__ import annotations

import logging
import os
import re
import signal
from pathlib import Path
from typing import Any

import anyio
import pytest

from scaleenv_mcp.domain.catalog import resolve_domain_path
from scaleenv_mcp.errors import EnvironmentFaultError
from scaleenv_mcp.generator.tasks import TaskSynthReport, synthesize_tasks
from tests.support_ray import host_actor_pids, ray_cluster, wait_for_free_cpus  # noqa: F401 - the module's Ray cluster

ray = pytest.importorskip("ray")

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.xdist_group("ray")]  # one Ray cluster at a time

SMART_HOME = resolve_domain_path("smart_home")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def _without_timings(report: TaskSynthReport) -> dict[str, Any]:
    """The report as JSON without what differs between any two runs: the seconds taken and the file written."""
    return report.model_dump(mode="json", exclude={"seconds", "tasks_per_second", "out"})


class _Builders(logging.Handler):
    """(candidates, pid, the process's command line read then) of every share of a round the run logged as
    built in a host actor (``cluster_building``): read while the run goes, since its actors end with it."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.seen: list[tuple[int, int, bytes]] = []

    def emit(self, record: logging.LogRecord) -> None:
        found = re.fullmatch(r"(\d+) candidates built in host actor \d+ \(node .+, pid (\d+)\)", record.getMessage())
        if found:
            pid = int(found[2])
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                command = b""
            self.seen.append((int(found[1]), pid, command))


async def test_synth_on_ray_writes_the_local_file_byte_for_byte(ray_cluster: None, tmp_path: Path):
    local = await synthesize_tasks(SMART_HOME, 6, 0, out=tmp_path / "local.jsonl", workers=1)
    builders = _Builders()
    logger = logging.getLogger("scaleenv.synthesis")
    logger.addHandler(builders)
    level, logger.level = logger.level, logging.INFO
    try:
        on_ray = await synthesize_tasks(SMART_HOME, 6, 0, out=tmp_path / "ray.jsonl", workers=1, ray="auto",
                                        hosts=2)
    finally:
        logger.removeHandler(builders)
        logger.setLevel(level)
    # every candidate was sent to a host actor and built in its process (both took a share), none here
    assert sum(count for count, _, _ in builders.seen) >= on_ray.candidates > 0
    assert len({pid for _, pid, _ in builders.seen}) == 2 and os.getpid() not in {p for _, p, _ in builders.seen}
    if Path("/proc/self/stat").exists():
        assert all(command.startswith(b"ray::HostActor") for _, _, command in builders.seen), builders.seen
    assert local.produced == 6 and local.rejected  # a run worth comparing: tasks kept and candidates refused
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert _without_timings(on_ray) == _without_timings(local)


async def test_a_host_actor_killed_mid_synthesis_fails_the_run_and_writes_nothing(ray_cluster: None,
                                                                                     tmp_path: Path):
    if not Path("/proc/self/stat").exists():
        pytest.skip("finds the host actor processes through /proc")
    out = tmp_path / "tasks.jsonl"
    killed: list[int] = []
    wait_for_free_cpus(2)  # the previous test's actors give their CPUs back a little after it ends
    earlier = set(host_actor_pids())  # the previous test's actors, if Ray has not ended them yet

    def kill_one_after_the_first_round(done: int, total: int) -> None:
        if not killed:  # a real death: the process is gone, its episodes and staged tasks with it
            pids = [pid for pid in host_actor_pids() if pid not in earlier]
            assert len(pids) == 2, pids
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    with anyio.fail_after(120), pytest.raises(EnvironmentFaultError) as caught:  # never a hang
        await synthesize_tasks(SMART_HOME, 6, 0, out=out, workers=1, ray="auto", hosts=2,
                               progress=kill_one_after_the_first_round)
    assert killed  # the run needed a second round (the first kept fewer than 6)
    assert f"pid {killed[0]})" in caught.value.message and "was lost" in caught.value.message
    assert "writes nothing: run it again" in caught.value.message
    assert not out.exists()
