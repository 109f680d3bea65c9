"""A node that leaves a Ray cluster in the middle of ``verify --ray`` (issue #22, "bad input"): the tasks
whose episodes lived on it fail as environment errors that say the episode was lost with its host,
the other node's actor finishes the rest, and the run ends (no hang) with a report the CLI turns into
exit code 3 (``scaleenv verify`` writes nothing but that report, so nothing is half-written).
In the middle of ``tasks synth --ray``: the run fails with an ``EnvironmentFaultError`` (exit 3) naming
the lost actor, soon, and writes no file.

Two nodes of one CPU each on this machine (``ray.cluster_utils.Cluster``), one host actor on each.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from scaleenv_mcp.domain.catalog import resolve_domain_path
from scaleenv_mcp.errors import EnvironmentFaultError
from scaleenv_mcp.generator.tasks import synthesize_tasks
from scaleenv_mcp.verifier.verify import verify_domain
from tests.support_ray import leave_shared_cluster, wait_for_free_cpus

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

# one Ray cluster at a time; this module's (two nodes) after the shared one's modules (tests/conftest.py)
pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.xdist_group("ray"), pytest.mark.own_ray_cluster]

NODE = {"num_cpus": 1, "object_store_memory": 100 * 1024 * 1024}


@pytest.fixture(scope="module")
def head() -> Iterator[Any]:
    """The module's cluster: a head node of one CPU, joined by a fresh node for each test (a test removes it)."""
    leave_shared_cluster()  # the other Ray modules' one-node cluster, if this process started it
    cluster = cluster_utils.Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False})
    ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture
def two_nodes(head: Any) -> Iterator[tuple[Any, Any]]:
    node = head.add_node(**NODE)
    head.wait_for_nodes()
    wait_for_free_cpus(2)  # the new node's CPU, and the head's back from the last test's actors
    try:
        yield head, node
    finally:
        if node in head.worker_nodes:  # the test ended before removing it
            head.remove_node(node)


async def test_a_node_leaving_mid_verify_fails_only_its_tasks_saying_why(two_nodes: tuple[Any, Any]):
    cluster, node = two_nodes
    left: list[int] = []

    def progress(done: int, total: int) -> None:
        if done >= 4 and not left:  # four tasks verified, eight in flight on the two actors, four to go
            left.append(done)
            cluster.remove_node(node)

    with anyio.fail_after(300):  # never a hang
        report = await verify_domain(resolve_domain_path("smart_home"), sample=16, transport="http", workers=1,
                                     determinism=False, progress=progress, ray="auto", hosts=2)
    assert left, "the node never left: the run ended before four tasks were done"
    lost = {v.task_id: g.detail for v in report.verdicts for g in v.gates if g.gate == "environment" and not g.passed}
    assert lost and report.environment_errors == len(lost)  # the CLI's exit code 3
    assert all("episode lost with its host" in detail for detail in lost.values()), lost
    assert report.passed == report.tasks - len(lost)  # the other node's actor verified every other task


class _AfterFirstRound(logging.Handler):
    """Removes ``node`` from ``cluster`` a second after the run sends its first round to the actors (a thread
    of its own: the actors are then building, mid-round)."""

    def __init__(self, cluster: Any, node: Any) -> None:
        super().__init__(logging.INFO)
        self.timer = threading.Timer(1.0, cluster.remove_node, [node])

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().endswith("sent to 2 host actors") and not self.timer.is_alive() \
                and not self.timer.finished.is_set():
            self.timer.start()


async def test_a_node_leaving_mid_synth_fails_the_run_naming_the_actor_and_writes_nothing(
        two_nodes: tuple[Any, Any], tmp_path: Path):
    cluster, node = two_nodes
    out = tmp_path / "tasks.jsonl"
    leaving = _AfterFirstRound(cluster, node)
    logger = logging.getLogger("scaleenv.synthesis")
    logger.addHandler(leaving)
    level, logger.level = logger.level, logging.INFO
    try:
        with anyio.fail_after(180), pytest.raises(EnvironmentFaultError) as caught:  # never a hang
            await synthesize_tasks(resolve_domain_path("smart_home"), 6, 0, out=out, workers=1, ray="auto", hosts=2)
    finally:
        logger.removeHandler(leaving)
        logger.setLevel(level)
        if leaving.timer.is_alive() or leaving.timer.finished.is_set():  # else the run's own error stands
            leaving.timer.join()
    assert leaving.timer.finished.is_set(), "the node never left"
    message = caught.value.message
    assert message.startswith("host actor ") and "was lost" in message, message
    assert "writes nothing: run it again" in message
    assert not out.exists()
