"""Tool-call throughput, latency and server CPU per call: our host against bare MCP servers.

HTTP is driven by ``loadgen`` (raw keep-alive sockets, one handshake session per connection);
in-memory and stdio by the official Python client, whose own cost dominates there, so those
rows compare transports rather than servers. Server CPU per call counts the serving process
and all its children (our worker processes included).
"""

from __future__ import annotations

import asyncio
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.loadgen import open_session, tool_call_body
from bench.procstat import process_cpu, process_tree_cpu

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pick_call(domain_dir: Path) -> tuple[str, dict[str, Any]]:
    """A read tool ``get_<x>`` whose required arguments are all ids (``acting_user_id`` is the id of
    a user, as an agent acting for one passes), with ids that exist in the seed (deterministic)."""
    from scaleenv_mcp.domain.loader import load_domain

    package = load_domain(domain_dir)
    first_ids = {table.primary_key[0]: package.seed[table.name][0][table.primary_key[0]]
                 for table in package.manifest.tables if len(table.primary_key) == 1 and package.seed.get(table.name)}
    for tool in package.manifest.tools:
        required = tool.input_schema.get("required", [])
        names = [name.removeprefix("acting_") for name in required]
        if tool.name.startswith("get_") and 1 <= len(required) <= 2 and not tool.writes \
                and all(name in first_ids for name in names):
            return tool.name, {arg: first_ids[name] for arg, name in zip(required, names)}
    raise SystemExit(f"no get_<x>(id) tool found in {domain_dir}; pass --tool and --args")


def start_server(kind: str, domain_dir: Path, port: int, state_dir: Path,
                 checkout: Path = REPO, profile_out: Path | None = None, http_parser: str = "auto") -> tuple[subprocess.Popen, str]:
    """A server on ``port``; ``scaleenv`` runs the code of ``checkout`` (another worktree: a baseline).
    With ``profile_out`` it runs under ``bench/profiled_server.py`` (``bench.cpu_split``). ``http_parser``
    is uvicorn's (auto, h11, httptools), for ours and the bare servers alike."""
    env = {"PATH": "/usr/bin:/bin", "SCALEENV_STATE_DIR": str(state_dir), "PYTHONPATH": str(checkout),
           "SCALEENV_HTTP_PARSER": http_parser}
    if kind == "scaleenv":
        command = [sys.executable, "-m", "scaleenv_mcp", "serve", "--no-control", "--port", str(port),
                   "--domains-dir", str(domain_dir.parent), "--domain", domain_dir.name]
        url = f"http://127.0.0.1:{port}/mcp/{domain_dir.name}"
        probe = f"http://127.0.0.1:{port}/"
    else:
        command = [sys.executable, str(REPO / "bench" / "bare_servers.py"), kind, str(domain_dir), str(port)]
        url = probe = f"http://127.0.0.1:{port}/mcp"
    if profile_out is not None:
        command = [sys.executable, str(REPO / "bench" / "profiled_server.py"), str(profile_out), kind,
                   *command[5 if kind == "scaleenv" else 3:]]
    process = subprocess.Popen(command, env=env, cwd=checkout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(probe, timeout=1) as response:
                if kind != "scaleenv" or domain_dir.name in json.loads(response.read())["domains"]:
                    return process, url
        except urllib.error.HTTPError:
            return process, url  # the bare servers answer GET /mcp with an HTTP error: they are up
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"{kind} server did not start")


async def drive_http(url: str, pid: int, body: bytes, concurrency: int, calls_per_connection: int) -> dict[str, float]:
    return await drive_urls([url] * concurrency, [pid], body, calls_per_connection)


async def drive_urls(urls: list[str], pids: list[int], body: bytes, calls_per_connection: int) -> dict[str, float]:
    """One connection (handshake session) per URL, all calling at once; server CPU summed over ``pids``
    and their descendants (several servers, or host actors and their workers)."""
    connections = [await open_session(url) for url in urls]

    async def warm(connection) -> None:
        for _ in range(20):
            await connection.call(body)

    await asyncio.gather(*(warm(c) for c in connections))
    latencies: list[float] = []

    async def run(connection) -> None:
        for _ in range(calls_per_connection):
            latencies.append(await connection.call(body))

    cpu_before, serving_before = sum(map(process_tree_cpu, pids)), sum(map(process_cpu, pids))
    started = time.perf_counter()
    await asyncio.gather(*(run(c) for c in connections))
    wall, cpu = time.perf_counter() - started, sum(map(process_tree_cpu, pids)) - cpu_before
    serving = sum(map(process_cpu, pids)) - serving_before
    for connection in connections:
        await connection.close()
    latencies.sort()
    total = len(latencies)
    return {"calls": total, "calls_per_s": round(total / wall, 1),
            "p50_ms": round(statistics.median(latencies) * 1000, 3),
            "p99_ms": round(latencies[int(total * 0.99) - 1] * 1000, 3),
            "server_cpu_ms_per_call": round(cpu / total * 1000, 4),
            "serving_process_cpu_ms_per_call": round(serving / total * 1000, 4)}  # without its workers


def bench_http(domain_dir: Path, tool: str, arguments: dict[str, Any], state_dir: Path,
               levels: tuple[int, ...] = (1, 16, 64), calls: int = 2000) -> list[dict[str, Any]]:
    rows = []
    body = tool_call_body(tool, arguments)
    for kind in ("lowlevel", "fastmcp", "scaleenv"):
        process, url = start_server(kind, domain_dir, free_port(), state_dir)
        try:
            for level in levels:
                result = asyncio.run(drive_http(url, process.pid, body, level, max(20, calls // level)))
                rows.append({"transport": "http", "server": kind, "concurrency": level, **result})
        finally:
            process.terminate()
            process.wait(timeout=10)
    return rows


async def _client_calls(client_factory, tool: str, arguments: dict[str, Any], calls: int) -> dict[str, float]:
    latencies = []
    async with client_factory() as client:
        for _ in range(20):
            await client.call_tool(tool, arguments)
        started = time.perf_counter()
        for _ in range(calls):
            t0 = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            latencies.append(time.perf_counter() - t0)
            assert not result.is_error
        wall = time.perf_counter() - started
    latencies.sort()
    return {"calls": calls, "calls_per_s": round(calls / wall, 1), "p50_ms": round(statistics.median(latencies) * 1000, 3),
            "p99_ms": round(latencies[int(calls * 0.99) - 1] * 1000, 3)}


def bench_memory_and_stdio(domain_dir: Path, tool: str, arguments: dict[str, Any], state_dir: Path,
                           calls: int = 1000, stdio: bool = True) -> list[dict[str, Any]]:
    import mcp

    from bench.bare_servers import lowlevel_server
    from scaleenv_mcp.host.host import Host
    from scaleenv_mcp.settings import HostSettings

    rows = []

    async def ours_memory() -> dict[str, float]:
        settings = HostSettings(workers=1, state_dir=state_dir)
        async with Host.running(settings, [domain_dir.parent], [domain_dir.name]) as host:
            episode = await host.create_episode(domain_dir.name)
            return await _client_calls(lambda: host.client(episode.id), tool, arguments, calls)

    bare = lowlevel_server(domain_dir)
    rows.append({"transport": "memory", "server": "lowlevel", "concurrency": 1,
                 **asyncio.run(_client_calls(lambda: mcp.Client(bare), tool, arguments, calls))})
    rows.append({"transport": "memory", "server": "scaleenv", "concurrency": 1, **asyncio.run(ours_memory())})
    if not stdio:
        return rows
    env = {"PATH": "/usr/bin:/bin", "SCALEENV_STATE_DIR": str(state_dir), "PYTHONPATH": str(REPO)}
    for kind, args in (("lowlevel", [str(REPO / "bench" / "bare_servers.py"), "stdio", str(domain_dir)]),
                       ("scaleenv", ["-m", "scaleenv_mcp", "serve", "--stdio", str(domain_dir)])):
        params = mcp.StdioServerParameters(command=sys.executable, args=args, env=env)
        rows.append({"transport": "stdio", "server": kind, "concurrency": 1,
                     **asyncio.run(_client_calls(lambda: mcp.Client(params), tool, arguments, calls))})
    return rows
