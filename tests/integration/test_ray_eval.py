"""``eval --ray``: the oracle agent and the scripted user on a shipped domain's tasks, run on two host
actors of a Ray cluster started here, score and record what a run on one local host does, timings
aside (issue #22 item 3).

Skipped where Ray is not installed (CI installs it through the ``test`` extra).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scaleenv_mcp.clients.results import EvalConfig
from scaleenv_mcp.clients.runner import run_eval
from scaleenv_mcp.errors import UsageError
from tests.support_ray import ray_cluster  # noqa: F401 - the module's Ray cluster

ray = pytest.importorskip("ray")

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.xdist_group("ray")]  # one Ray cluster at a time

TIMINGS = {"duration_ms"}


def _without_timings(value: Any) -> Any:
    """A record as JSON without what differs between any two runs: clock readings and durations."""
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def _episodes(out: Path) -> list[Any]:
    lines = (out / "episodes.jsonl").read_text().splitlines()
    return sorted((_without_timings(json.loads(line)) for line in lines), key=lambda r: r["key"])


async def test_eval_on_ray_scores_what_a_local_run_scores(ray_cluster: None, tmp_path: Path):
    def config(out: str, **extra: Any) -> EvalConfig:
        return EvalConfig(domains=["smart_home"], num_tasks=6, agent="oracle", user="scripted", concurrency=3,
                          out=tmp_path / out, workers=1, **extra)

    local = await run_eval(config("local"))
    on_ray = await run_eval(config("ray", ray="auto", hosts=2))
    assert local.overall.episodes == 6 and local.avg_at_k == 1.0  # a run worth comparing
    assert _without_timings(on_ray.model_dump(mode="json")) == _without_timings(local.model_dump(mode="json"))
    assert _episodes(tmp_path / "ray") == _episodes(tmp_path / "local")
    # it did use Ray (the CPUs free may still be held by the last run's actors while Ray reaps them)
    with pytest.raises(UsageError, match="3 host actors of 1 CPU each do not fit the [0-2] CPUs"):
        await run_eval(config("too-many", ray="auto", hosts=3))
    with pytest.raises(UsageError, match="--hosts goes with --ray"):
        await run_eval(config("hosts-alone", hosts=2))
