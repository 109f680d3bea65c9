"""An OpenEnv ``Environment`` over a running ``scaleenv serve``: reset creates an episode, tool actions
forward to its MCP URL, a finish action reads the reward from the control API.

    env = ScaleEnvEnvironment(url="http://127.0.0.1:8765", control_url="http://127.0.0.1:8766",
                              token_file="~/.scaleenv/control-token", domain="smart_home")
    observation = env.reset(task_id="smart_home-1-0012")        # the user's request and the tools
    observation = env.step(CallToolAction(tool_name="get_home", arguments={...}))
    observation = env.step(ScaleEnvAction(type="finish", message="Done: ..."))   # done, reward 1.0 or 0.0

Actions: OpenEnv's own ``ListToolsAction`` and ``CallToolAction``, or ``ScaleEnvAction`` (one flat
model with ``type`` list_tools | call_tool | message | finish, which is what ``create_app``
deserialises, so OpenEnv's HTTP/WebSocket server and ``GenericEnvClient`` work unchanged:
``build_app``). Two kinds of user: ``user="facts"`` (the default) puts the request and every fact
the user would give in the first observation, single turn; ``user="scripted"`` gives only the
opening and answers each ``message`` action as ``scaleenv eval --user scripted`` does
(clients/adapters/scripted_user.py): facts when the agent asks for them, and the end of the
episode when the agent reports the goal done, gives up, or ``max_turns`` is spent. The reward is 0
until the episode ends (the user stops, or a finish action), then the host's (state compared with
the task's gold; the agent's messages count for the task's communicate facts).
Imports only openenv-core and httpx (through ``remote``), never this project's host.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, Literal, TypeVar

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.mcp_types import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
    ToolError,
    ToolErrorType,
)
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from scaleenv_mcp.clients.adapters.remote import RemoteEpisode, ScaleEnvRemote, task_prompt
from scaleenv_mcp.clients.adapters.scripted_user import ScriptedReplies, is_stop

__all__ = ["ScaleEnvAction", "ScaleEnvEnvironment", "ScaleEnvObservation", "ScaleEnvState", "build_app"]

T = TypeVar("T")


class ScaleEnvAction(Action):
    type: Literal["list_tools", "call_tool", "message", "finish"] = Field(description="What to do.")
    tool_name: str | None = Field(default=None, description="call_tool: the tool.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="call_tool: its arguments.")
    message: str = Field(default="", description="message, finish: what the agent tells the user.")


class ScaleEnvObservation(Observation):
    domain: str = ""
    task_id: str = ""
    prompt: str = Field(default="", description="What the user says: the request (with every fact, for the facts user), "
                        "or the scripted user's reply to a message.")
    tools: list[Tool] = Field(default_factory=list)
    tool_name: str | None = None
    result: Any = None
    error: ToolError | None = None


class ScaleEnvState(State):
    domain: str = ""
    task_id: str | None = None
    scaleenv_episode: str | None = Field(default=None, description="The host's episode id (control API).")


class _Loop:
    """A private event loop in a thread, so the sync ``reset``/``step`` can use the async client."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="scaleenv-openenv", daemon=True).start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()


class ScaleEnvEnvironment(Environment[Action, Observation, ScaleEnvState]):
    """One episode at a time; every ``reset`` closes the previous episode and creates the next."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each instance has its own episode on the host

    def __init__(self, url: str, control_url: str, token: str | None = None, *, token_file: str | None = None,
                 domain: str = "smart_home", timeout: float = 60.0, user: Literal["facts", "scripted"] = "facts",
                 max_turns: int = 10) -> None:
        super().__init__()
        self.domain = domain
        self._remote_args = dict(url=url, control_url=control_url, token=token, token_file=token_file, timeout=timeout)
        self._remote: ScaleEnvRemote | None = None
        self._loop: _Loop | None = None
        self._episode: RemoteEpisode | None = None
        self._state = ScaleEnvState(domain=domain)
        self._tasks: dict[str, dict[str, Any]] | None = None
        self.user, self.max_turns = user, max_turns
        self._replies: ScriptedReplies | None = None
        self._told: list[str] = []

    # -- sync API: a private loop runs the async one ----------------------------------------
    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> Observation:
        self._loop = self._loop or _Loop()
        return self._loop.run(self.reset_async(seed, episode_id, **kwargs))

    def step(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        self._loop = self._loop or _Loop()
        return self._loop.run(self.step_async(action, timeout_s, **kwargs))

    @property
    def state(self) -> ScaleEnvState:
        return self._state

    def close(self) -> None:
        if self._loop is not None:
            self._loop.run(self.aclose())
            self._loop.loop.call_soon_threadsafe(self._loop.loop.stop)

    # -- async API ----------------------------------------------------------------------------
    def _client(self) -> ScaleEnvRemote:
        if self._remote is None:
            self._remote = ScaleEnvRemote(**self._remote_args)
        return self._remote

    async def tasks(self) -> dict[str, dict[str, Any]]:
        """The domain's tasks by id (from the control API, read once)."""
        if self._tasks is None:
            self._tasks = {t["id"]: t for t in await self._client().tasks(self.domain)}
        return self._tasks

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> Observation:
        """A new episode of ``task_id`` (a keyword), else of the task ``seed`` picks."""
        await self._close_episode()
        tasks = await self.tasks()
        task_id = kwargs.get("task_id") or sorted(tasks)[(seed or 0) % len(tasks)]
        if task_id not in tasks:
            raise ValueError(f"domain {self.domain} has no task {task_id!r}")
        self._episode = await self._client().create_episode(self.domain, task_id)
        self._state = ScaleEnvState(domain=self.domain, task_id=task_id, scaleenv_episode=self._episode.id,
                                    episode_id=episode_id or self._episode.id, step_count=0)
        tools = [Tool(name=t["name"], description=t.get("description", ""), input_schema=t.get("inputSchema", {}))
                 for t in await self._client().list_tools(self._episode)]
        task = tasks[task_id]
        self._told = []
        self._replies = ScriptedReplies(task, self.max_turns) if self.user == "scripted" else None
        prompt = task["opening"] if self._replies else task_prompt(task)
        return ScaleEnvObservation(domain=self.domain, task_id=task_id, prompt=prompt, tools=tools)

    async def step_async(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        if self._episode is None:
            raise RuntimeError("call reset() before step()")
        self._state.step_count += 1
        kind, name, arguments, message = _unpack(action)
        remote = self._client()
        if kind == "list_tools":
            tools = await remote.list_tools(self._episode)
            return ListToolsObservation(tools=[Tool(name=t["name"], description=t.get("description", ""),
                                                    input_schema=t.get("inputSchema", {})) for t in tools])
        if kind == "call_tool":
            result = await remote.call_tool(self._episode, name or "", arguments)
            error = ToolError(error_type=ToolErrorType.EXECUTION_ERROR, message=result.text) if result.is_error else None
            return CallToolObservation(tool_name=name or "", result=result.structured or result.text, error=error)
        self._told += [message] if message else []
        if kind == "message":
            if self._replies is None:
                raise ValueError("message actions need the scripted user: ScaleEnvEnvironment(user='scripted')")
            reply = self._replies.reply(message)
            if not is_stop(reply):
                return ScaleEnvObservation(domain=self.domain, task_id=self._state.task_id or "", prompt=reply)
        report = await remote.reward(self._episode, self._told)
        await self._close_episode()
        return ScaleEnvObservation(domain=self.domain, task_id=self._state.task_id or "", done=True,
                                   reward=report["reward"], metadata={"reward": report})

    async def _close_episode(self) -> None:
        if self._episode is not None:
            episode, self._episode = self._episode, None
            await self._client().close(episode)

    async def aclose(self) -> None:
        await self._close_episode()
        if self._remote is not None:
            await self._remote.aclose()


def _unpack(action: Action) -> tuple[str, str | None, dict[str, Any], str]:
    if isinstance(action, CallToolAction):
        return "call_tool", action.tool_name, dict(action.arguments), ""
    if isinstance(action, ListToolsAction):
        return "list_tools", None, {}, ""
    if isinstance(action, ScaleEnvAction):
        return action.type, action.tool_name, dict(action.arguments), action.message
    raise ValueError(f"unsupported action {type(action).__name__}: use ScaleEnvAction, CallToolAction or ListToolsAction")


def build_app(**environment: Any) -> Any:
    """OpenEnv's FastAPI app (HTTP and WebSocket) serving a ``ScaleEnvEnvironment`` per session."""
    from openenv.core.env_server.http_server import create_fastapi_app

    return create_fastapi_app(lambda: ScaleEnvEnvironment(**environment), ScaleEnvAction, ScaleEnvObservation,
                              max_concurrent_envs=64)
