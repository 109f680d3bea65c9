"""Gold replay of one task (new episode, replay over MCP, reward) in memory and over HTTP,
``scaleenv verify`` tasks/s and offline synthesis verified tasks/s, per domain."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import mcp

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import serving
from scaleenv_mcp.settings import HostSettings


async def _replay_once(host: Host, task_id: str, actions, client_for) -> float:
    started = time.perf_counter()
    episode = await host.create_episode((await host.domains())[0].slug, task_id)
    async with client_for(episode.id) as client:
        for action in actions:
            await client.call_tool(action.tool, action.arguments)
    report = await host.reward(episode.id)
    await host.close(episode.id)
    assert report.reward == 1.0, report.explain()
    return (time.perf_counter() - started) * 1000


async def gold_replay(domain_dir: Path, state_dir: Path, tasks: int = 30) -> dict[str, Any]:
    package = load_domain(domain_dir)
    chosen = sorted(package.tasks.values(), key=lambda t: t.id)[:tasks]
    settings = HostSettings(workers=2, port=0, control_port=0, state_dir=state_dir, token_file=state_dir / "token")
    async with Host.running(settings, [domain_dir.parent], [domain_dir.name]) as host, serving(host) as urls:
        memory = [await _replay_once(host, t.id, t.actions, host.client) for t in chosen]
        http_ms = []
        async with httpx.AsyncClient(base_url=urls.control_url, headers={"Authorization": f"Bearer {urls.token}"}) as api:
            for task in chosen:
                started = time.perf_counter()
                created = (await api.post("/episodes", json={"domain": package.slug, "task_id": task.id})).json()
                episode = created["episodes"][0]
                async with mcp.Client(episode["agent_url"]) as client:
                    for action in task.actions:
                        await client.call_tool(action.tool, action.arguments)
                reward = (await api.get(f"/episodes/{episode['id']}/reward")).json()["reward"]
                await api.delete(f"/episodes/{episode['id']}")
                assert reward == 1.0
                http_ms.append((time.perf_counter() - started) * 1000)
    return {"tasks": len(chosen), "memory_p50_ms": round(statistics.median(memory), 2),
            "http_p50_ms": round(statistics.median(http_ms), 2)}


def bench_replay(domain_dir: Path, state_dir: Path, verify_sample: int = 60, synth_n: int = 20) -> dict[str, Any]:
    from scaleenv_mcp.generator.tasks import synthesize_tasks
    from scaleenv_mcp.verifier.verify import verify_domain

    result = {"gold_replay": asyncio.run(gold_replay(domain_dir, state_dir))}
    for transport in ("memory", "http"):
        report = asyncio.run(verify_domain(domain_dir, transport=transport, sample=verify_sample, workers=2))
        result[f"verify_{transport}_tasks_per_s"] = round(report.tasks / report.seconds, 2)
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        synth = asyncio.run(synthesize_tasks(domain_dir, synth_n, seed=7, out=Path(scratch) / "t.jsonl", workers=2))
        result["synth_verified_tasks_per_s"] = round(synth.produced / (time.perf_counter() - started), 2)
    return result
