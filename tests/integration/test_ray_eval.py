"""``eval --ray``: the oracle agent and the scripted user on a shipped domain's tasks, run on two host
actors of a Ray cluster started here, score and record what a run on one local host does, timings
aside, with every episode played in a Ray task (issue #22 item 3); a host actor that dies mid-run loses
only its episodes, recorded as lost with their host, the run ends with exit 3 (issue #22, "a node that
leaves mid-run"), and ``--resume`` on Ray plays exactly those again.

Skipped where Ray is not installed (CI installs it through the ``test`` extra).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from scaleenv_mcp.clients.models import EpisodeRecord, InfraKind
from scaleenv_mcp.clients.results import EvalConfig
from scaleenv_mcp.clients.runner import run_eval
from scaleenv_mcp.cluster.hosts import RayHosts
from scaleenv_mcp.errors import UsageError
from tests.support_ray import (  # noqa: F401 - the module's Ray cluster
    host_actor_pids,
    ray_cluster,
    ray_task_runs,
    wait_for_free_cpus,
)

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


async def test_eval_on_ray_scores_what_a_local_run_scores(ray_cluster: None, tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture):
    def config(out: str, **extra: Any) -> EvalConfig:
        return EvalConfig(domains=["smart_home"], num_tasks=6, agent="oracle", user="scripted", concurrency=3,
                          out=tmp_path / out, workers=1, **extra)

    local = await run_eval(config("local"))
    with caplog.at_level(logging.INFO, logger="scaleenv.cluster"):
        on_ray = await run_eval(config("ray", ray="auto", hosts=2))
    runs = ray_task_runs(caplog)  # one Ray task per host actor played the episodes, in processes of Ray's
    assert len(runs) == 2 and sum(items for items, _, _ in runs) == 6, runs
    assert len({task for _, task, _ in runs}) == 2 and all(pid != os.getpid() for _, _, pid in runs), runs
    assert local.overall.episodes == 6 and local.avg_at_k == 1.0  # a run worth comparing
    assert _without_timings(on_ray.model_dump(mode="json")) == _without_timings(local.model_dump(mode="json"))
    assert _episodes(tmp_path / "ray") == _episodes(tmp_path / "local")
    # it did use Ray (the CPUs free may still be held by the last run's actors while Ray reaps them)
    with pytest.raises(UsageError, match="3 host actors of 1 CPU each do not fit the [0-2] CPUs"):
        await run_eval(config("too-many", ray="auto", hosts=3))
    with pytest.raises(UsageError, match="--hosts goes with --ray"):
        await run_eval(config("hosts-alone", hosts=2))


async def test_an_actor_lost_mid_eval_loses_only_its_episodes_and_the_run_says_so(ray_cluster: None, tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch):
    if not Path("/proc/self/stat").exists():
        pytest.skip("finds the host actor processes through /proc")
    clusters: list[RayHosts] = []
    running = RayHosts.running  # bound to the class: the real one

    @contextlib.asynccontextmanager
    async def seen(cls: type[RayHosts], *args: Any, **kwargs: Any) -> AsyncIterator[RayHosts]:
        async with running(*args, **kwargs) as cluster:  # the real cluster, only remembered here
            clusters.append(cluster)
            yield cluster

    monkeypatch.setattr(RayHosts, "running", classmethod(seen))
    killed: list[int] = []
    earlier = set(host_actor_pids())  # the previous test's actors, if Ray has not ended them yet

    def kill_a_busy_actor(record: EpisodeRecord, done: int, total: int) -> None:
        # a real death: the process is gone, and the episodes it held with it. The actor holding the most
        # episodes right now (the router's count), so that it does hold some: one picked blindly once held
        # none when the first episode ended (the other Ray task not started yet), and nothing was lost
        loads = clusters[0].router.loads()
        if killed or max(loads) == 0:
            return
        victim = clusters[0].slots[loads.index(max(loads))].address.pid
        pids = [pid for pid in host_actor_pids() if pid not in earlier]
        assert len(pids) == 2 and victim in pids, (victim, pids)
        os.kill(victim, signal.SIGKILL)
        killed.append(victim)

    # eight at once, four on each actor: when the first ends, the others are mid-dialogue (the tasks differ
    # in length), so the killed actor holds some of them
    config = EvalConfig(domains=["smart_home"], num_tasks=16, agent="oracle", user="scripted", concurrency=8,
                        out=tmp_path / "run", workers=1, ray="auto", hosts=2)
    with anyio.fail_after(120):  # never a wait for a call that cannot come
        results = await run_eval(config, kill_a_busy_actor)
    assert killed
    lost = [f for f in results.infra_failures if f.kind is InfraKind.host_lost]
    assert lost, results.infra_failures
    assert all(f.message.startswith("episode lost with its host") and f"pid {killed[0]})" in f.message
               for f in lost), (killed, lost)
    assert results.overall.episodes >= 1 and results.overall.episodes + len(results.infra_failures) == 16
    records = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 16  # every episode recorded
    # a call in flight when the actor died fails with the connection, not by waiting out the call timeout
    # (60 s: it did, before the session failed its in-flight call with the broken connection)
    lost_keys = {f.key for f in lost}
    assert all(r["duration_ms"] < 50_000 for r in records if r["key"] in lost_keys), records
    failure = results.harness_failure()  # what `scaleenv eval` prints before it exits 3
    assert failure is not None and failure.startswith(f"{len(lost)} episode(s) were lost with their host")
    # resumable on Ray as without it: exactly the lost episodes are played again, and now score
    wait_for_free_cpus(2)
    played: list[str] = []
    with anyio.fail_after(120):
        resumed = await run_eval(config.model_copy(update={"resume": True}),
                                 lambda record, done, total: played.append(record.key))
    assert sorted(played) == sorted(lost_keys), (played, lost_keys)
    assert resumed.overall.episodes == 16 and not resumed.infra_failures and resumed.harness_failure() is None
