"""A runaway tool is stopped; every other episode carries on exactly where it was."""

from __future__ import annotations

import time

import mcp
import pytest
from mcp.shared.exceptions import MCPError

from scaleenv_mcp.host.host import Host

pytestmark = pytest.mark.anyio


async def test_infinite_loop_is_stopped_while_other_episodes_keep_their_state(host: Host):
    # host runs a single worker, so the bystander lives in the very process that gets killed
    bystander = await host.registry.create("tiny_library")
    await host.registry.call(bystander.id, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"})
    before = await host.registry.fingerprint(bystander.id)
    worker_pid = bystander.worker.pid

    runaway = await host.registry.create("tiny_library")
    started = time.monotonic()
    async with host.client(runaway.id) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("tally", {"upto": 10**12})
    assert "wall-time budget" in caught.value.message
    assert time.monotonic() - started < host.settings.call_timeout + 5

    assert bystander.worker.pid != worker_pid  # the worker was replaced ...
    assert await host.registry.fingerprint(bystander.id) == before  # ... and the bystander rebuilt by replay
    outcome = await host.registry.call(bystander.id, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00003"})
    assert outcome.result["loan_id"] == "LN-00009"  # its id counter travelled too
    # the runaway episode itself is usable again, with its state as before the bad call
    assert (await host.registry.call(runaway.id, "tally", {"upto": 4})).result == {"total": 6}


async def test_memory_bomb_is_contained(host: Host):
    bystander = await host.registry.create("tiny_library")
    before = await host.registry.fingerprint(bystander.id)
    episode = await host.registry.create("tiny_library")
    async with host.client(episode.id) as client:
        with pytest.raises(MCPError):
            await client.call_tool("repeat_text", {"text": "x", "times": 10**10})
        assert (await client.call_tool("repeat_text", {"text": "ab", "times": 2})).structured_content == {"length": 4}
    assert await host.registry.fingerprint(bystander.id) == before


async def test_other_episodes_are_served_while_a_tool_runs_away(settings, fixture_domains):
    """Over HTTP with two workers: a call on the other worker completes while one call spins."""
    import anyio

    from scaleenv_mcp.host.listeners import serving

    async with Host.running(settings.model_copy(update={"workers": 2}), [fixture_domains]) as two, \
            serving(two) as urls:
        runaway = await two.registry.create("tiny_library")
        other = await two.registry.create("tiny_library")
        assert runaway.worker is not other.worker
        served_at: list[float] = []
        stopped_at: list[float] = []

        async def spin() -> None:
            async with mcp.Client(f"{urls.agent_url}/mcp/episodes/{runaway.id}", mode="legacy") as client:
                with pytest.raises(MCPError):
                    await client.call_tool("tally", {"upto": 10**12})
            stopped_at.append(time.monotonic())

        async def meanwhile() -> None:
            await anyio.sleep(0.5)
            async with mcp.Client(f"{urls.agent_url}/mcp/episodes/{other.id}") as client:
                for _ in range(5):
                    assert not (await client.call_tool("find_books", {"text": "Dune"})).is_error
            served_at.append(time.monotonic())

        async with anyio.create_task_group() as group:
            group.start_soon(spin)
            group.start_soon(meanwhile)
        assert served_at[0] < stopped_at[0]


async def test_a_call_queued_behind_a_runaway_on_its_worker_is_answered_after_the_rebuild(host: Host):
    """One worker: the bystander's call waits behind the runaway one (#25: requests are queued on the
    worker, not behind a lock), and is answered by the fresh worker once its episode is rebuilt."""
    import asyncio

    bystander = await host.registry.create("tiny_library")
    await host.registry.call(bystander.id, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"})
    runaway = await host.registry.create("tiny_library")
    assert runaway.worker is bystander.worker
    spinning = asyncio.ensure_future(host.registry.call(runaway.id, "tally", {"upto": 10**12}))
    await asyncio.sleep(0.2)
    queued = asyncio.ensure_future(host.registry.call(bystander.id, "borrow_book",
                                                      {"member_id": "MEM-00002", "book_id": "BK-00003"}))
    with pytest.raises(Exception, match="wall-time budget"):
        await spinning
    outcome = await queued
    assert outcome.result["loan_id"] == "LN-00009"  # on the rebuilt state: the first loan was replayed
    assert [r.outcome.value for r in bystander.trace] == ["success", "success"]
