"""MCP client helpers shared by the integration tests: one tool call, what a refused connection meets."""

from __future__ import annotations

from typing import Any

import mcp
from mcp.shared.exceptions import MCPError

__all__ = ["call_tool", "refusal"]


async def call_tool(url: str, tool: str, **arguments: Any) -> dict[str, Any]:
    """One tool call over MCP streamable HTTP with the Python SDK; the structured result of a successful call."""
    async with mcp.Client(url) as client:
        result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content


async def refusal(url: str, mode: str) -> MCPError:
    """The JSON-RPC error an MCP client meets on connecting to ``url`` (raised from its task group)."""
    try:
        async with mcp.Client(url, mode=mode) as client:
            await client.list_tools()
    except BaseException as error:  # noqa: BLE001 - unwrapped below
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        assert isinstance(error, MCPError), repr(error)
        return error
    raise AssertionError(f"{url} accepted an MCP client")
