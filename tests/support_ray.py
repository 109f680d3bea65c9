"""A local Ray cluster for the Ray test modules, small enough for a shared 2-core machine: 2 CPUs (two host
actors of one CPU each), no dashboard, a 200 MB object store, never another run's cluster.

One cluster serves every module of a test process that asks for it (a start costs about 4 s and a stop
1.4 s; the "ray" xdist group runs those modules in one process): each module gets it back with every CPU
free, and it stops when the process's tests end. A module that needs a cluster of its own (two nodes:
test_ray_node_leaves) calls ``leave_shared_cluster`` first; the next module that asks starts a new one."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support_processes import parent_pid

__all__ = ["host_actor_pids", "leave_shared_cluster", "ray_cluster", "ray_task_runs", "wait_for_free_cpus"]

# Ray kills a task worker idle for 1 s once more than num_cpus are idle, and a new one costs ~3.4 s of CPU
# to start (Ray's imports, then ours): the Ray modules' tasks come in bursts seconds apart, so they started
# ~24 of them. Kept for the run instead (at most 6), the Ray tests took 225 -> 185 s of CPU and 164 -> 142 s
# (process accounting, one run each, issue #26). Set in the environment so that the clusters `scaleenv
# ... --ray` starts in a subprocess keep them too; only Ray reads these.
os.environ.setdefault("RAY_num_workers_soft_limit", "6")
os.environ.setdefault("RAY_idle_worker_killing_time_threshold_ms", "600000")


@pytest.fixture(scope="module")
def ray_cluster(request: pytest.FixtureRequest) -> Iterator[None]:
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        # address="local": a cluster of its own even when another run on this machine has one (a bare
        # ray.init() would join that one, found through /tmp/ray/ray_current_cluster, and refuse num_cpus)
        ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=200 * 1024 * 1024,
                 log_to_driver=False, configure_logging=False)
        request.config.add_cleanup(leave_shared_cluster)  # when this test process's tests end
    wait_for_free_cpus(2)  # what an earlier module's actors held is given back
    yield
    wait_for_free_cpus(2)  # a module that leaves actors running fails here, not in the next module


def leave_shared_cluster() -> None:
    """Stop the shared cluster, for a module that starts a cluster of its own."""
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()


def host_actor_pids() -> list[int]:
    """The host actor processes of this test's Ray cluster (descendants of this process: never those of
    another run on the same machine)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or not (entry / "cmdline").read_bytes().startswith(b"ray::HostActor"):
                continue
            pid = ancestor = int(entry.name)
            while ancestor > 1 and ancestor != os.getpid():
                ancestor = parent_pid(ancestor)
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        if ancestor == os.getpid():
            found.append(pid)
    return sorted(found)


def ray_task_runs(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str, int]]:
    """(items, Ray task id, pid) of every chunk a run logged as started in a Ray task
    (``scaleenv_mcp.cluster.ray_tasks``, at INFO on ``scaleenv.cluster``): where the per-item work ran."""
    found = [re.fullmatch(r"(\d+) items run in Ray task (\w+) \(pid (\d+), node \w+\)", r.getMessage())
             for r in caplog.records if r.name == "scaleenv.cluster"]
    return [(int(m[1]), m[2], int(m[3])) for m in found if m]


def wait_for_free_cpus(cpus: float, seconds: float = 30.0) -> None:
    """Until the cluster has ``cpus`` free again: a run's actors give theirs back a little after it ends."""
    ray = pytest.importorskip("ray")
    deadline = time.monotonic() + seconds
    while ray.available_resources().get("CPU", 0.0) < cpus:
        assert time.monotonic() < deadline, f"the cluster never had {cpus} CPUs free again"
        time.sleep(0.2)
