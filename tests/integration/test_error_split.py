"""Agent mistakes are isError tool results naming the argument; -32603 is only for our faults (issue #29, failure 2).

Before: ``find_users {"text": "A" * 60000}`` answered -32603 environment_fault (SQLite: "LIKE
or GLOB pattern too complex") and ``{"offset": 2**63}`` -32603 (OverflowError), so eval
counted the agent's mistakes as infrastructure failures. Over real MCP (in-memory client)
against the shipped project_management package.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import mcp
import pytest
from mcp.shared.exceptions import MCPError

from scaleenv_mcp.domain.schema_limits import DEFAULT_MAX_LENGTH, INT64_MAX
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings

pytestmark = pytest.mark.anyio

DOMAINS = Path(__file__).resolve().parents[2] / "domains"


@pytest.fixture
async def shipped(tmp_path: Path) -> AsyncIterator[Host]:
    settings = HostSettings(workers=1, call_timeout=10.0, port=0, control_port=0, token_file=tmp_path / "token",
                            skip_validation=True)
    async with Host.running(settings, [DOMAINS], ["project_management"]) as host:
        yield host


async def _call(host: Host, arguments: dict) -> mcp.types.CallToolResult:
    episode = await host.create_episode("project_management")
    async with host.client(episode.id) as client:
        return await client.call_tool("find_users", arguments)


@pytest.mark.parametrize(("arguments", "named"), [
    ({"text": "A" * 60000}, "text"),
    ({"text": "A" * (DEFAULT_MAX_LENGTH + 1)}, "text"),
    ({"offset": 9223372036854775808}, "offset"),
    ({"offset": -(2**70)}, "offset"),
    ({"limit": 10**30}, "limit"),
    ({"offset": -0.0}, "offset"),  # JSON Schema calls it an integer; SQLite got a float (found by the soak)
    ({"limit": 5.0}, "limit"),
])
async def test_out_of_bounds_arguments_are_the_agents_error(shipped: Host, arguments: dict, named: str):
    result = await _call(shipped, arguments)
    assert result.is_error
    text = result.content[0].text
    assert text.startswith("invalid_argument:") and f"'{named}'" in text


async def test_bounds_are_in_the_served_schema(shipped: Host):
    episode = await shipped.create_episode("project_management")
    async with shipped.client(episode.id) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    properties = tools["find_users"].input_schema["properties"]
    text = next(b for b in properties["text"]["anyOf"] if b["type"] == "string")
    offset = next(b for b in properties["offset"].get("anyOf", [properties["offset"]]) if b["type"] == "integer")
    assert text["maxLength"] == DEFAULT_MAX_LENGTH and offset["maximum"] == INT64_MAX


async def test_a_long_valid_search_still_runs(shipped: Host):
    result = await _call(shipped, {"text": "é" * DEFAULT_MAX_LENGTH, "offset": INT64_MAX})
    assert not result.is_error and result.structured_content["items"] == []


async def test_environment_faults_stay_faults(shipped: Host):
    """A worker lost mid-call is ours: a JSON-RPC -32603 error of the environment-fault family, not an
    isError result; its code says the worker died under the call (``worker_lost``: a retry is safe)."""
    episode = await shipped.create_episode("project_management")
    async with shipped.client(episode.id) as client:
        shipped.registry.get(episode.id).worker.process.kill()
        with pytest.raises(MCPError) as caught:
            await client.call_tool("find_users", {"text": "a"})
    assert (caught.value.error.code, caught.value.error.data["code"]) == (-32603, "worker_lost")
