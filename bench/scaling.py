"""Scaling out on Ray (#22): calls/s and server CPU per call with 1, 2 (and, on bigger machines, more)
host actors, against as many bare low-level MCP servers, measured in one run.

Every level serves the same number of episodes (64 by default), one handshake session each, all
calling at once through ``loadgen`` (the load generator runs in this process, on the same machine:
on 2 cores it competes with the servers, which the table's load average shows). Host actors run on a
Ray instance started here with as many CPUs as the largest level; each actor has one worker. The bare
servers get the episodes' connections round-robin. The actors' episodes are also driven through the
public proxy of ``serve --ray`` (``/mcp/episodes/{id}`` on one address), to measure the hop. Server CPU counts every actor (or bare server)
process and its children; "of which serving processes" leaves the children (an actor's worker) out.
Rounds alternate the two kinds; medians of the rounds are reported.
"""

from __future__ import annotations

import asyncio
import os
import statistics
from pathlib import Path
from typing import Any

from bench.calls import drive_urls, free_port, start_server
from bench.loadgen import tool_call_body

__all__ = ["bench_scaling", "render_scaling", "scaling_levels"]


def scaling_levels(cpus: int | None = None) -> list[int]:
    """1 and 2 actors, then doublings while half the cores stay for the load generator and the rest."""
    cpus = cpus or os.cpu_count() or 2
    return [1, 2] + [n for n in (4, 8, 16, 32) if n <= cpus // 2]


async def _actors(domain_dir: Path, state_dir: Path, hosts: int, episodes: int, body: bytes,
                  calls_per_connection: int) -> tuple[dict[str, float], dict[str, float]]:
    """The same episodes driven straight at their actors, then through the public proxy (``serve --ray``'s
    ``/mcp/episodes/{id}``; the proxy runs in this process, beside the load generator, and its CPU is
    not in the server CPU column)."""
    from scaleenv_mcp.cluster.hosts import RayHosts
    from scaleenv_mcp.settings import HostSettings

    settings = HostSettings(workers=1, state_dir=state_dir, max_harness_episodes=100000)
    async with RayHosts.running(settings, [domain_dir.parent], [domain_dir.name], hosts=hosts) as cluster:
        created = await cluster.router.create_episodes(domain_dir.name, count=episodes)
        pids = [s.address.pid for s in cluster.slots]
        direct = await drive_urls([e.agent_url for e in created], pids, body, calls_per_connection)
        async with cluster.agent_proxy(settings) as public:
            proxied = await drive_urls([f"{public}/mcp/episodes/{e.id}" for e in created], pids, body,
                                       calls_per_connection)
        return direct, proxied


def _bare(domain_dir: Path, state_dir: Path, servers: int, episodes: int, body: bytes,
          calls_per_connection: int) -> dict[str, float]:
    started = [start_server("lowlevel", domain_dir, free_port(), state_dir) for _ in range(servers)]
    try:
        urls = [started[i % servers][1] for i in range(episodes)]
        return asyncio.run(drive_urls(urls, [p.pid for p, _ in started], body, calls_per_connection))
    finally:
        for process, _ in started:
            process.terminate()
            process.wait(timeout=10)


def bench_scaling(domain_dir: Path, state_dir: Path, tool: str, arguments: dict[str, Any],
                  levels: list[int] | None = None, episodes: int = 64, calls: int = 3000,
                  rounds: int = 3) -> dict[str, Any]:
    """Rows of (kind, processes): median calls/s, p50/p99 ms and server CPU ms per call over ``rounds``."""
    import ray

    levels = levels or scaling_levels()
    body = tool_call_body(tool, arguments)
    per_connection = max(20, calls // episodes)
    samples: dict[tuple[str, int], list[dict[str, float]]] = {}
    ray.init(address="local", num_cpus=max(levels), include_dashboard=False, object_store_memory=200 * 1024 * 1024,
             log_to_driver=False, configure_logging=False)
    try:
        for _ in range(rounds):
            for level in levels:
                samples.setdefault(("bare lowlevel servers", level), []).append(
                    _bare(domain_dir, state_dir, level, episodes, body, per_connection))
                direct, proxied = asyncio.run(_actors(domain_dir, state_dir, level, episodes, body, per_connection))
                samples.setdefault(("scaleenv host actors", level), []).append(direct)
                samples.setdefault(("scaleenv host actors, through the public proxy", level), []).append(proxied)
    finally:
        ray.shutdown()
    rows = []
    for (kind, level), runs in samples.items():
        rows.append({"kind": kind, "processes": level, "episodes": episodes, "rounds": len(runs),
                     **{key: round(statistics.median(r[key] for r in runs), 4)
                        for key in ("calls_per_s", "p50_ms", "p99_ms", "server_cpu_ms_per_call",
                                    "serving_process_cpu_ms_per_call")}})
    by = {(r["kind"], r["processes"]): r for r in rows}
    ratios = {f"actors_calls_per_s_vs_one@{n}": round(by[("scaleenv host actors", n)]["calls_per_s"]
                                                      / by[("scaleenv host actors", 1)]["calls_per_s"], 2)
              for n in levels if n > 1}
    ratios.update({f"actors_vs_bare_calls_per_s@{n}": round(by[("scaleenv host actors", n)]["calls_per_s"]
                                                            / by[("bare lowlevel servers", n)]["calls_per_s"], 2)
                   for n in levels})
    proxied = "scaleenv host actors, through the public proxy"
    ratios.update({f"proxy_hop_p50_ms@{n}": round(by[(proxied, n)]["p50_ms"] - by[("scaleenv host actors", n)]["p50_ms"], 3)
                   for n in levels})
    ratios.update({f"proxied_vs_direct_calls_per_s@{n}": round(by[(proxied, n)]["calls_per_s"]
                                                               / by[("scaleenv host actors", n)]["calls_per_s"], 2)
                   for n in levels})
    return {"tool": tool, "levels": levels, "rows": sorted(rows, key=lambda r: (r["kind"], r["processes"])),
            "ratios": ratios}


def render_scaling(section: dict[str, Any], measured: dict[str, Any] | None) -> list[str]:
    lines = ["", "## Scaling out on Ray (host actors)", "",
             f"`scaleenv bench --only scaling`: {section['rows'][0]['episodes']} episodes calling `{section['tool']}` at "
             "once, one handshake session each, on N host actors (one worker each, behind the router) against N bare "
             f"low-level servers; medians of {section['rows'][0]['rounds']} rounds; the load generator shares the machine.",
             "", "| servers | N | calls/s | p50 ms | p99 ms | server CPU ms/call | of which serving processes |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in section["rows"]:
        lines.append(f"| {row['kind']} | {row['processes']} | {row['calls_per_s']} | {row['p50_ms']} | {row['p99_ms']} | "
                     f"{row['server_cpu_ms_per_call']} | {row['serving_process_cpu_ms_per_call']} |")
    lines += ["", "| ratio | measured |", "| --- | --- |"]
    lines += [f"| {key} | {value} |" for key, value in section["ratios"].items()]
    if measured:
        lines += ["", f"(Measured at commit `{measured['commit'][:12]}` on {measured['cpus']} CPUs, load average at "
                      f"start {', '.join(f'{x:.1f}' for x in measured['load_average'])}.)"]
    return lines
