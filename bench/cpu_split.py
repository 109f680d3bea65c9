"""``scaleenv bench --profile``: where a tool call's server CPU goes, split by layer (#25).

Our host and the bare low-level server are each started under ``bench/profiled_server.py`` and
driven with the same HTTP calls (``bench.loadgen``). Each is driven twice at each concurrency:
first unprofiled, for the true CPU per call of the serving process and of its workers (from
/proc), then with cProfile on the serving process's event loop, for how that CPU divides. The
split is the profile's self time per layer, scaled to the unprofiled CPU: cProfile slows
call-heavy Python more than C, so the split is a guide to where to look, not a stopwatch.

Layers, by the file a function lives in: ``HTTP`` (uvicorn, h11, httptools, starlette),
``SDK`` (mcp, mcp_types, pydantic, anyio), ``event loop`` (asyncio, selectors), ``ours``
(scaleenv_mcp outside the worker pipe, and jsonschema: the argument check), ``IPC`` (the worker pipe: workers/pool.py and
workers/protocol.py), ``tool code`` (tools run inline by the bare server). A built-in or
standard-library function (``json.dumps``, ``socket.send``, pickle) counts for the layer of its
callers, in proportion. ``worker`` is the worker processes' CPU, from /proc.
"""

from __future__ import annotations

import asyncio
import os
import pstats
import signal
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.calls import free_port, pick_call, start_server
from bench.loadgen import open_session, tool_call_body
from bench.procstat import process_cpu, process_tree_cpu

__all__ = ["LAYERS", "bench_profile", "layer_split", "render_profile"]

LAYERS = ("HTTP", "SDK", "event loop", "ours", "IPC", "tool code", "other", "worker")
_DIRECT = (
    ("scaleenv_mcp/workers/pool.py", "IPC"), ("scaleenv_mcp/workers/protocol.py", "IPC"),
    ("scaleenv_mcp/", "ours"), ("/uvicorn/", "HTTP"), ("/h11/", "HTTP"), ("/httptools/", "HTTP"),
    ("/starlette/", "HTTP"), ("/sse_starlette/", "HTTP"), ("/mcp/", "SDK"), ("/mcp_types/", "SDK"),
    ("/pydantic/", "SDK"), ("/pydantic_core/", "SDK"), ("/anyio/", "SDK"), ("/sniffio/", "SDK"),
    ("/jsonschema/", "ours"), ("/referencing/", "ours"), ("/rpds/", "ours"),  # our argument check
    ("/asyncio/", "event loop"),
    ("/selectors.py", "event loop"), ("bench/bare_servers.py", "tool code"), ("/opentelemetry/", "SDK"),
)
Func = tuple[str, int, str]


def _direct_layer(func: Func) -> str | None:
    filename = func[0]
    if "scaleenv_mcp/state/" in filename or filename == "tools.py":
        return "tool code"  # the tool facade and the tools, in whatever process runs them
    for marker, layer in _DIRECT:
        if marker in filename:
            return layer
    if filename == "~" or filename.startswith("<") or "/python3." in filename and "site-packages" not in filename:
        return None  # a built-in or the rest of the standard library: its callers' layer
    return "other"


def layer_split(stats: pstats.Stats) -> dict[str, float]:
    """Self time in seconds per layer; a built-in's is shared among its callers' layers."""
    raw: dict[Func, Any] = stats.stats  # type: ignore[attr-defined]
    memo: dict[Func, dict[str, float]] = {}

    def shares(func: Func, seen: frozenset[Func]) -> dict[str, float]:
        """Fractions of ``func``'s self time per layer."""
        if func in memo:
            return memo[func]
        direct = _direct_layer(func)
        if direct is not None:
            memo[func] = {direct: 1.0}
            return memo[func]
        callers = raw[func][4] if func in raw else {}
        weights: dict[str, float] = defaultdict(float)
        total = sum(entry[2] for entry in callers.values()) or 0.0
        for caller, entry in callers.items():
            if caller in seen:
                continue
            weight = entry[2] / total if total else 1 / len(callers)
            for layer, part in shares(caller, seen | {func}).items():
                weights[layer] += weight * part
        result = dict(weights) or {"other": 1.0}
        if not seen:
            memo[func] = result
        return result

    split: dict[str, float] = defaultdict(float)
    for func, (_, _, tottime, _, _) in raw.items():
        for layer, part in shares(func, frozenset()).items():
            split[layer] += tottime * part
    return dict(split)


async def _drive(url: str, body: bytes, concurrency: int, calls: int, pid: int, profile_out: Path | None) -> dict[str, float]:
    """``calls`` calls over ``concurrency`` connections; CPU of the serving process and of its workers."""
    connections = [await open_session(url) for _ in range(concurrency)]
    per_connection = max(10, calls // concurrency)

    async def run(connection: Any, count: int) -> None:
        for _ in range(count):
            await connection.call(body)

    await asyncio.gather(*(run(c, 20) for c in connections))  # warm-up, out of the measure and the profile
    if profile_out is not None:
        os.kill(pid, signal.SIGUSR1)
    own, tree = process_cpu(pid), process_tree_cpu(pid)
    await asyncio.gather(*(run(c, per_connection) for c in connections))
    own, tree = process_cpu(pid) - own, process_tree_cpu(pid) - tree
    if profile_out is not None:
        os.kill(pid, signal.SIGUSR2)
    for connection in connections:
        await connection.close()
    total = per_connection * concurrency
    return {"calls": total, "server_ms_per_call": own / total * 1000, "worker_ms_per_call": (tree - own) / total * 1000}


def bench_profile(domain_dir: Path, levels: tuple[int, ...] = (1, 16), calls: int = 2000) -> dict[str, Any]:
    """Per server and concurrency: CPU per call (serving process, workers) and its split by layer, in ms."""
    tool, arguments = pick_call(domain_dir)
    body = tool_call_body(tool, arguments)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for kind in ("lowlevel", "scaleenv"):
            profile_out = Path(scratch) / f"{kind}.prof"
            process, url = start_server(kind, domain_dir, free_port(), Path(scratch) / "state", profile_out=profile_out)
            try:
                for level in levels:
                    plain = asyncio.run(_drive(url, body, level, calls, process.pid, None))
                    asyncio.run(_drive(url, body, level, calls, process.pid, profile_out))
                    for _ in range(100):  # the server writes the profile when it handles SIGUSR2
                        if profile_out.exists() and profile_out.stat().st_size:
                            break
                        time.sleep(0.05)
                    split = layer_split(pstats.Stats(str(profile_out)))
                    profile_out.unlink()
                    profiled = sum(split.values()) or 1.0
                    layers = {layer: round(plain["server_ms_per_call"] * split.get(layer, 0.0) / profiled, 4)
                              for layer in LAYERS if layer != "worker"}
                    layers["worker"] = round(plain["worker_ms_per_call"], 4)
                    rows.append({"server": kind, "concurrency": level, "calls": plain["calls"],
                                 "server_cpu_ms_per_call": round(plain["server_ms_per_call"] + plain["worker_ms_per_call"], 4),
                                 "layers_ms_per_call": layers})
            finally:
                process.terminate()
                process.wait(timeout=10)
    return {"domain": domain_dir.name, "tool": tool, "rows": rows, "load_average_end": os.getloadavg()}


def render_profile(section: dict[str, Any], environment: dict[str, Any] | None) -> list[str]:
    load = ", ".join(f"{x:.1f}" for x in (environment or {}).get("load_average", []))
    lines = ["", "## Per-call CPU split", "",
             f"`scaleenv bench --profile`: `{section['tool']}` of `{section['domain']}` over HTTP; CPU per call from "
             "/proc, divided by layer in proportion to a cProfile of the serving process (bench/cpu_split.py says how "
             f"layers are assigned; worker = the worker processes). Microseconds per call. Load average at start {load}.",
             "", "| server | concurrency | total | " + " | ".join(LAYERS) + " |",
             "| --- | --- | --- | " + " | ".join("---" for _ in LAYERS) + " |"]
    for row in section["rows"]:
        cells = " | ".join(f"{row['layers_ms_per_call'].get(layer, 0) * 1000:.0f}" for layer in LAYERS)
        lines.append(f"| {row['server']} | {row['concurrency']} | {row['server_cpu_ms_per_call'] * 1000:.0f} | {cells} |")
    return lines
