"""A thin MCP client over raw JSON-RPC: the soak sends malformed messages no SDK client would.

Handshake era (``initialize`` then a session id header), one ``httpx.AsyncClient`` per
session; every answer comes back as ``(HTTP status, parsed JSON or None)`` without
interpretation, because judging the answer is the caller's job.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

__all__ = ["RawMcpSession", "PROTOCOL_VERSION"]

PROTOCOL_VERSION = "2025-11-25"
_ACCEPT = "application/json, text/event-stream"


class RawMcpSession:
    def __init__(self, url: str, client: httpx.AsyncClient) -> None:
        self.url = url
        self.client = client
        self.session_id: str | None = None
        self.next_id = 1

    @classmethod
    async def open(cls, url: str, client: httpx.AsyncClient) -> RawMcpSession:
        session = cls(url, client)
        status, answer = await session.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "scaleenv-soak", "version": "1"}}})
        if status != 200:
            raise RuntimeError(f"initialize failed: {status} {answer}")
        await session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return session

    async def send(self, message: Any, *, raw: bytes | None = None, timeout: float = 60.0) -> tuple[int, Any]:
        """POST one JSON-RPC message (or ``raw`` bytes as they are)."""
        headers = {"accept": _ACCEPT, "content-type": "application/json"}
        if self.session_id:
            headers |= {"mcp-session-id": self.session_id, "mcp-protocol-version": PROTOCOL_VERSION}
        content = raw if raw is not None else json.dumps(message).encode()
        response = await self.client.post(self.url, content=content, headers=headers, timeout=timeout)
        self.session_id = self.session_id or response.headers.get("mcp-session-id")
        try:
            return response.status_code, response.json() if response.content else None
        except ValueError:
            return response.status_code, None

    async def call_tool(self, tool: str, arguments: Any, timeout: float = 60.0) -> tuple[int, Any]:
        self.next_id += 1
        return await self.send({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                                "params": {"name": tool, "arguments": arguments}}, timeout=timeout)

    async def close(self) -> None:
        if self.session_id:
            try:
                await self.client.delete(self.url, headers={"mcp-session-id": self.session_id,
                                                            "mcp-protocol-version": PROTOCOL_VERSION})
            except httpx.HTTPError:
                pass
