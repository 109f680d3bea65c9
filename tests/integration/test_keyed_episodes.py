"""Keyed episodes and idempotent calls over real streamable HTTP, both protocol eras (issue #23).

``/mcp/{domain}/s/{key}`` keeps one episode for every session that names the key (clients that
open a session per call); an expired or closed key says so instead of starting afresh; a call id
in ``_meta`` makes a retried write run once, and its reuse for another call is refused unrun.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import mcp
import pytest
from mcp.shared.exceptions import MCPError

from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.episodes.call_ids import CALL_ID_META_KEY
from scaleenv_mcp.errors import EpisodeExpiredError, EpisodeNotFoundError
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import Listeners, serving
from scaleenv_mcp.settings import HostSettings
from tests.conftest import FIXTURE_DOMAINS
from tests.support_mcp import refusal

pytestmark = pytest.mark.anyio

BORROW = {"member_id": "MEM-00002", "book_id": "BK-00001"}
MODES = ["auto", "legacy"]  # auto picks the stateless 2026-07-28 era on this endpoint


async def _loan(url: str, mode: str, arguments: dict[str, str] = BORROW, call_id: str | None = None) -> str:
    """One call on a fresh client (a session per call, as langchain-mcp-adapters does)."""
    meta = {CALL_ID_META_KEY: call_id} if call_id else None
    async with mcp.Client(url, mode=mode) as client:
        result = await client.call_tool("borrow_book", arguments, meta=meta)
    assert not result.is_error, result.content
    return result.structured_content["loan_id"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_key_keeps_one_episode_across_sessions(host: Host, listeners: Listeners, mode: str):
    url = f"{listeners.agent_url}/mcp/tiny_library/s/run-{mode}"
    assert await _loan(url, mode) == "LN-00008"
    assert await _loan(url, mode) == "LN-00009"  # a new session, the same episode
    assert await _loan(f"{url}-other", mode) == "LN-00008"  # another key: another episode
    keyed = [e for e in host.registry.episodes.values() if e.domain.slug == "tiny_library"]
    assert len(keyed) == 2 and sorted(e.calls for e in keyed) == [1, 2]
    async with ControlClient(listeners.control_url, listeners.token) as control:  # the harness finds it by key
        episode = await control.keyed_episode("tiny_library", f"run-{mode}")
        assert episode.calls == 2 and episode.origin == "interactive"
        assert len((await control.diff(episode.id)).tables["loans"].added) == 2
        with pytest.raises(EpisodeNotFoundError, match="key 'never' has no episode"):
            await control.keyed_episode("tiny_library", "never")


async def test_concurrent_first_uses_of_a_key_share_one_episode(host: Host, listeners: Listeners):
    url = f"{listeners.agent_url}/mcp/tiny_library/s/burst"
    pairs = [("MEM-00001", "BK-00001"), ("MEM-00002", "BK-00001"), ("MEM-00002", "BK-00003")]
    loans = await asyncio.gather(*(_loan(url, "auto", {"member_id": m, "book_id": b}) for m, b in pairs))
    assert sorted(loans) == ["LN-00008", "LN-00009", "LN-00010"] and len(host.registry.episodes) == 1


async def test_a_key_takes_a_task_on_first_use_only(host: Host, listeners: Listeners):
    url = f"{listeners.agent_url}/mcp/tiny_library/s/tasked"
    unknown = await refusal(f"{url}?task=no-such-task", "auto")
    assert unknown.code == -32600 and "has no task 'no-such-task'" in unknown.message
    assert host.registry.episodes == {}
    assert await _loan(url, "auto") == "LN-00008"
    refused = await refusal(f"{url}?task=no-such-task", "legacy")
    assert refused.code == -32600 and "already has an episode of task (the seed)" in refused.message


def _keyed_host(tmp_path: Path, idle: float) -> contextlib.AbstractAsyncContextManager[tuple[Host, Listeners]]:
    @contextlib.asynccontextmanager
    async def running() -> AsyncIterator[tuple[Host, Listeners]]:
        settings = HostSettings(workers=1, call_timeout=3.0, port=0, control_port=0, token_file=tmp_path / "token",
                                key_idle_timeout=idle, max_ended_keys=2)
        async with Host.running(settings, [FIXTURE_DOMAINS]) as host, serving(host) as listeners:
            yield host, listeners
    return running()


@pytest.fixture
async def quick_expiry(tmp_path: Path) -> AsyncIterator[tuple[Host, Listeners]]:
    """Keys expire after 1.5 s unused: long enough for a legacy session's initialize and call on a loaded
    machine (0.5 s was not, in CI), short enough to wait out."""
    async with _keyed_host(tmp_path, 1.5) as running:
        yield running


@pytest.fixture
async def few_ended_keys(tmp_path: Path) -> AsyncIterator[tuple[Host, Listeners]]:
    """Remembers two ended keys; keys never expire during the test."""
    async with _keyed_host(tmp_path, 600.0) as running:
        yield running


@pytest.mark.parametrize("mode", MODES)
async def test_an_expired_key_says_so_and_never_starts_afresh(quick_expiry: tuple[Host, Listeners], mode: str):
    host, listeners = quick_expiry
    url = f"{listeners.agent_url}/mcp/tiny_library/s/short"
    assert await _loan(url, mode) == "LN-00008"
    await asyncio.sleep(2.0)
    for _ in range(2):  # the first use notices the expiry, the next is told from memory
        expired = await refusal(url, mode)
        assert expired.code == -32004 and expired.data == {"code": "episode_expired"}
        assert "key 'short' on tiny_library expired after 1.5 s unused" in expired.message
        assert "new key" in expired.message
    assert host.registry.episodes == {}  # nothing fresh was made for the expired key
    async with ControlClient(listeners.control_url, listeners.token) as control:
        with pytest.raises(EpisodeExpiredError, match="expired after 1.5 s unused"):
            await control.keyed_episode("tiny_library", "short")


async def test_a_delete_without_session_closes_the_key_and_old_keys_are_forgotten_in_order(
        few_ended_keys: tuple[Host, Listeners]):
    host, listeners = few_ended_keys
    base = f"{listeners.agent_url}/mcp/tiny_library/s"
    async with httpx.AsyncClient() as http:
        assert (await http.delete(f"{base}/never-used")).status_code == 400
        for key in ("a", "b", "c"):
            assert await _loan(f"{base}/{key}", "auto") == "LN-00008"
            response = await http.delete(f"{base}/{key}")
            assert response.status_code == 204, response.text
        again = await http.delete(f"{base}/c")
        assert again.status_code == 404 and again.json()["error"]["data"] == {"code": "episode_expired"}
    closed = await refusal(f"{base}/c", "legacy")
    assert "key 'c' on tiny_library was closed" in closed.message
    # max_ended_keys=2: the oldest ended key ("a") is forgotten, so it starts a new episode
    assert await _loan(f"{base}/a", "auto") == "LN-00008"
    assert (await refusal(f"{base}/b", "auto")).data == {"code": "episode_expired"}


@pytest.mark.parametrize("mode", MODES)
async def test_a_repeated_call_id_writes_once(host: Host, listeners: Listeners, mode: str):
    url = f"{listeners.agent_url}/mcp/tiny_library/s/retry-{mode}"
    first = await _loan(url, mode, call_id="c-1")
    assert await _loan(url, mode, call_id="c-1") == first == "LN-00008"  # the retry gets the first answer
    [episode] = host.registry.episodes.values()
    assert len(episode.trace) == 1 and episode.calls == 1
    diff = await host.registry.diff(episode.id)
    assert len(diff.tables["loans"].added) == 1
    assert await _loan(url, mode, call_id="c-2") == "LN-00009"  # a new id is a new call


async def test_concurrent_retries_of_one_call_id_run_it_once(host: Host, listeners: Listeners):
    url = f"{listeners.agent_url}/mcp/tiny_library/s/burst-retry"
    await _loan(url, "auto", call_id="warm-up")  # the episode exists before the burst
    loans = await asyncio.gather(*(_loan(url, "auto", {**BORROW, "book_id": "BK-00003"}, "same") for _ in range(4)))
    assert loans == ["LN-00009"] * 4
    [episode] = host.registry.episodes.values()
    assert [r.tool for r in episode.trace] == ["borrow_book", "borrow_book"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_call_id_reused_for_other_arguments_is_refused_and_writes_nothing(
        host: Host, listeners: Listeners, mode: str):
    url = f"{listeners.agent_url}/mcp/tiny_library/s/reuse-{mode}"
    await _loan(url, mode, call_id="c-1")
    [episode] = host.registry.episodes.values()
    before = await host.registry.fingerprint(episode.id)
    async with mcp.Client(url, mode=mode) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("borrow_book", {**BORROW, "book_id": "BK-00003"}, meta={CALL_ID_META_KEY: "c-1"})
    assert refused.value.code == -32600 and refused.value.data == {"code": "call_id_reused"}
    assert "call id 'c-1' was already used for another call (borrow_book" in refused.value.message
    assert await host.registry.fingerprint(episode.id) == before and len(episode.trace) == 1


async def test_call_ids_work_on_episode_urls_and_reset_forgets_them(host: Host, listeners: Listeners):
    episode = await host.create_episode("tiny_library")
    url = f"{listeners.agent_url}/mcp/episodes/{episode.id}"
    assert await _loan(url, "auto", call_id="x") == await _loan(url, "legacy", call_id="x") == "LN-00008"
    fork = await host.registry.fork(episode.id)
    assert await _loan(f"{listeners.agent_url}/mcp/episodes/{fork.id}", "auto", call_id="x") == "LN-00008"
    await host.registry.reset(episode.id)
    assert await _loan(url, "auto", call_id="x") == "LN-00008" and len(await host.trace(episode.id)) == 1


async def test_keys_count_against_the_interactive_cap(tmp_path: Path):
    settings = HostSettings(workers=1, call_timeout=3.0, port=0, control_port=0, token_file=tmp_path / "token",
                            max_interactive_episodes=1)
    async with Host.running(settings, [FIXTURE_DOMAINS]) as host, serving(host) as listeners:
        base = f"{listeners.agent_url}/mcp/tiny_library/s"
        assert await _loan(f"{base}/first", "auto") == "LN-00008"
        refused = await refusal(f"{base}/second", "auto")
        assert refused.code == -32005 and refused.data == {"code": "capacity"}
        assert "interactive episode cap of 1 reached" in refused.message
        assert await _loan(f"{base}/first", "legacy") == "LN-00009"  # the live key still works
        assert len(host.registry.episodes) == 1
