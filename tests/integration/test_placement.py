"""Episodes created together spread over every worker (#25): each is reserved on its worker
before the first await, so concurrent creates see each other instead of all landing on the
worker that looked least loaded when they started."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings

FIXTURE_DOMAINS = Path(__file__).parent.parent / "fixtures" / "domains"


@pytest.mark.anyio
async def test_concurrent_creates_spread_evenly_over_the_workers(tmp_path: Path):
    settings = HostSettings(workers=2, port=0, control_port=0, token_file=tmp_path / "token")
    async with Host.running(settings, [FIXTURE_DOMAINS]) as host:
        episodes = await asyncio.gather(*(host.registry.create("tiny_library") for _ in range(8)))
        placed = Counter(e.worker.index for e in episodes)
        assert sorted(placed.values()) == [4, 4], placed
        await host.registry.close(episodes[0].id)
        again = await host.registry.create("tiny_library")  # the freed place is taken first
        assert again.worker.index == episodes[0].worker.index
