"""One episode's MCP connection, owned by one background task.

The MCP client holds anyio cancel scopes that must be exited by the task that entered them,
but a gym user calls ``reset`` and ``step`` from whatever task (or, through the sync API,
thread) it likes. So a private task enters ``mcp.Client(agent_url)`` once and serves calls
from a queue; callers only await futures. This is also the one place MCP failures are
classified: a declared tool error or an unknown tool is the agent's business (an error
observation), anything else the harness failed at is an ``InfraError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import httpx2
import mcp
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from scaleenv_mcp.clients.models import InfraError, InfraKind, ListedTool
from scaleenv_mcp.tls import shared_ssl_context

__all__ = ["McpSession", "ToolOutcome"]

_AGENT_CODES = {"unknown_tool"}  # JSON-RPC errors that are the agent's mistake, not the harness's


class ToolOutcome(BaseModel):
    text: str
    is_error: bool
    structured: dict[str, Any] | None = None


def _classify(exc: BaseException) -> InfraError:
    if isinstance(exc, InfraError):
        return exc
    if isinstance(exc, MCPError):
        code = exc.data.get("code") if isinstance(exc.data, dict) else None
        return InfraError(InfraKind.environment, f"MCP error {exc.code} ({code or 'no code'}): {exc.message}")
    if isinstance(exc, RuntimeError) and "schema" in str(exc).lower():
        return InfraError(InfraKind.environment, f"tool result broke its declared schema: {str(exc)[:200]}")
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _classify(exc.exceptions[0])
    return InfraError(InfraKind.transport, f"{type(exc).__name__}: {str(exc)[:200]}")


class McpSession:
    """``await McpSession.open(url)``, then ``tools``, ``instructions``, ``await call(...)``, ``await close()``."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self.tools: list[ListedTool] = []
        self.instructions = ""
        self._queue: asyncio.Queue[tuple[asyncio.Future[Any], str, dict[str, Any]] | None] = asyncio.Queue()
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner: asyncio.Task[None] | None = None
        self._in_flight: asyncio.Future[Any] | None = None  # the call the client is making now

    @classmethod
    async def open(cls, url: str, timeout: float = 60.0) -> McpSession:
        """Connect and list the tools.

        Raises:
            InfraError: the endpoint is unreachable or refused the episode.
        """
        session = cls(url, timeout)
        session._owner = asyncio.create_task(session._own())
        await session._ready
        return session

    async def _own(self) -> None:
        try:
            # The client the SDK builds for a URL (its timeouts), but with the process's TLS context:
            # building a context per episode cost 35-60 ms of CPU each (scaleenv_mcp/tls.py)
            http = httpx2.AsyncClient(timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
                                      verify=shared_ssl_context())
            async with http, mcp.Client(streamable_http_client(self.url, http_client=http),
                                        read_timeout_seconds=self.timeout) as client:
                self.instructions = client.instructions or ""
                cursor = None
                while True:
                    listing = await client.list_tools(cursor=cursor)
                    self.tools += [ListedTool(name=t.name, description=t.description or "",
                                            input_schema=dict(t.input_schema or {})) for t in listing.tools]
                    cursor = listing.next_cursor
                    if not cursor:
                        break
                self._ready.set_result(None)
                while (item := await self._queue.get()) is not None:
                    future, name, arguments = item
                    self._in_flight = future  # failed with the connection if it breaks (_fail_pending)
                    try:
                        result = await client.call_tool(name, arguments)
                    except Exception as exc:  # noqa: BLE001 - delivered to the caller, classified there
                        if not future.done():
                            future.set_exception(exc)
                        continue
                    if not future.done():
                        future.set_result(result)
        except Exception as exc:  # noqa: BLE001 - the connection itself failed
            error = _classify(exc)
            if not self._ready.done():
                self._ready.set_exception(error)
            self._fail_pending(error)

    def _fail_pending(self, error: InfraError) -> None:
        """Fail the call in flight and the queued ones: a broken connection ends the client's task group
        around the call, whose own error handler never runs (it waited out its timeout before)."""
        if self._in_flight is not None and not self._in_flight.done():
            self._in_flight.set_exception(error)
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item is not None and not item[0].done():
                item[0].set_exception(error)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call a tool of the episode.

        Raises:
            InfraError: transport or environment failure (never for a declared tool error).
        """
        if self._owner is None or self._owner.done():
            raise InfraError(InfraKind.transport, "the MCP connection of this episode is closed")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._queue.put((future, name, arguments))
        try:
            result = await asyncio.wait_for(asyncio.shield(future), self.timeout + 5)
        except MCPError as exc:
            code = exc.data.get("code") if isinstance(exc.data, dict) else None
            if code in _AGENT_CODES:
                return ToolOutcome(text=f"{code}: {exc.message}", is_error=True)
            raise _classify(exc) from None
        except TimeoutError:
            raise InfraError(InfraKind.transport, f"tool call {name!r} got no answer in {self.timeout:.0f} s") from None
        except Exception as exc:  # noqa: BLE001 - one translation point
            raise _classify(exc) from None
        text = "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")
        if result.structured_content is not None and not result.is_error:
            text = json.dumps(result.structured_content, ensure_ascii=False, sort_keys=True)
        return ToolOutcome(text=text, is_error=bool(result.is_error), structured=result.structured_content)

    async def close(self) -> None:
        if self._owner is None:
            return
        if not self._owner.done():
            await self._queue.put(None)
            try:
                await asyncio.wait_for(asyncio.shield(self._owner), 10)
            except (TimeoutError, Exception):  # noqa: BLE001 - closing must not raise
                self._owner.cancel()
                with contextlib.suppress(BaseException):
                    await self._owner
        self._owner = None
