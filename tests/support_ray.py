"""A local Ray cluster for one test module, small enough for a shared 2-core machine: 2 CPUs (two host
actors of one CPU each), no dashboard, a 200 MB object store, never another run's cluster; shut down
after the module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

__all__ = ["ray_cluster"]


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    ray = pytest.importorskip("ray")
    # address="local": a cluster of its own even when another run on this machine has one (a bare ray.init()
    # would join that one, found through /tmp/ray/ray_current_cluster, and refuse num_cpus)
    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=200 * 1024 * 1024,
             log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()
