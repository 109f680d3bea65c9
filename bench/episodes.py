"""Episode costs: creation through the control API, memory per live episode, fingerprint and diff,
for start states of about 100 KB, 1 MB and 10 MB, each against a raw sqlite3 deserialize of
the same bytes measured in the same run; and how many 100 KB episodes one host holds."""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.procstat import rss_kb
from bench.sized_domain import write_sized_domain
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import serving
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.state.start_states import build_start_state

RAW_SCRIPT = Path(__file__).with_name("raw_sqlite.py")
ROUNDS = 3  # interleaved: the machine's drift falls on all three measures alike


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def raw_in_own_process(data: bytes, repeat: int, usable: bool) -> float:
    """``raw_deserialize_ms`` in a fresh process (``bench/raw_sqlite.py``): what it allocates is its own."""
    with tempfile.NamedTemporaryFile(suffix=".sqlite") as state:
        state.write(data)
        state.flush()
        done = subprocess.run([sys.executable, str(RAW_SCRIPT), state.name, str(repeat), "usable" if usable else "raw"],
                              capture_output=True, text=True, check=True)
    return float(done.stdout)


def _spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3), "max": round(max(values), 3)}


async def _sized(folder: Path, size: int, episodes: int, state_dir: Path) -> dict[str, Any]:
    package = write_sized_domain(folder, size)
    from scaleenv_mcp.domain.loader import load_domain

    loaded = load_domain(package)
    data = build_start_state(loaded.schema_sql, loaded.seed)
    settings = HostSettings(workers=1, port=0, control_port=0, state_dir=state_dir, token_file=state_dir / "token",
                            skip_validation=True, max_harness_episodes=100_000, max_db_mb=256)
    async with Host.running(settings, [folder], [package.name]) as host, serving(host) as urls:
        worker_pid = host.worker_pids()[0]
        async with httpx.AsyncClient(base_url=urls.control_url, headers={"Authorization": f"Bearer {urls.token}"},
                                     timeout=120) as http:
            await http.post("/episodes", json={"domain": package.name})  # warm the start-state cache
            rss_before = rss_kb(worker_pid)
            create_ms, ids = [], []
            for _ in range(episodes):
                started = time.perf_counter()
                response = await http.post("/episodes", json={"domain": package.name})
                create_ms.append((time.perf_counter() - started) * 1000)
                ids.append(response.json()["episodes"][0]["id"])
            rss_created = rss_kb(worker_pid)
            for episode_id in ids:
                await host.tables(episode_id)  # a full read of every table
            rss_read = rss_kb(worker_pid)
            fingerprint_ms, diff_ms = [], []
            for episode_id in ids[:20]:
                await host.call(episode_id, "update_item", {"item_id": "ITM-0000001", "amount": 7})
                started = time.perf_counter()
                await host.fingerprint(episode_id)
                fingerprint_ms.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await host.diff(episode_id)
                diff_ms.append((time.perf_counter() - started) * 1000)
    # interleaved rounds, each baseline in a process of its own, the creates in a fresh host each round
    rounds: dict[str, list[float]] = {"raw": [], "usable": [], "create": []}
    create_p99: list[float] = []
    for index in range(ROUNDS):
        rounds["raw"].append(raw_in_own_process(data, episodes, usable=False))
        rounds["usable"].append(raw_in_own_process(data, episodes, usable=True))
        created = await creation_in_process(folder / f"in_process{index}", size, state_dir, episodes=min(episodes, 200))
        rounds["create"].append(created["create_in_process_p50_ms"])
        create_p99.append(created["create_in_process_p99_ms"])
    raw, raw_usable = statistics.median(rounds["raw"]), statistics.median(rounds["usable"])
    in_process = {"create_in_process_p50_ms": round(statistics.median(rounds["create"]), 3),
                  "create_in_process_p99_ms": round(statistics.median(create_p99), 3)}
    per_episode_created = (rss_created - rss_before) * 1024 / episodes
    per_episode_read = (rss_read - rss_before) * 1024 / episodes
    return {
        "start_state_bytes": len(data), "episodes": episodes,
        "control_create_p50_ms": round(statistics.median(create_ms), 3),
        "control_create_p99_ms": round(_percentile(create_ms, 0.99), 3),
        **in_process,
        "raw_deserialize_p50_ms": round(raw, 3),
        "in_process_create_vs_raw": round(in_process["create_in_process_p50_ms"] / raw, 2),
        "raw_usable_p50_ms": round(raw_usable, 3),
        "in_process_create_vs_raw_usable": round(in_process["create_in_process_p50_ms"] / raw_usable, 2),
        "creation_rounds": {name: _spread(values) for name, values in rounds.items()},
        "rss_per_episode_created_bytes": int(per_episode_created), "rss_per_episode_read_bytes": int(per_episode_read),
        "memory_created_vs_state": round(per_episode_created / len(data), 2),
        "memory_read_vs_state": round(per_episode_read / len(data), 2),
        "fingerprint_p50_ms": round(statistics.median(fingerprint_ms), 3), "diff_p50_ms": round(statistics.median(diff_ms), 3),
    }


async def _many(folder: Path, count: int, state_dir: Path) -> dict[str, Any]:
    package = write_sized_domain(folder, 100_000)
    settings = HostSettings(workers=2, port=0, control_port=0, state_dir=state_dir, token_file=state_dir / "token",
                            skip_validation=True, max_harness_episodes=count + 10)
    async with Host.running(settings, [folder], [package.name]) as host, serving(host) as urls:
        async with httpx.AsyncClient(base_url=urls.control_url, headers={"Authorization": f"Bearer {urls.token}"},
                                     timeout=600) as http:
            started = time.perf_counter()
            for _ in range(count // 500):
                response = await http.post("/episodes", json={"domain": package.name, "count": 500})
                response.raise_for_status()
            elapsed = time.perf_counter() - started
            listed = len((await http.get("/episodes")).json()["episodes"])
            last = (await http.get("/episodes")).json()["episodes"][-1]["id"]
            outcome = await host.call(last, "get_item", {"item_id": "ITM-0000002"})
            rss = sum(rss_kb(pid) for pid in host.worker_pids()) + rss_kb_self()
    return {"live_episodes": listed, "create_all_s": round(elapsed, 2), "last_episode_call_ok": outcome.kind.value == "success",
            "host_and_workers_rss_mb": round(rss / 1024, 1)}


def rss_kb_self() -> int:
    import os

    return rss_kb(os.getpid())


def bench_episodes(work: Path, state_dir: Path, sizes: tuple[int, ...] = (100_000, 1_000_000, 10_000_000),
                   many: int = 10_000) -> dict[str, Any]:
    rows = []
    for size in sizes:
        episodes = 200 if size <= 1_000_000 else 40
        rows.append(asyncio.run(_sized(work / f"s{size}", size, episodes, state_dir)))
    return {"sized": rows, "many": asyncio.run(_many(work / "many", many, state_dir)) if many else None}


async def creation_in_process(folder: Path, size: int, state_dir: Path, episodes: int = 300) -> dict[str, float]:
    """Episode creation through the Python API (no HTTP): the host's own cost against raw deserialize."""
    package = write_sized_domain(folder, size)
    settings = HostSettings(workers=1, state_dir=state_dir, skip_validation=True, max_harness_episodes=100_000)
    async with Host.running(settings, [folder], [package.name]) as host:
        await host.create_episode(package.name)
        times = []
        for _ in range(episodes):
            started = time.perf_counter()
            await host.create_episode(package.name)
            times.append((time.perf_counter() - started) * 1000)
    return {"create_in_process_p50_ms": round(statistics.median(times), 3),
            "create_in_process_p99_ms": round(_percentile(times, 0.99), 3)}
