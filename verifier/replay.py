"""Replay a task's actions on a fresh episode over real MCP, and read back the state it reached.

Two transports behind one small interface (``Transport.episode(task_id)`` yields a
``ReplayEpisode``): ``memory`` drives the host in this process through an in-memory MCP
client bound to the episode; ``http`` creates episodes on a control API and talks to their
agent URLs over MCP streamable HTTP, like any agent would. Each session can be reset to the
task's start state, so one episode serves the gold replay and every perturbed replay of a
task. Tool errors are results (``ok=False``); a JSON-RPC error or an unreachable host is a
``HarnessError``: the environment failed, not the task.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import mcp
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import Task, TaskAction
from scaleenv_mcp.errors import EnvironmentFaultError, HarnessError
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.reward import RewardReport, compute_reward

if TYPE_CHECKING:
    from scaleenv_mcp.host.episode_control import EpisodeControl
    from scaleenv_mcp.host.host import Host

__all__ = ["ActionResult", "HttpTransport", "MemoryTransport", "ReplayOutcome", "ReplayEpisode", "Transport",
           "replay_actions"]


class ActionResult(BaseModel):
    tool: str
    ok: bool = Field(description="False when the tool refused the call (an isError result).")
    error: str | None = Field(default=None, description="The isError text, 'code: message'.")
    result: dict[str, Any] | None = None


class ReplayOutcome(BaseModel):
    results: list[ActionResult]
    errors: int = Field(description="Actions the tools refused.")
    fingerprint: str | None = Field(default=None, description="End state (only when asked for).")
    reward: RewardReport | None = Field(default=None, description="None when the replay stopped at a refusal.")


class ReplayEpisode(Protocol):
    async def call(self, tool: str, arguments: dict[str, Any]) -> ActionResult: ...
    async def reset(self) -> None: ...
    async def diff(self) -> StateDiff: ...
    async def fingerprint(self) -> str: ...


class Transport(Protocol):
    name: str

    def episode(self, task_id: str) -> contextlib.AbstractAsyncContextManager[ReplayEpisode]: ...


async def _mcp_call(client: mcp.Client, tool: str, arguments: dict[str, Any]) -> ActionResult:
    try:
        result = await client.call_tool(tool, arguments)
    except MCPError as error:
        raise EnvironmentFaultError(f"{tool}: JSON-RPC error {error}") from None
    if result.is_error:
        text = " ".join(getattr(c, "text", "") for c in result.content)
        return ActionResult(tool=tool, ok=False, error=text[:300])
    return ActionResult(tool=tool, ok=True, result=result.structured_content)


class _Session:
    """Tool calls over MCP; reset, diff and fingerprint through the host's episode API (in process or HTTP)."""

    def __init__(self, control: EpisodeControl, episode_id: str, client: mcp.Client) -> None:
        self.control, self.episode_id, self.client = control, episode_id, client

    async def call(self, tool: str, arguments: dict[str, Any]) -> ActionResult:
        return await _mcp_call(self.client, tool, arguments)

    async def reset(self) -> None:
        await self.control.reset(self.episode_id)

    async def diff(self) -> StateDiff:
        return await self.control.diff(self.episode_id)

    async def fingerprint(self) -> str:
        return await self.control.fingerprint(self.episode_id)


class MemoryTransport:
    """In-process host, in-memory MCP client per episode (fast: what synthesis uses)."""

    name = "memory"

    def __init__(self, host: Host, slug: str) -> None:
        self.host, self.slug = host, slug

    @contextlib.asynccontextmanager
    async def episode(self, task_id: str) -> AsyncIterator[ReplayEpisode]:
        episode = await self.host.create_episode(self.slug, task_id)
        try:
            async with self.host.client(episode.id) as client:
                yield _Session(self.host, episode.id, client)
        finally:
            with contextlib.suppress(HarnessError):
                await self.host.close(episode.id)


class HttpTransport:
    """A host's control API and its agent listener over MCP streamable HTTP."""

    name = "http"

    def __init__(self, slug: str, control_url: str, token: str | None = None, token_file: Path | None = None,
                 agent_url: str | None = None) -> None:
        from scaleenv_mcp.control_client import ControlClient

        self.slug = slug
        self.control = ControlClient(control_url, token, token_file=token_file)
        self.agent_url = agent_url.rstrip("/") if agent_url else None
        self._http: Any = None

    async def aclose(self) -> None:
        await self.control.aclose()
        if self._http is not None:
            await self._http.aclose()

    def _shared_http(self) -> Any:
        # One HTTP client for every MCP connection: building one costs tens of milliseconds.
        if self._http is None:
            import httpx2

            self._http = httpx2.AsyncClient(timeout=httpx2.Timeout(60.0), follow_redirects=True)
        return self._http

    @contextlib.asynccontextmanager
    async def episode(self, task_id: str) -> AsyncIterator[ReplayEpisode]:
        from mcp.client.streamable_http import streamable_http_client

        info = (await self.control.create_episodes(self.slug, task_id))[0]
        url = f"{self.agent_url}/mcp/episodes/{info.id}" if self.agent_url else info.agent_url
        try:
            async with mcp.Client(streamable_http_client(url, http_client=self._shared_http())) as client:
                yield _Session(self.control, info.id, client)
        except Exception as error:
            from scaleenv_mcp.control_client import lost_with_host

            if (lost := await lost_with_host(self.control, info.id)) is not None:
                raise lost from error
            raise
        finally:
            with contextlib.suppress(HarnessError):
                await self.control.close(info.id)


async def replay_actions(session: ReplayEpisode, manifest: DomainManifest, task: Task, actions: list[TaskAction],
                         *, reset: bool = True, fingerprint: bool = False,
                         stop_on_refusal: bool = False) -> ReplayOutcome:
    """Reset, call every action in order, score the end state (and the task's facts) against the gold.

    A refused call does not stop the replay unless ``stop_on_refusal`` (for wrong variants,
    which count as rejected at the first refusal: no need to diff the state then).
    """
    if reset:
        await session.reset()
    results: list[ActionResult] = []
    for action in actions:
        results.append(await session.call(action.tool, action.arguments))
        if stop_on_refusal and not results[-1].ok:
            return ReplayOutcome(results=results, errors=1)
    gold = task.gold.diff if task.gold is not None else StateDiff()
    # The replayed agent tells the task's facts when it made calls to learn them; one that makes
    # no call knows nothing, so an information task's do-nothing replay scores 0.
    told = list(task.communicate) if actions else []
    reward = compute_reward(manifest, gold, await session.diff(), task.communicate, told)
    return ReplayOutcome(results=results, errors=sum(1 for r in results if not r.ok), reward=reward,
                         fingerprint=await session.fingerprint() if fingerprint else None)
