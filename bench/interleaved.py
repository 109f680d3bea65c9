"""HTTP tool calls in interleaved rounds: the bare low-level server, the same server with its tool
code in our worker processes (``isolated``: the floor isolation sets), this checkout's host and, with
``--baseline``, another checkout's host, all running at once and driven in turn (#25).

The machine is shared and noisy, so one pass per server (``bench.calls.bench_http``) can put a
burst of someone else's load on one server only. Here every round drives each server at each
concurrency once, in a rotating order, and each ratio is taken within its round; the report is
the median over rounds with min and max. Server CPU per call counts the serving process and
its workers (``bench.procstat``).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
from pathlib import Path
from typing import Any

from bench.calls import REPO, drive_http, free_port, pick_call, start_server
from bench.loadgen import tool_call_body

__all__ = ["bench_interleaved", "render_interleaved"]

LEVELS = (1, 16, 64)
METRICS = ("server_cpu_ms_per_call", "calls_per_s", "p50_ms")


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 4), "min": round(min(values), 4), "max": round(max(values), 4)}


def bench_interleaved(domain_dir: Path, state_dir: Path, baseline: Path | None = None, rounds: int = 3,
                      calls: int = 2000, levels: tuple[int, ...] = LEVELS, http_parser: str = "auto") -> dict[str, Any]:
    tool, arguments = pick_call(domain_dir)
    body = tool_call_body(tool, arguments)
    servers: dict[str, tuple[subprocess.Popen, str]] = {}
    try:
        servers["lowlevel"] = start_server("lowlevel", domain_dir, free_port(), state_dir, http_parser=http_parser)
        servers["isolated"] = start_server("isolated", domain_dir, free_port(), state_dir, http_parser=http_parser)
        servers["scaleenv"] = start_server("scaleenv", domain_dir, free_port(), state_dir, http_parser=http_parser)
        if baseline is not None:  # a checkout before settings.http_parser takes uvicorn's auto choice
            servers["baseline"] = start_server("scaleenv", domain_dir, free_port(), state_dir / "baseline", baseline,
                                               http_parser=http_parser)
        names = list(servers)
        per_round: list[dict[str, dict[int, dict[str, float]]]] = []
        for index in range(rounds):
            measured: dict[str, dict[int, dict[str, float]]] = {name: {} for name in names}
            for level in levels:
                order = names[index % len(names):] + names[:index % len(names)]  # rotate who goes first
                for name in order:
                    process, url = servers[name]
                    measured[name][level] = asyncio.run(drive_http(url, process.pid, body, level, max(20, calls // level)))
            per_round.append(measured)
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(timeout=10)
    rows = []
    for name in servers:
        for level in levels:
            rows.append({"server": name, "concurrency": level,
                         **{m: _summary([r[name][level][m] for r in per_round]) for m in METRICS}})
    ratios = {}
    for name in (n for n in servers if n != "lowlevel"):
        for level in levels:
            ratios[f"{name}/lowlevel server_cpu@{level}"] = _summary(
                [r[name][level]["server_cpu_ms_per_call"] / r["lowlevel"][level]["server_cpu_ms_per_call"] for r in per_round])
            ratios[f"{name}/lowlevel calls_per_s@{level}"] = _summary(
                [r[name][level]["calls_per_s"] / r["lowlevel"][level]["calls_per_s"] for r in per_round])
    for level in levels:  # what our host adds over the isolation floor
        ratios[f"scaleenv/isolated server_cpu@{level}"] = _summary(
            [r["scaleenv"][level]["server_cpu_ms_per_call"] / r["isolated"][level]["server_cpu_ms_per_call"]
             for r in per_round])
    if baseline is not None:
        for level in levels:
            ratios[f"scaleenv/baseline server_cpu@{level}"] = _summary(
                [r["scaleenv"][level]["server_cpu_ms_per_call"] / r["baseline"][level]["server_cpu_ms_per_call"]
                 for r in per_round])
    baseline_commit = None
    if baseline is not None:
        baseline_commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=baseline, capture_output=True,
                                         text=True).stdout.strip()
    return {"domain": domain_dir.name, "tool": tool, "rounds": rounds, "calls_per_level": calls, "rows": rows,
            "http_parser": http_parser if http_parser != "auto" else _auto_parser(),
            "ratios": ratios, "baseline": str(baseline) if baseline else None, "baseline_commit": baseline_commit,
            "load_average_end": os.getloadavg(), "repo": str(REPO)}


def _auto_parser() -> str:
    """What uvicorn's ``http="auto"`` picks here: httptools when it imports, else h11."""
    try:
        import httptools  # noqa: F401
    except ImportError:
        return "h11"
    return "httptools"


def render_interleaved(section: dict[str, Any], environment: dict[str, Any] | None) -> list[str]:
    load = ", ".join(f"{x:.1f}" for x in (environment or {}).get("load_average", []))
    commit = (environment or {}).get("commit", "unknown")[:12]
    end = ", ".join(f"{x:.1f}" for x in section["load_average_end"])
    lines = ["", "## Tool calls over HTTP, interleaved rounds", "",
             f"`scaleenv bench --only calls` at commit `{commit}`: {section['rounds']} rounds, each driving every server at each concurrency "
             f"in turn (`{section['tool']}` of `{section['domain']}`); median (min-max) over rounds, each ratio taken "
             f"within its round, HTTP parser {section.get('http_parser', 'auto')} for every server. "
             f"Load average at start {load}, at end {end}."
             + (f" `baseline` is commit `{(section['baseline_commit'] or '?')[:12]}`." if section.get("baseline") else ""),
             "", "| server | concurrency | server CPU ms/call | calls/s | p50 ms |", "| --- | --- | --- | --- | --- |"]

    def cell(summary: dict[str, float]) -> str:
        return f"{summary['median']:g} ({summary['min']:g}-{summary['max']:g})"

    for row in section["rows"]:
        lines.append(f"| {row['server']} | {row['concurrency']} | {cell(row['server_cpu_ms_per_call'])} | "
                     f"{cell(row['calls_per_s'])} | {cell(row['p50_ms'])} |")
    lines += ["", "| ratio | median (min-max) |", "| --- | --- |"]
    lines += [f"| {key} | {cell(value)} |" for key, value in section["ratios"].items()]
    return lines
