"""A low-overhead load generator: raw HTTP/1.1 keep-alive over asyncio streams, prebuilt bytes.

The official Python MCP client spends more CPU per call than the server it measures
(docs/architecture.md), so the benchmark drives servers with pre-serialised JSON-RPC
requests on persistent connections, one handshake-era session per connection.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from urllib.parse import urlparse

__all__ = ["Connection", "open_session"]


@dataclass
class Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    host_header: str
    path: str
    session_id: str | None = None

    def _request(self, body: bytes) -> bytes:
        headers = [f"POST {self.path} HTTP/1.1", f"Host: {self.host_header}", "Content-Type: application/json",
                   "Accept: application/json, text/event-stream", f"Content-Length: {len(body)}"]
        if self.session_id:
            headers += [f"Mcp-Session-Id: {self.session_id}", "Mcp-Protocol-Version: 2025-11-25"]
        return ("\r\n".join(headers) + "\r\n\r\n").encode() + body

    async def exchange(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        self.writer.write(self._request(body))
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        payload = await self.reader.readexactly(length) if length else b""
        return status, headers, payload

    async def call(self, prebuilt: bytes) -> float:
        started = time.perf_counter()
        status, _, payload = await self.exchange(prebuilt)
        if status != 200 or b'"isError":true' in payload or b'"error"' in payload[:200]:
            raise RuntimeError(f"call failed: {status} {payload[:300]!r}")
        return time.perf_counter() - started

    async def close(self) -> None:
        self.writer.close()


async def open_session(url: str) -> Connection:
    parsed = urlparse(url)
    reader, writer = await asyncio.open_connection(parsed.hostname, parsed.port)
    connection = Connection(reader, writer, f"{parsed.hostname}:{parsed.port}", parsed.path)
    init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}).encode()
    status, headers, payload = await connection.exchange(init)
    if status != 200:
        raise RuntimeError(f"initialize failed: {status} {payload[:200]!r}")
    connection.session_id = headers.get("mcp-session-id")
    await connection.exchange(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    return connection


def tool_call_body(tool: str, arguments: dict, request_id: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments}}).encode()
