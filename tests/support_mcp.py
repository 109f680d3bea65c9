"""What an MCP client meets on a refused connection, shared by the integration tests."""

from __future__ import annotations

import mcp
from mcp.shared.exceptions import MCPError

__all__ = ["refusal"]


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
