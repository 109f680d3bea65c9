"""``verify --ray``: a shipped domain's tasks replayed on two host actors of a Ray cluster started here
give the same report as a local run over HTTP, timings aside, and the replays ran in Ray tasks, not in
the test's process (issue #22 item 3).

Skipped where Ray is not installed (CI installs it through the ``test`` extra).
"""

from __future__ import annotations

import logging
import os
from typing import Any

import pytest

from scaleenv_mcp.domain.catalog import resolve_domain_path
from scaleenv_mcp.errors import UsageError
from scaleenv_mcp.verifier.verify import VerifyReport, verify_domain
from tests.support_ray import ray_cluster, ray_task_runs  # noqa: F401 - the module's Ray cluster

ray = pytest.importorskip("ray")

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.xdist_group("ray")]  # one Ray cluster at a time


def _without_timings(report: VerifyReport) -> dict[str, Any]:
    """The report as JSON without what differs between any two runs: the seconds taken."""
    data = report.model_dump(mode="json", exclude={"seconds", "tasks_per_second"})
    for verdict in data["verdicts"]:
        verdict.pop("seconds", None)
    return data


async def test_verify_on_ray_gives_the_local_report(ray_cluster: None, caplog: pytest.LogCaptureFixture):
    path = resolve_domain_path("smart_home")
    local = await verify_domain(path, sample=6, transport="http", workers=1)
    with caplog.at_level(logging.INFO, logger="scaleenv.cluster"):
        on_ray = await verify_domain(path, sample=6, transport="http", workers=1, ray="auto", hosts=2)
    runs = ray_task_runs(caplog)  # one Ray task per host actor, in worker processes of Ray's, not this one
    assert len(runs) == 2 and sum(items for items, _, _ in runs) == 6, runs
    assert len({task for _, task, _ in runs}) == 2 and all(pid != os.getpid() for _, _, pid in runs), runs
    assert local.passed == 6 and local.environment_errors == 0  # a report worth comparing
    assert {g.gate for v in local.verdicts for g in v.gates} >= {"gold_replay", "determinism"}
    assert _without_timings(on_ray) == _without_timings(local)
    with pytest.raises(UsageError, match="3 host actors of 1 CPU each do not fit the 2 CPUs"):  # it did use Ray
        await verify_domain(path, sample=6, transport="http", workers=1, ray="auto", hosts=3)
