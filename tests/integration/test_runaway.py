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


async def _sequential_replay_fingerprint(host: Host, episode) -> str:
    """The fingerprint of a fresh episode given the same successful calls, one after the other."""
    fresh = await host.registry.create(episode.domain.slug, episode.task_id)
    for tool, arguments in episode.replay:
        await host.registry.call(fresh.id, tool, arguments)
    return await host.registry.fingerprint(fresh.id, full=True)


async def test_a_runaway_does_not_stall_the_episodes_queued_behind_it(settings, fixture_domains):
    """#29 item 5: with two workers, requests of a co-located episode queued behind a runaway call are
    answered while the runaway still runs (its episode moved to the other worker, rebuilt by replay);
    the moved episode equals its sequential replay; the runaway still gets its budget error."""
    import asyncio

    async with Host.running(settings.model_copy(update={"workers": 2}), [fixture_domains]) as two:
        runaway = await two.registry.create("tiny_library")
        await two.registry.create("tiny_library")  # the other worker's
        bystander = await two.registry.create("tiny_library")
        stalled = runaway.worker
        assert bystander.worker is stalled
        await two.registry.call(bystander.id, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"})
        before = await two.registry.fingerprint(bystander.id)

        spinning = asyncio.ensure_future(two.registry.call(runaway.id, "tally", {"upto": 10**12}))
        await asyncio.sleep(0.2)
        read = asyncio.ensure_future(two.registry.fingerprint(bystander.id))
        write = asyncio.ensure_future(two.registry.call(bystander.id, "borrow_book",
                                                        {"member_id": "MEM-00002", "book_id": "BK-00003"}))
        after_read = asyncio.ensure_future(two.registry.dump(bystander.id, ["loans"]))
        assert await read == before
        assert (await write).result["loan_id"] == "LN-00009"  # in order, on the rebuilt copy: its id counter too
        assert "LN-00009" in [row[0] for row in (await after_read)["loans"]["rows"]]  # queued after the write: sees it
        assert not spinning.done()  # all answered while the runaway still runs
        assert bystander.worker is not stalled and two.registry.relocator.moved == 1

        with pytest.raises(Exception, match="wall-time budget"):
            await spinning
        assert runaway.worker is stalled  # the runaway's own episode stayed and got its budget
        assert await two.registry.fingerprint(bystander.id, full=True) == \
            await _sequential_replay_fingerprint(two, bystander)
        assert (await two.registry.call(runaway.id, "tally", {"upto": 4})).result == {"total": 6}


async def test_a_slow_call_that_ends_in_its_budget_leaves_the_moved_episode_whole(settings, fixture_domains):
    """The stalled request ends within its budget: the stalled worker then answers the place-holders of the
    moved requests (on a stale copy nobody reads, closed behind them) and goes on serving its own episodes."""
    import asyncio

    async with Host.running(settings.model_copy(update={"workers": 2}), [fixture_domains]) as two:
        stayer = await two.registry.create("tiny_library")
        await two.registry.create("tiny_library")
        mover = await two.registry.create("tiny_library")
        stalled = mover.worker
        assert stayer.worker is stalled
        slow = asyncio.ensure_future(stalled.request(("sleep", 1.2), 3.0))  # a slow request, not about an episode
        await asyncio.sleep(0.1)
        write = asyncio.ensure_future(two.registry.call(mover.id, "borrow_book",
                                                        {"member_id": "MEM-00002", "book_id": "BK-00003"}))
        assert (await write).result["loan_id"] == "LN-00008" and not slow.done()
        assert await slow == ("ok", None)
        assert mover.worker is not stalled and mover.id not in stalled.episodes
        stayed = await two.registry.call(stayer.id, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00003"})
        assert stayed.result["loan_id"] == "LN-00008"  # the stalled worker's own episode, its replies in step
        assert (await stalled.request(("stats",), 5))[1]["episodes"] == 1  # the stale copy of the mover is closed
        assert await two.registry.fingerprint(mover.id, full=True) == await _sequential_replay_fingerprint(two, mover)
