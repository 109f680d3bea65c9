"""How long a runaway call stalls the other episodes on its worker (issue #29 item 5): the measurement.

It lives in the core because it must put three episodes on one worker and count the episodes moved,
which only the registry knows; ``scaleenv bench --only stall`` (bench/stall.py) runs it on the fixture
domain and renders it. Two hosts of two workers each, with the default 10 s call budget: one with
``stall_after`` 0 (the behaviour before: whatever waits behind the runaway waits for its whole
budget) and one with the default ``stall_after``. In each round, on each host: three episodes on
one worker (the runaway's and two bystanders, each with one write in its trace), the runaway call
started (``tally`` with a huge bound), a read (``find_books`` over the in-memory MCP client) on the
first bystander 0.2 s later, a read on the second 1.0 s later, then the runaway's own error. Rounds
alternate between the hosts; the figures are medians over rounds. Never a timed assertion in a test.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings

__all__ = ["measure_stall"]

DOMAIN = "tiny_library"  # the fixture domain: its ``tally`` with a huge bound is a runaway
READ = ("find_books", {"text": "Dune"})


async def _colocated(host: Host, count: int) -> list[Any]:
    """``count`` new episodes on one worker (others created on the way are closed again)."""
    first = await host.registry.create(DOMAIN)
    found: list[Any] = [first]
    spare: list[Any] = []
    while len(found) < count:
        episode = await host.registry.create(DOMAIN)
        (found if episode.worker is first.worker else spare).append(episode)
    for episode in spare:
        await host.registry.close(episode.id)
    return found


async def _timed_read(host: Host, episode_id: str) -> float:
    started = time.perf_counter()
    async with host.client(episode_id) as client:
        result = await client.call_tool(*READ)
    assert not result.is_error, result
    return (time.perf_counter() - started) * 1000


async def _round(host: Host) -> dict[str, Any]:
    runaway, first, second = await _colocated(host, 3)
    for episode in (first, second):
        await host.registry.call(episode.id, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"})
    idle = await _timed_read(host, first.id)
    moved = host.registry.relocator.moved
    started = time.perf_counter()
    spinning = asyncio.ensure_future(host.registry.call(runaway.id, "tally", {"upto": 10**12}))
    await asyncio.sleep(0.2)
    early = asyncio.ensure_future(_timed_read(host, first.id))
    await asyncio.sleep(0.8)
    late = asyncio.ensure_future(_timed_read(host, second.id))
    reads = await asyncio.gather(early, late)
    try:
        await spinning
        stopped = None
    except Exception as error:  # the budget error is what is expected
        stopped = str(error)
    runaway_s = time.perf_counter() - started
    for episode in (runaway, first, second):
        await host.registry.close(episode.id)
    return {"idle_read_ms": round(idle, 2), "read_at_0.2s_ms": round(reads[0], 2), "read_at_1.0s_ms": round(reads[1], 2),
            "runaway_error_s": round(runaway_s, 2), "runaway_budget_error": "wall-time budget" in (stopped or ""),
            "episodes_moved": host.registry.relocator.moved - moved}


async def _bench(domains_dir: Path, state_dir: Path, rounds: int) -> dict[str, Any]:
    base = HostSettings(workers=2, port=0, control_port=0, state_dir=state_dir, token_file=state_dir / "token")
    modes = {"before (stall_after 0)": base.model_copy(update={"stall_after": 0.0}),
             f"after (stall_after {base.stall_after:g} s)": base}
    rows: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
    async with Host.running(modes[next(iter(modes))], [domains_dir], [DOMAIN]) as before, \
            Host.running(base, [domains_dir], [DOMAIN]) as after:
        for _ in range(rounds):
            for mode, host in zip(modes, (before, after)):
                rows[mode].append(await _round(host))
    medians = {mode: {key: statistics.median(r[key] for r in mode_rows) for key in
                      ("idle_read_ms", "read_at_0.2s_ms", "read_at_1.0s_ms", "runaway_error_s")}
               for mode, mode_rows in rows.items()}
    return {"call_timeout_s": base.call_timeout, "stall_after_s": base.stall_after, "rounds": rounds,
            "rows": rows, "medians": medians}


def measure_stall(domains_dir: Path, state_dir: Path, rounds: int = 3) -> dict[str, Any]:
    """The rows and medians of ``rounds`` rounds; ``domains_dir`` holds the fixture domain tiny_library."""
    return asyncio.run(_bench(domains_dir, state_dir, rounds))
