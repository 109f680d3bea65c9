"""The adapters' own MCP and control-API client (clients/adapters/remote.py) against a real host:
handshake sessions over plain JSON-RPC, call ids, tool errors, host errors with their codes."""

from __future__ import annotations

import pytest

from scaleenv_mcp.clients.adapters.remote import HostError, ScaleEnvRemote
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import Listeners

pytestmark = pytest.mark.anyio

BORROW = {"member_id": "MEM-00002", "book_id": "BK-00001"}


async def test_the_adapters_client_runs_an_episode_over_http(host: Host, listeners: Listeners):
    async with ScaleEnvRemote(listeners.agent_url, listeners.control_url, listeners.token) as remote:
        assert [d["slug"] for d in await remote.domains()] == ["tiny_library"]
        episode = await remote.create_episode("tiny_library")
        assert episode.agent_url == f"{listeners.agent_url}/mcp/episodes/{episode.id}"
        assert {"find_books", "borrow_book"} <= {t["name"] for t in await remote.list_tools(episode)}
        first = await remote.call_tool(episode, "borrow_book", BORROW, call_id="b-1")
        again = await remote.call_tool(episode, "borrow_book", BORROW, call_id="b-1")
        assert first.structured == again.structured and first.structured["loan_id"] == "LN-00008"
        assert len(host.registry.get(episode.id).trace) == 1  # the retry wrote nothing
        with pytest.raises(HostError, match="call id 'b-1' was already used") as reused:
            await remote.call_tool(episode, "borrow_book", {**BORROW, "book_id": "BK-00003"}, call_id="b-1")
        assert reused.value.code == "call_id_reused"
        refused = await remote.call_tool(episode, "get_member", {"member_id": "MEM-09999"})
        assert refused.is_error and refused.text.startswith("not_found") and refused.structured is None
        with pytest.raises(HostError, match="no gold") as no_gold:
            await remote.reward(episode)
        assert no_gold.value.code == "usage"
        await remote.close(episode)
        with pytest.raises(HostError, match="unknown, expired or closed episode"):
            await remote.list_tools(episode)
        with pytest.raises(HostError, match="not served here"):
            await remote.tasks("no_such_domain")
