"""A node that leaves a Ray cluster in the middle of ``verify --ray`` (issue #22, "bad input"): the tasks
whose episodes lived on it fail as environment errors that say the episode was lost with its host,
the other node's actor finishes the rest, and the run ends (no hang) with a report the CLI turns into
exit code 3 (``scaleenv verify`` writes nothing but that report, so nothing is half-written).

Two nodes of one CPU each on this machine (``ray.cluster_utils.Cluster``), one host actor on each.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from scaleenv_mcp.domain.catalog import resolve_domain_path
from scaleenv_mcp.verifier.verify import verify_domain

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.xdist_group("ray")]  # one Ray cluster at a time

NODE = {"num_cpus": 1, "object_store_memory": 100 * 1024 * 1024}


@pytest.fixture
def two_nodes() -> Iterator[tuple[Any, Any]]:
    cluster = cluster_utils.Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False})
    node = cluster.add_node(**NODE)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
    try:
        yield cluster, node
    finally:
        ray.shutdown()
        cluster.shutdown()


async def test_a_node_leaving_mid_verify_fails_only_its_tasks_saying_why(two_nodes: tuple[Any, Any]):
    cluster, node = two_nodes
    left: list[int] = []

    def progress(done: int, total: int) -> None:
        if done >= 4 and not left:  # four tasks verified, about eight in flight on the two actors
            left.append(done)
            cluster.remove_node(node)

    with anyio.fail_after(300):  # never a hang
        report = await verify_domain(resolve_domain_path("smart_home"), sample=24, transport="http", workers=1,
                                     determinism=False, progress=progress, ray="auto", hosts=2)
    assert left, "the node never left: the run ended before four tasks were done"
    lost = {v.task_id: g.detail for v in report.verdicts for g in v.gates if g.gate == "environment" and not g.passed}
    assert lost and report.environment_errors == len(lost)  # the CLI's exit code 3
    assert all("episode lost with its host" in detail for detail in lost.values()), lost
    assert report.passed == report.tasks - len(lost)  # the other node's actor verified every other task
