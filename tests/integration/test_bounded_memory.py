"""Bounded memory (issue #29, failure 3): result size limit, trace summaries, snapshot lifetime, 413 before reading.

Before: a 200 MiB result added about 380 MiB to the host and stayed in the trace; snapshots
lived for the host's life and nothing deleted one; the control API buffered a 300 MiB body
before refusing it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.episodes.trace import SUMMARY_KEY
from scaleenv_mcp.errors import CapacityError, SnapshotNotFoundError, UsageError
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import Listeners, serving
from scaleenv_mcp.settings import HostSettings

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures" / "domains"


@pytest.fixture
async def small(tmp_path: Path) -> AsyncIterator[tuple[Host, Listeners]]:
    settings = HostSettings(workers=1, call_timeout=3.0, port=0, control_port=0, token_file=tmp_path / "token",
                            max_result_bytes=260, trace_result_bytes=120, max_snapshots=3)
    async with Host.running(settings, [FIXTURES]) as host, serving(host) as urls:
        yield host, urls


async def test_a_result_over_the_limit_is_refused_with_result_too_large(small: tuple[Host, Listeners]):
    host, _ = small
    episode = await host.create_episode("tiny_library")
    async with host.client(episode.id) as client:
        result = await client.call_tool("find_books", {"text": ""})  # all three books: about 300 bytes
        assert result.is_error and result.content[0].text.startswith("result_too_large:")
        assert "260-byte limit" in result.content[0].text
        assert not (await client.call_tool("find_books", {"text": "Dune Messiah"})).is_error


async def test_the_trace_keeps_a_bounded_summary_of_a_large_result(small: tuple[Host, Listeners]):
    host, _ = small
    episode = await host.create_episode("tiny_library")
    async with host.client(episode.id) as client:
        full = (await client.call_tool("find_books", {"text": "Dune"})).structured_content  # two books: between 120 and 260 bytes
        small_one = (await client.call_tool("get_member", {"member_id": "MEM-00001"})).structured_content
    large, kept = host.registry.get(episode.id).trace
    assert len(full["items"]) == 2 and large.result == {SUMMARY_KEY: {
        "bytes": large.result[SUMMARY_KEY]["bytes"], "keys": ["items"], "lengths": {"items": 2}}}
    assert large.result[SUMMARY_KEY]["bytes"] > 120
    assert kept.result == small_one


async def test_snapshots_die_with_their_episode_unless_pinned(small: tuple[Host, Listeners]):
    host, urls = small
    async with ControlClient(urls.control_url, urls.token) as control:
        owner, other = await control.create_episodes("tiny_library", count=2)
        loose = await control.snapshot(owner.id)
        pinned = await control.snapshot(owner.id, pinned=True)
        await control.close(owner.id)
        with pytest.raises(UsageError, match="unknown snapshot"):
            await control.restore(other.id, loose)
        await control.restore(other.id, pinned)  # outlives its episode
        await control.delete_snapshot(pinned)
        with pytest.raises(SnapshotNotFoundError):
            await control.delete_snapshot(pinned)
        assert host.registry.snapshots == {}


async def test_the_snapshot_cap_answers_429(small: tuple[Host, Listeners]):
    _, urls = small
    async with ControlClient(urls.control_url, urls.token) as control:
        [episode] = await control.create_episodes("tiny_library")
        for _ in range(3):
            await control.snapshot(episode.id)
        with pytest.raises(CapacityError, match="snapshot cap of 3"):
            await control.snapshot(episode.id)


async def _raw_post(url: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
    """A POST whose Content-Length is whatever the caller says, with only ``body`` sent."""
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    path = "/" + url.removeprefix("http://").partition("/")[2]
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
    writer.write("\r\n".join(lines).encode() + body)
    await writer.drain()
    status = int((await asyncio.wait_for(reader.readline(), 10)).split()[1])
    rest = await asyncio.wait_for(reader.read(65536), 10)
    writer.close()
    return status, rest


@pytest.mark.parametrize("listener", ["control", "agent"])
async def test_a_body_is_refused_by_its_declared_length_before_it_is_read(small: tuple[Host, Listeners],
                                                                          listener: str):
    host, urls = small
    episode = await host.create_episode("tiny_library")
    url: dict[str, Any] = {"control": f"{urls.control_url}/rewards", "agent": f"{urls.agent_url}/mcp/episodes/{episode.id}"}
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {urls.token}",
               "Accept": "application/json, text/event-stream", "Content-Length": str(300 * 1024 * 1024)}
    status, rest = await _raw_post(url[listener], headers)  # 300 MiB declared, nothing sent: answered at once
    assert status == 413 and b"too large" in rest.lower()
