"""Episodes of one domain on the host actors, driven as an in-process ``Host`` drives its own
(``scaleenv tasks synth --ray``).

    async with ClusterEpisodes.opened(cluster, "smart_home") as episodes:
        episode = await episodes.create_episode("smart_home")
        outcome = await episodes.call(episode.id, "find_users", {"text": "Ada"})   # a CallOutcome

Control operations (create, fork, close, diff, fingerprint) go through the router, which places and
routes them. Tool calls go to the owning actor's agent listener over MCP streamable HTTP: one
stateless client per actor on ``/mcp/{domain}``, naming the episode in ``_meta["scaleenv/episode"]``
(``host.http``), so a call costs one HTTP request and no session per episode. Each answer comes back
as the ``CallOutcome`` that ``Host.call`` returns (kind, result, error code and message; the
duration and read and write sets stay in the host's trace), and a JSON-RPC error as the project
error the host raised (``host.errors.from_mcp_error``, beside the mapping it reverses). A fork stays on its
episode's actor: a copy there is cheap, and across actors the episode file would give the same state.

Faults: an actor that dies takes its episodes and staged tasks with it. ``require_hosts`` says so
(an ``EnvironmentFaultError`` naming it), also when Ray has restarted it meanwhile: the caller stops
rather than go on with a run that lost work (docs/cluster.md).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterable
from typing import Any, cast

import mcp
import mcp_types as types
from mcp.shared.exceptions import MCPError

from scaleenv_mcp.cluster.hosts import RayHosts
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.episodes.trace import CallOutcome, OutcomeKind
from scaleenv_mcp.errors import EnvironmentFaultError, ScaleEnvError
from scaleenv_mcp.host.control_models import EpisodeInfo
from scaleenv_mcp.host.errors import from_mcp_error
from scaleenv_mcp.host.server import EPISODE_META_KEY
from scaleenv_mcp.state.diff import StateDiff

__all__ = ["ClusterEpisodes", "call_over_mcp"]

STATELESS = "2026-07-28"  # the MCP protocol era without sessions: every request stands alone
CALL_SECONDS = 120.0  # one tool call's HTTP timeout (the host's own call_timeout ends a runaway tool first)


async def call_over_mcp(client: mcp.Client, episode_id: str, tool: str, arguments: dict[str, Any]) -> CallOutcome:
    """One tool call on ``episode_id`` through ``client`` (a stateless client of an agent listener's
    ``/mcp/{domain}``), read back as the ``CallOutcome`` that ``Host.call`` returns.

    Raises:
        UnknownToolError, EpisodeNotFoundError, LimitExceededError, EnvironmentFaultError...: the error the
            host raised, rebuilt from the JSON-RPC error's code.
    """
    meta = cast(types.RequestParamsMeta, {EPISODE_META_KEY: episode_id})  # an open map (extra_items)
    try:
        result = await client.call_tool(tool, arguments, meta=meta)
    except MCPError as error:
        raise from_mcp_error(error) from None
    return _outcome_of(result)


def _outcome_of(result: types.CallToolResult) -> CallOutcome:
    """The ``CallOutcome`` behind an MCP tool result (``host.server`` writes a success as the worker's
    JSON text, a refusal as ``"{code}: {message}"``)."""
    text = "".join(c.text for c in result.content if isinstance(c, types.TextContent))
    if not result.is_error:
        return CallOutcome.model_construct(kind=OutcomeKind.success, result=json.loads(text), result_json=text,
                                           error_code=None, message=None, duration_ms=0.0, reads=[], writes=[])
    code, separator, message = text.partition(": ")
    if not separator:
        code, message = "", text
    return CallOutcome(kind=OutcomeKind.tool_error, error_code=code or None, message=message)


def _alone(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one error inside ``group`` (through nested groups), or the group when it holds several."""
    inner: BaseException = group
    while isinstance(inner, BaseExceptionGroup) and len(inner.exceptions) == 1:
        inner = inner.exceptions[0]
    return group if isinstance(inner, BaseExceptionGroup) else inner


class ClusterEpisodes:
    """One domain's episodes on a ``RayHosts``: the operations task synthesis drives, as ``Host`` offers them."""

    def __init__(self, cluster: RayHosts, domain: str, clients: list[mcp.Client]) -> None:
        self.cluster = cluster
        self.router = cluster.router
        self.domain = domain
        self._clients = clients
        self._started = [(slot.incarnation, slot.name) for slot in cluster.slots]

    @classmethod
    @contextlib.asynccontextmanager
    async def opened(cls, cluster: RayHosts, domain: str) -> AsyncIterator[ClusterEpisodes]:
        """The episodes of ``domain`` on ``cluster`` for the block, with an MCP client per actor (opened
        and closed in the caller's task, as the MCP client's task scopes want). An error of the block
        leaves it as itself, not wrapped in the exception group of the clients' task groups."""
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        try:
            async with contextlib.AsyncExitStack() as stack:
                http = httpx2.AsyncClient(timeout=httpx2.Timeout(CALL_SECONDS))
                stack.push_async_callback(http.aclose)
                clients = [await stack.enter_async_context(mcp.Client(
                    streamable_http_client(f"{slot.agent_base}/mcp/{domain}", http_client=http), mode=STATELESS))
                    for slot in cluster.slots]
                yield cls(cluster, domain, clients)
        except BaseExceptionGroup as group:
            raise _alone(group) from None

    @property
    def worker_count(self) -> int:
        """Workers over every actor."""
        return self.cluster.workers * len(self.cluster.slots)

    async def create_episode(self, domain: str, task_id: str | None = None) -> EpisodeInfo:
        """A fresh episode on the least-loaded actor, from the seed or from the task ``task_id``."""
        [info] = await self.router.create_episodes(domain, task_id)
        return info

    async def call(self, episode_id: str, tool: str, arguments: dict[str, Any] | None = None) -> CallOutcome:
        """One tool call on the episode's actor, over MCP; as ``Host.call``.

        Raises:
            UnknownToolError, EpisodeNotFoundError (EpisodeLostError: its actor died), LimitExceededError,
            EnvironmentFaultError (a crash in the tool, or the actor unreachable).
        """
        slot = self.router.owner_slot(episode_id)
        try:
            return await call_over_mcp(self._clients[slot], episode_id, tool, arguments or {})
        except ScaleEnvError:
            raise
        except Exception as error:  # the transport: the actor's listener went away
            died = "" if await self.router.check(slot) else " (the actor died)"
            raise EnvironmentFaultError(f"tool call {tool!r} on {self.router.slots[slot].name} failed: "
                                        f"{type(error).__name__}{died}") from None

    async def fork(self, episode_id: str) -> EpisodeInfo:
        """A copy of the episode on its own actor."""
        return await self.router.fork_onto(episode_id, self.router.owner_slot(episode_id))

    async def close(self, episode_id: str) -> None:
        await self.router.close(episode_id)

    async def diff(self, episode_id: str, against: str | None = None) -> StateDiff:
        return await self.router.diff(episode_id, against)

    async def fingerprint(self, episode_id: str) -> str:
        return await self.router.fingerprint(episode_id)

    async def stage_tasks(self, domain: str, tasks: Iterable[Task]) -> None:
        """Make ``tasks`` creatable on every actor (an episode may be placed on any)."""
        await self.cluster.stage_tasks(domain, list(tasks))

    async def unstage_tasks(self, domain: str, task_ids: Iterable[str]) -> None:
        await self.cluster.unstage_tasks(domain, list(task_ids))

    async def require_hosts(self) -> None:
        """Check that every actor is still the one the block began with.

        Raises:
            EnvironmentFaultError: an actor died (or died and was restarted by Ray): its episodes and
                staged tasks are gone, naming it.
        """
        for index, (incarnation, name) in enumerate(self._started):
            if self.router.slots[index].incarnation != incarnation or not await self.router.check(index):
                raise EnvironmentFaultError(f"{name} was lost (the Ray actor died): the episodes and staged tasks "
                                            "it held went with it")
