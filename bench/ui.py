"""The web view's list of live episodes on a host holding 10,000 of them (#24): the page a person
opens first when a trainer has filled the host. Real loopback HTTP against ``/ui/episodes`` (the
first page, newest first, and the last page), authenticated with the bearer token, each the
median of ``renders`` requests. Never a timed assertion in a test.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

import httpx

from bench.sized_domain import write_sized_domain
from scaleenv_mcp.clients.webui import ui_mount
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import serving
from scaleenv_mcp.settings import HostSettings

__all__ = ["bench_ui", "render_ui"]


async def _pages(folder: Path, state_dir: Path, episodes: int, renders: int) -> dict[str, Any]:
    package = write_sized_domain(folder, 100_000)
    settings = HostSettings(workers=2, port=0, control_port=0, state_dir=state_dir, token_file=state_dir / "token",
                            skip_validation=True, max_harness_episodes=episodes + 10)
    async with Host.running(settings, [folder], [package.name]) as host, \
            serving(host, mounts=[ui_mount([])]) as urls:
        for start in range(0, episodes, 250):
            await asyncio.gather(*(host.create_episode(package.name) for _ in range(min(250, episodes - start))))
        headers = {"Authorization": f"Bearer {urls.token}"}
        async with httpx.AsyncClient(base_url=urls.control_url, headers=headers, timeout=60) as http:
            timings: dict[str, list[float]] = {"first": [], "last": []}
            sizes: dict[str, int] = {}
            last_page = -(-episodes // 50)
            for _ in range(renders):
                for name, params in (("first", {}), ("last", {"page": last_page})):
                    started = time.perf_counter()
                    reply = await http.get("/ui/episodes", params=params)
                    timings[name].append((time.perf_counter() - started) * 1000)
                    reply.raise_for_status()
                    if f"of {episodes}" not in reply.text:  # the page must list what the host holds
                        raise RuntimeError(f"/ui/episodes does not list {episodes} episodes")
                    sizes[name] = len(reply.content)
    return {"episodes": episodes, "renders": renders,
            **{f"{name}_page_p50_ms": round(statistics.median(values), 1) for name, values in timings.items()},
            **{f"{name}_page_max_ms": round(max(values), 1) for name, values in timings.items()},
            "page_bytes": sizes["first"]}


def bench_ui(work: Path, episodes: int = 10_000, renders: int = 30) -> dict[str, Any]:
    return asyncio.run(_pages(work / "ui", work / "state", episodes, renders))


def render_ui(ui: dict[str, Any], measured: dict[str, Any] | None = None) -> list[str]:
    lines = ["", "## Web view (#24)", "",
             f"`GET /ui/episodes` over loopback HTTP on a host with {ui['episodes']:,} live episodes (50 a page, newest "
             f"first), median of {ui['renders']} requests: first page {ui['first_page_p50_ms']} ms (max "
             f"{ui['first_page_max_ms']} ms), last page {ui['last_page_p50_ms']} ms (max {ui['last_page_max_ms']} ms); "
             f"{ui['page_bytes']:,} bytes a page."]
    if measured:
        lines += ["", f"(Measured by `scaleenv bench --only ui` at commit `{measured['commit'][:12]}`, load average at "
                      f"start {', '.join(f'{x:.1f}' for x in measured['load_average'])} on {measured['cpus']} CPUs.)"]
    return lines
