"""Episodes whose worker or host died answer a clear, stable error, never a hang or a 500 (issue #29).

- A request the worker was running when it was killed answers ``worker_lost`` (HTTP 503, JSON-RPC
  -32603 with ``data.code``), the episode is rebuilt by replay and the next request works.
- An episode that cannot be rebuilt (every fresh worker killed in turn) answers ``episode_lost``
  (HTTP 410, JSON-RPC -32004) on the control API and the agent listener; new episodes still work.
- Episodes open on a host that was killed (or stopped) answer ``episode_lost`` on the next host
  started on the same state directory; closed and unknown ids still answer ``episode_not_found``.

Before: a killed worker's in-flight control request was a 500, a failed rebuild left the episode
half-closed (``episode_not_found``, its slot never given back), and a restarted host knew nothing.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.episodes.journal import EpisodeJournal
from scaleenv_mcp.errors import EpisodeLostError, EpisodeNotFoundError, WorkerLostFaultError
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import serving
from scaleenv_mcp.soak.raw_mcp import RawMcpSession
from scaleenv_mcp.soak.served import ServedHost
from tests.support_processes import left_after

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "domains"
BORROW = {"member_id": "MEM-00002", "book_id": "BK-00001"}


async def _new_worker_pid(host: Host, old: set[int], timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        fresh = set(host.worker_pids()) - old
        if fresh:
            return fresh.pop()
        await asyncio.sleep(0.005)
    raise AssertionError("the pool did not respawn its worker")


async def test_a_request_running_when_its_worker_is_killed_answers_worker_lost_and_the_episode_is_rebuilt(host: Host):
    episode = await host.create_episode("tiny_library")
    await host.call(episode.id, "borrow_book", BORROW)
    before = await host.fingerprint(episode.id)
    [pid] = host.worker_pids()
    running = asyncio.create_task(host.call(episode.id, "tally", {"upto": 10**12}))  # loops until killed
    await asyncio.sleep(0.5)
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(WorkerLostFaultError) as caught:
        await asyncio.wait_for(running, 20)
    assert caught.value.code == "worker_lost" and "retry" in caught.value.message
    assert await host.fingerprint(episode.id) == before  # rebuilt by replay, without the interrupted call
    assert host.worker_pids() != [pid]
    trace = await host.trace(episode.id)
    assert trace[-1].error_code == "worker_lost"
    other = await host.create_episode("tiny_library")  # the respawned worker takes new episodes
    assert (await host.call(other.id, "tally", {"upto": 4})).result == {"total": 6}


async def test_a_rebuilt_episode_replays_the_arguments_its_calls_had_even_if_the_caller_changed_its_dict(host: Host):
    """The episode keeps its own copy of each call's arguments: a Python API caller reusing its dict for the
    next call must not change what a rebuild replays (it replayed the changed dict before)."""
    episode = await host.create_episode("tiny_library")
    arguments = dict(BORROW)
    await host.call(episode.id, "borrow_book", arguments)
    before = await host.fingerprint(episode.id)
    arguments["book_id"] = "BK-00002"  # the caller's next call, say
    [pid] = host.worker_pids()
    os.kill(pid, signal.SIGKILL)
    await _new_worker_pid(host, {pid})
    assert await host.fingerprint(episode.id) == before  # rebuilt by replay, with the call as it was made
    assert (await host.trace(episode.id))[0].arguments == BORROW


async def test_an_episode_whose_every_fresh_worker_dies_is_lost_on_both_listeners(host: Host):
    episode = await host.create_episode("tiny_library")
    await host.call(episode.id, "borrow_book", BORROW)
    killed: set[int] = set(host.worker_pids())
    os.kill(next(iter(killed)), signal.SIGKILL)
    for _ in range(3):  # the pool's recovery makes three attempts: kill each fresh worker before it rebuilds
        pid = await _new_worker_pid(host, killed)
        killed.add(pid)
        os.kill(pid, signal.SIGKILL)
    await _new_worker_pid(host, killed)
    with pytest.raises(EpisodeLostError) as lost:
        await asyncio.wait_for(host.fingerprint(episode.id), 30)
    message = lost.value.message
    assert lost.value.code == "episode_lost" and ("could not be rebuilt" in message or "before rebuilding" in message)
    async with serving(host) as urls, ControlClient(urls.control_url, urls.token) as control, \
            httpx.AsyncClient(timeout=30) as http:
        answer = await http.get(f"{urls.control_url}/episodes/{episode.id}",
                                headers={"authorization": f"Bearer {urls.token}"})
        assert answer.status_code == 410 and answer.json()["error"]["code"] == "episode_lost"
        with pytest.raises(EpisodeLostError):
            await control.trace(episode.id)
        mcp_answer = await http.post(f"{urls.agent_url}/mcp/episodes/{episode.id}", json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"accept": "application/json, text/event-stream"})
        error = mcp_answer.json()["error"]
        assert mcp_answer.status_code == 410 and (error["code"], error["data"]["code"]) == (-32004, "episode_lost")
        [fresh] = await control.create_episodes("tiny_library")  # new episodes go to the live worker
        session = await RawMcpSession.open(fresh.agent_url, http)
        status, reply = await session.call_tool("tally", {"upto": 4})
        assert status == 200 and not reply["result"].get("isError")
    assert len(await host.list_episodes()) == 1  # the lost one gave its slot back


async def test_an_interactive_session_on_a_lost_episode_gets_episode_lost(host: Host):
    episode = await host.create_episode("tiny_library")
    async with host.client(episode.id) as client:
        killed = set(host.worker_pids())
        os.kill(next(iter(killed)), signal.SIGKILL)
        for _ in range(3):
            pid = await _new_worker_pid(host, killed)
            killed.add(pid)
            os.kill(pid, signal.SIGKILL)
        with pytest.raises(MCPError) as caught:
            await asyncio.wait_for(client.call_tool("get_member", {"member_id": "MEM-00001"}), 30)
    assert (caught.value.code, caught.value.data) == (-32004, {"code": "episode_lost"})


@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
async def test_episodes_of_a_stopped_host_are_lost_on_the_next_one(tmp_path: Path, how: str):
    domains = tmp_path / "domains"
    domains.mkdir()
    (domains / "tiny_library").symlink_to(FIXTURES / "tiny_library")
    state = tmp_path / "state"
    first = await asyncio.to_thread(ServedHost(domains, state, skip_validation=True).start)
    async with ControlClient(first.control_url, first.token) as control:
        kept, closed = await control.create_episodes("tiny_library", count=2)
        await control.close(closed.id)
    await asyncio.to_thread(first.kill if how == "SIGKILL" else first.stop)
    second = await asyncio.to_thread(ServedHost(domains, state, skip_validation=True).start)
    try:
        async with ControlClient(second.control_url, second.token) as control, httpx.AsyncClient(timeout=30) as http:
            with pytest.raises(EpisodeLostError) as lost:
                await control.get_episode(kept.id)
            assert "host that held it stopped" in lost.value.message
            for other in (closed.id, "0" * 32):
                with pytest.raises(EpisodeNotFoundError) as missing:
                    await control.get_episode(other)
                assert missing.value.code == "episode_not_found"
            answer = await http.post(f"{second.agent_url}/mcp/episodes/{kept.id}", json={
                "jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers={"accept": "application/json, text/event-stream"})
            assert answer.status_code == 410 and answer.json()["error"]["data"]["code"] == "episode_lost"
            [fresh] = await control.create_episodes("tiny_library")
            assert fresh.id != kept.id
    finally:
        await asyncio.to_thread(second.stop)
    assert left_after(first.tag) == [] and left_after(second.tag) == []  # its workers die a moment after it


def test_a_running_host_keeps_its_journal_from_another_host_on_the_same_state_dir(tmp_path: Path):
    running, starting = EpisodeJournal(tmp_path), EpisodeJournal(tmp_path)
    assert running.open() == []
    running.opened("a")
    running.opened("b")
    running.ended("a")
    assert starting.open() == []  # locked: its host is alive, its episodes are not lost
    running.compact(["b"])
    assert running.path is not None and running.path.read_text() == "+b\n"
    running.close(episodes_open=True)
    assert EpisodeJournal(tmp_path).open() == ["b"]  # its host is gone: what it had open is lost
    starting.close(episodes_open=False)  # nothing open: nothing for the next host to report
    assert starting.path is not None and not starting.path.exists()
