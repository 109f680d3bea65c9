"""The first five minutes (#28): how long a new user waits, before and after, in one session.

Each figure is the median of a few runs of the real CLI in a subprocess, with the code of one
checkout on PYTHONPATH: the bound listener, every domain online from a warm validation record,
and the wall time of ``domains``, ``tools``, ``call`` and ``shell`` (to its prompt; it quits at
once). The checkout given as ``--baseline`` is measured the same way beside this one. Worker
starts (hosts, validation and generation start many): a pool's worker replaced again and again,
the wall time until the new worker answers, and the CPU it spent until then (from /proc).
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["bench_startup", "render_startup"]

RUNS = 3
CALL = ["call", "smart_home", "identify_user", "--args", '{"email": "Priya.Raman@Outlook.com"}']
COMMANDS = {"domains": ["domains"], "tools": ["tools", "smart_home"], "call": CALL, "shell": ["shell", "smart_home"]}


def _env(checkout: Path, state: Path) -> dict[str, str]:
    # with cwd=checkout too: `python -m` puts the working directory before PYTHONPATH
    return {**os.environ, "PYTHONPATH": str(checkout), "SCALEENV_STATE_DIR": str(state), "COLUMNS": "120"}


def _serve_once(checkout: Path, state: Path, domains: int) -> tuple[float, float]:
    """(seconds to the listening line, seconds until every domain is online). Older checkouts print
    no banner: there, all online is the last of the per-domain 'online' lines."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp", "serve", "--port", "0", "--control-port", "0"],
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=_env(checkout, state),
                               cwd=checkout)
    bound = online = None
    count = 0
    try:
        assert process.stderr is not None
        for line in process.stderr:
            now = time.perf_counter() - started
            if bound is None and ("listening on" in line or "agents on" in line):
                bound = now
            count += line.strip().endswith(": online")
            if " online at " in line or count == domains:
                online = now
                break
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    if bound is None or online is None:
        raise RuntimeError(f"serve from {checkout} never came online")
    return bound, online


def _wall(checkout: Path, state: Path, args: list[str], stdin: str | None) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "scaleenv_mcp", *args], input=stdin, capture_output=True, text=True,
                   env=_env(checkout, state), cwd=checkout, timeout=300, check=True)
    return time.perf_counter() - started


_WORKER_STARTS = """
import asyncio, json, statistics, sys, time
from bench.procstat import process_cpu
from scaleenv_mcp.workers.pool import WorkerPool

async def main(starts):
    pool = WorkerPool(2, memory_limit=1024**3)
    pool.start()
    walls, cpus = [], []
    try:
        worker = pool.workers[0]
        await worker.request(("ping",), 60)
        for _ in range(starts):
            started = time.perf_counter()
            worker.replace()
            await worker.request(("ping",), 60)
            walls.append(time.perf_counter() - started)
            cpus.append(process_cpu(worker.pid))
    finally:
        pool.stop()
    print(json.dumps({"worker_start_ms": statistics.median(walls) * 1000, "worker_start_cpu_ms": statistics.median(cpus) * 1000}))

asyncio.run(main(int(sys.argv[1])))
"""


def _worker_starts(checkout: Path, state: Path, starts: int = 20) -> dict[str, float]:
    """Median wall and CPU of one worker start, until it answers its first request (Linux /proc)."""
    if not Path("/proc/self/stat").exists():
        return {}
    run = subprocess.run([sys.executable, "-c", _WORKER_STARTS, str(starts)], capture_output=True, text=True,
                         env=_env(checkout, state), cwd=checkout, timeout=600, check=True)
    figures: dict[str, float] = json.loads(run.stdout.strip().splitlines()[-1])
    return figures


def _measure(checkout: Path, state: Path, domains: int) -> dict[str, float]:
    serves = [_serve_once(checkout, state, domains) for _ in range(RUNS)]
    row = {"bind_s": statistics.median(b for b, _ in serves), "all_online_warm_s": statistics.median(o for _, o in serves)}
    for name, args in COMMANDS.items():
        stdin = "quit\n" if name == "shell" else None
        row[f"{name}_s"] = statistics.median(_wall(checkout, state, args, stdin) for _ in range(RUNS))
    row.update(_worker_starts(checkout, state))
    return {key: round(value, 2) for key, value in row.items()}


def bench_startup(checkout: Path, baseline: Path | None, domains: int = 8) -> dict[str, Any]:
    """Warm one validation record (timing that cold start), then measure each checkout against it."""
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(scratch)
        _, cold = _serve_once(checkout, state, domains)
        result: dict[str, Any] = {"runs": RUNS, "cold_all_online_s": round(cold, 2), "after": _measure(checkout, state, domains)}
        if baseline is not None:
            result["before"] = _measure(baseline, state, domains)
    return result


def render_startup(startup: dict[str, Any], measured: dict[str, Any] | None = None, baseline: str | None = None) -> list[str]:
    labels = {"bind_s": "serve: listener bound", "all_online_warm_s": "serve: every domain online (warm record)",
              "domains_s": "`scaleenv domains`", "tools_s": "`scaleenv tools smart_home`",
              "call_s": "`scaleenv call smart_home identify_user`", "shell_s": "`scaleenv shell smart_home` to prompt (quits)",
              "worker_start_ms": "a worker replaced until it answers, ms (median of 20)",
              "worker_start_cpu_ms": "CPU the new worker spent until then, ms (/proc counts 10 ms ticks)"}
    before = startup.get("before", {})
    lines = ["", "## Start-up (#28)", "",
             f"Wall seconds, median of {startup['runs']} runs of the CLI in a subprocess; 'before' is "
             f"{'commit `' + baseline[:12] + '`' if baseline else 'the baseline checkout'}, measured in the same session. "
             f"From a fresh validation record every domain was online after {startup['cold_all_online_s']} s.", "",
             "| measure | before s | after s |", "| --- | --- | --- |"]
    for key, label in labels.items():
        lines.append(f"| {label} | {before.get(key, '')} | {startup['after'].get(key, '')} |")
    if measured:
        lines += ["", f"(Measured by `scaleenv bench --only startup` at commit `{measured['commit'][:12]}`, load average "
                      f"at start {', '.join(f'{x:.1f}' for x in measured['load_average'])} on {measured['cpus']} CPUs: "
                      "'after' runs first, so a load that falls during the run favours 'before'.)"]
    return lines
