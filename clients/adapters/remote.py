"""A running ``scaleenv serve`` seen from another framework: the control API and MCP, over httpx only.

The adapters run inside other frameworks' virtual environments, where this project is not
installed and whose ``mcp`` versions differ from ours (verifiers pins 2.0.0, langchain's
adapters below 2), so this module speaks MCP itself: plain JSON-RPC over streamable HTTP in the
handshake era (``initialize`` once per episode, then requests on that session), which every
server era accepts. It must import nothing but the standard library and httpx.

Every request has a connect timeout and a total timeout: a host that is down or hangs is a
``HostUnreachableError`` naming the URL, never a hang (tests/integration/test_adapters.py).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

__all__ = ["CALL_ID_META_KEY", "HostError", "HostUnreachableError", "RemoteEpisode", "ScaleEnvRemote", "ToolResult",
           "task_prompt"]

CALL_ID_META_KEY = "scaleenv/call_id"
PROTOCOL_VERSION = "2025-11-25"
_MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class HostError(RuntimeError):
    """The host answered with an error (the control API's ``{"error": {"code", "message"}}`` or JSON-RPC's)."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


class HostUnreachableError(HostError):
    """Nothing answers at the host's URL, or it did not answer in time."""


@dataclass(frozen=True)
class RemoteEpisode:
    id: str
    domain: str
    task_id: str | None
    agent_url: str


@dataclass(frozen=True)
class ToolResult:
    text: str
    is_error: bool
    structured: dict[str, Any] | None = None


@dataclass
class _Session:
    id: str | None
    ids: itertools.count = field(default_factory=lambda: itertools.count(2))


def task_prompt(task: dict[str, Any]) -> str:
    """The user's side of a task as one message: the opening, then every fact the user would give
    when asked (a single-turn stand-in for the simulated user of ``scaleenv eval``)."""
    facts = {**task.get("known", {}), **task.get("withheld", {})}
    lines = [task["opening"]]
    if facts:
        lines.append("Details you may need: " + "; ".join(f"{k}: {v}" for k, v in facts.items()) + ".")
    return "\n".join(lines)


class ScaleEnvRemote:
    """Async client of one host: ``url`` is the agent listener, ``control_url`` the control API.

    Args:
        token / token_file: the control API's bearer token (``scaleenv serve`` writes the file).
        timeout: seconds a request may take in all; connect_timeout: seconds to reach the host.
    """

    def __init__(self, url: str, control_url: str, token: str | None = None, *, token_file: str | Path | None = None,
                 timeout: float = 60.0, connect_timeout: float = 5.0) -> None:
        if token is None:
            if token_file is None:
                raise ValueError("give the control token or token_file")
            token = Path(token_file).expanduser().read_text().strip()  # docs write ~/.scaleenv/control-token
        self.url = url.rstrip("/")
        self.control_url = control_url.rstrip("/")
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(timeout, connect=connect_timeout))
        self._auth = {"Authorization": f"Bearer {token}"}
        self._sessions: dict[str, _Session] = {}

    async def __aenter__(self) -> ScaleEnvRemote:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            return await self._http.request(method, url, **kwargs)
        except httpx.TimeoutException:
            raise HostUnreachableError(f"the scaleenv host at {url} did not answer in time") from None
        except httpx.TransportError as error:
            raise HostUnreachableError(f"no scaleenv host answers at {url} ({type(error).__name__}); is "
                                       "`scaleenv serve` running there?") from None

    async def _control(self, method: str, path: str, body: Any = None, params: dict[str, str] | None = None) -> Any:
        response = await self._request(method, self.control_url + path, json=body, params=params, headers=self._auth)
        if response.status_code >= 400:
            try:
                error = response.json()["error"]
                raise HostError(f"control API {method} {path}: {error['message']}", error["code"])
            except (ValueError, KeyError, TypeError):
                raise HostError(f"control API {method} {path} answered {response.status_code}") from None
        return response.json() if response.content else None

    # -- control API ------------------------------------------------------------------------
    async def domains(self) -> list[dict[str, Any]]:
        return (await self._control("GET", "/domains"))["domains"]

    async def tasks(self, domain: str, split: str | None = None) -> list[dict[str, Any]]:
        """The domain's tasks: id, opening, known and withheld facts, reference actions, communicate."""
        params = {"split": split} if split else None
        return (await self._control("GET", f"/domains/{quote(domain, safe='')}/tasks", params=params))["tasks"]

    async def create_episode(self, domain: str, task_id: str | None = None) -> RemoteEpisode:
        [info] = (await self._control("POST", "/episodes", {"domain": domain, "task_id": task_id}))["episodes"]
        # The host names itself by its bind address; reach it where we reached the agent listener.
        agent_url = self.url + urlsplit(info["agent_url"]).path
        return RemoteEpisode(info["id"], info["domain"], info["task_id"], agent_url)

    async def reward(self, episode: RemoteEpisode, messages: list[str] | None = None) -> dict[str, Any]:
        """The reward report: ``reward`` (1.0 or 0.0), ``mismatches``, ``table_match``..."""
        return await self._control("POST", f"/episodes/{episode.id}/reward", {"messages": messages or []})

    async def close(self, episode: RemoteEpisode) -> None:
        self._sessions.pop(episode.agent_url, None)
        await self._control("DELETE", f"/episodes/{episode.id}")

    # -- MCP --------------------------------------------------------------------------------
    async def _rpc(self, url: str, method: str, params: dict[str, Any]) -> Any:
        session = self._sessions.get(url) or await self._initialize(url)
        headers = {**_MCP_HEADERS, "Mcp-Session-Id": session.id or "", "Mcp-Protocol-Version": PROTOCOL_VERSION}
        message = {"jsonrpc": "2.0", "id": next(session.ids), "method": method, "params": params}
        return _result(await self._request("POST", url, json=message, headers=headers), method)

    async def _initialize(self, url: str) -> _Session:
        message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "scaleenv-adapter", "version": "1"}}}
        response = await self._request("POST", url, json=message, headers=_MCP_HEADERS)
        _result(response, "initialize")
        session = _Session(response.headers.get("mcp-session-id"))
        headers = {**_MCP_HEADERS, "Mcp-Session-Id": session.id or "", "Mcp-Protocol-Version": PROTOCOL_VERSION}
        await self._request("POST", url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                            headers=headers)
        self._sessions[url] = session
        return session

    async def list_tools(self, episode: RemoteEpisode) -> list[dict[str, Any]]:
        """MCP tools: ``name``, ``description``, ``inputSchema``..."""
        return (await self._rpc(episode.agent_url, "tools/list", {}))["tools"]

    async def call_tool(self, episode: RemoteEpisode, name: str, arguments: dict[str, Any],
                        call_id: str | None = None) -> ToolResult:
        """One tool call; ``call_id`` makes a retry of it safe (the host runs it once)."""
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if call_id is not None:
            params["_meta"] = {CALL_ID_META_KEY: call_id}
        result = await self._rpc(episode.agent_url, "tools/call", params)
        text = "\n".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")
        return ToolResult(text, bool(result.get("isError")), result.get("structuredContent"))


def _result(response: httpx.Response, method: str) -> Any:
    """The JSON-RPC result of a plain JSON (or single-event SSE) answer; an error becomes HostError."""
    body = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        body = "\n".join(line[5:].strip() for line in body.splitlines() if line.startswith("data:"))
    try:
        message = json.loads(body)
    except ValueError:
        raise HostError(f"MCP {method}: the host answered {response.status_code} without JSON") from None
    if "error" in message:
        error = message["error"]
        data = error.get("data")
        raise HostError(f"MCP {method}: {error.get('message')}", data.get("code", "") if isinstance(data, dict) else "")
    return message.get("result")
