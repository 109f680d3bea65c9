"""A local Ray cluster for one test module, small enough for a shared 2-core machine: 2 CPUs (two host
actors of one CPU each), no dashboard, a 200 MB object store, never another run's cluster; shut down
after the module."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support_processes import parent_pid

__all__ = ["host_actor_pids", "ray_cluster", "ray_task_runs", "wait_for_free_cpus"]


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    ray = pytest.importorskip("ray")
    # address="local": a cluster of its own even when another run on this machine has one (a bare ray.init()
    # would join that one, found through /tmp/ray/ray_current_cluster, and refuse num_cpus)
    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=200 * 1024 * 1024,
             log_to_driver=False, configure_logging=False)
    yield
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
