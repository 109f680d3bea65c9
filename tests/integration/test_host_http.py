"""The agent listener over real streamable HTTP on loopback, with the official Python client."""

from __future__ import annotations

import httpx
import mcp
import pytest
from mcp.shared.exceptions import MCPError

from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import Listeners

pytestmark = pytest.mark.anyio

BORROW = {"member_id": "MEM-00002", "book_id": "BK-00001"}
LEGACY_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def _episode_url(host: Host, listeners: Listeners) -> tuple[str, str]:
    episode = await host.create_episode("tiny_library")
    return episode.id, f"{listeners.agent_url}/mcp/episodes/{episode.id}"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_episode_endpoint_keeps_state_across_reconnects(host: Host, listeners: Listeners, mode: str):
    _, url = await _episode_url(host, listeners)
    async with mcp.Client(url, mode=mode) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"find_books", "borrow_book", "return_book"} <= names
        assert (await client.call_tool("borrow_book", BORROW)).structured_content["loan_id"] == "LN-00008"
    async with mcp.Client(url, mode=mode) as again:  # a new connection, same episode
        assert (await again.call_tool("borrow_book", {**BORROW, "book_id": "BK-00003"})).structured_content["loan_id"] == "LN-00009"


async def test_modern_era_client_is_stateless_and_still_keeps_state(host: Host, listeners: Listeners):
    _, url = await _episode_url(host, listeners)
    async with mcp.Client(url) as client:
        assert client.protocol_version == "2026-07-28"
        first = await client.call_tool("borrow_book", BORROW)
        second = await client.call_tool("borrow_book", BORROW)
    assert (first.structured_content["loan_id"], second.structured_content["loan_id"]) == ("LN-00008", "LN-00009")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_interactive_sessions_each_get_a_private_episode(listeners: Listeners, mode: str):
    url = f"{listeners.agent_url}/mcp/tiny_library"
    async with mcp.Client(url, mode=mode) as a, mcp.Client(url, mode=mode) as b:
        assert a.protocol_version != "2026-07-28"  # the endpoint steers auto clients to a session
        assert (await a.call_tool("borrow_book", BORROW)).structured_content["loan_id"] == "LN-00008"
        assert (await a.call_tool("borrow_book", BORROW)).structured_content["loan_id"] == "LN-00009"
        assert (await b.call_tool("borrow_book", BORROW)).structured_content["loan_id"] == "LN-00008"


async def test_stateless_request_without_episode_says_how_to_get_one(listeners: Listeners):
    async with mcp.Client(f"{listeners.agent_url}/mcp/tiny_library", mode="2026-07-28") as client:
        assert {t.name for t in (await client.list_tools()).tools} >= {"find_books"}
        with pytest.raises(MCPError) as caught:
            await client.call_tool("find_books", {"text": "Dune"})
    assert "POST /episodes" in caught.value.message and "X-ScaleEnv-Episode" in caught.value.message


async def test_stateless_request_may_name_its_episode_in_meta(host: Host, listeners: Listeners):
    episode_id, _ = await _episode_url(host, listeners)
    async with mcp.Client(f"{listeners.agent_url}/mcp/tiny_library", mode="2026-07-28") as client:
        result = await client.call_tool("borrow_book", BORROW, meta={"scaleenv/episode": episode_id})
    assert result.structured_content["loan_id"] == "LN-00008"
    assert len(host.registry.get(episode_id).trace) == 1


async def test_closed_episode_gives_a_clear_error_over_http(host: Host, listeners: Listeners):
    episode_id, url = await _episode_url(host, listeners)
    await host.registry.close(episode_id)
    async with httpx.AsyncClient() as http:
        response = await http.post(url, headers=LEGACY_HEADERS, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert response.status_code == 404
    assert "closed" in response.json()["error"]["message"]


async def _legacy_session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    init = await http.post(url, headers=LEGACY_HEADERS, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert init.status_code == 200
    headers = {**LEGACY_HEADERS, "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    await http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    return headers


@pytest.mark.parametrize("method", ["env/reset", "episodes/snapshot", "scaleenv/reward", "admin/close"])
async def test_non_standard_methods_are_method_not_found(host: Host, listeners: Listeners, method: str):
    _, url = await _episode_url(host, listeners)
    async with httpx.AsyncClient() as http:
        headers = await _legacy_session(http, url)
        response = await http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 2, "method": method, "params": {}})
    assert response.json()["error"]["code"] == -32601


async def test_foreign_host_and_origin_are_refused(host: Host, listeners: Listeners):
    _, url = await _episode_url(host, listeners)
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    async with httpx.AsyncClient() as http:
        bad_origin = await http.post(url, headers={**LEGACY_HEADERS, "Origin": "http://evil.example"}, json=body)
        bad_host = await http.post(url, headers={**LEGACY_HEADERS, "Host": "evil.example"}, json=body)
    assert bad_origin.status_code == 403
    assert bad_host.status_code == 421


async def test_oversized_request_is_refused(host: Host, listeners: Listeners):
    _, url = await _episode_url(host, listeners)
    async with httpx.AsyncClient() as http:
        headers = await _legacy_session(http, url)
        response = await http.post(url, headers=headers, json={
            "jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "find_books", "arguments": {"text": "x" * 2_000_000}}})
    assert response.status_code == 413


async def test_garbage_bodies_do_not_hurt_the_host(host: Host, listeners: Listeners):
    episode_id, url = await _episode_url(host, listeners)
    async with httpx.AsyncClient() as http:
        headers = await _legacy_session(http, url)
        for body in (b"{", b"[]", b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": 3}}', b"\xff\xfe"):
            response = await http.post(url, headers=headers, content=body)
            assert response.status_code < 500
        ok = await http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                                                         "params": {"name": "find_books", "arguments": {"text": "Dune"}}})
    assert ok.status_code == 200 and "BK-00001" in ok.text


async def test_ending_an_interactive_session_closes_its_episode(host: Host, listeners: Listeners):
    async with mcp.Client(f"{listeners.agent_url}/mcp/tiny_library", mode="legacy") as client:
        await client.call_tool("find_books", {"text": "Dune"})
        assert [e.origin.value for e in host.registry.episodes.values()] == ["interactive"]
    assert host.registry.episodes == {}  # the client's DELETE ended the session and its episode
