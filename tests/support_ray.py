"""A local Ray cluster for one test module, small enough for a shared 2-core machine: 2 CPUs (two host
actors of one CPU each), no dashboard, a 200 MB object store, never another run's cluster; shut down
after the module."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support_processes import parent_pid

__all__ = ["host_actor_pids", "ray_cluster"]


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
