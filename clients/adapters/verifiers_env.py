"""A verifiers (0.4, ``verifiers.v1``) taskset over a running ``scaleenv serve``: a domain's tasks,
episodes made through the control API, tools forwarded to the episode's MCP URL, our reward.

    env = load_environment(domain="smart_home", url="http://127.0.0.1:8765",
                           control_url="http://127.0.0.1:8766", token_file="~/.scaleenv/control-token")

verifiers finds a taskset by a plugin id that must be a top-level module name: ``scaleenv_verifiers``
(``TASKSET_ID``), a one-line module in clients/adapters/verifiers_plugin/ (put that folder on
PYTHONPATH for ``vf-eval scaleenv_verifiers --env.taskset.domain ...``; clients/examples/verifiers_eval.py
runs it so), and importing this module registers the name in-process too. verifiers launches the
toolset as ``python -m scaleenv_mcp.clients.adapters.verifiers_env``.

- dataset: the domain's tasks (``GET /domains/{slug}/tasks``), one ``ScaleEnvTask`` each, whose
  prompt is the user's request with the facts they would give when asked (no simulated user);
- rollout setup (``ScaleEnvTask.setup``): a new episode of the task, its MCP URL in the state;
- tools (``ScaleEnvToolset``): the domain's tools, listed from and forwarded to that episode's URL,
  one forwarded request per request the toolset gets (verifiers' harness retries a failed call
  without any id, so a write whose answer was lost on that hop may run twice: docs/integrations.md);
- rubric (``@vf.reward scaleenv``): the host's reward for the episode's state (the agent's messages
  count for the task's communicate facts), read back from the control API; the episode is closed.

Imports only verifiers and httpx (through ``remote``), never this project's host.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.types import content_text

from scaleenv_mcp.clients.adapters.remote import RemoteEpisode, ScaleEnvRemote, ToolResult, task_prompt

__all__ = ["TASKSET_ID", "ScaleEnvTaskset", "forward_call", "list_episode_tools", "load_environment"]

TASKSET_ID = "scaleenv_verifiers"
sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])


class ScaleEnvTaskConfig(vf.TaskConfig):
    url: str = Field(default="http://127.0.0.1:8765", description="The agent listener of `scaleenv serve`.")
    control_url: str = Field(default="http://127.0.0.1:8766", description="Its control API.")
    token_file: str = Field(default="~/.scaleenv/control-token", description="The control token file it wrote.")
    timeout: float = Field(default=60.0, gt=0, description="Seconds per request to the host.")


class ScaleEnvTasksetConfig(vf.TasksetConfig):
    domain: str = Field(default="smart_home", description="A domain's slug, or several separated by commas.")
    per_domain: int | None = Field(default=None, gt=0, description="At most this many tasks of each domain, "
                                   "the first in the host's order (one run over several domains).")
    split: str | None = Field(default=None, description="train or test; every task when unset.")
    task: ScaleEnvTaskConfig = ScaleEnvTaskConfig()
    tools: vf.SharedToolsetConfig = vf.SharedToolsetConfig()


class ScaleEnvState(vf.State):
    """Per-rollout: where the rollout's episode is, shared by the task hooks and the tool server."""

    url: str = ""
    control_url: str = ""
    token: str = ""
    timeout: float = 60.0
    episode_id: str = ""
    agent_url: str = ""
    domain: str = ""


class ScaleEnvData(vf.TaskData):
    task_id: str
    domain: str


def _remote(state: ScaleEnvState) -> ScaleEnvRemote:
    return ScaleEnvRemote(state.url, state.control_url, state.token, timeout=state.timeout)


def _episode(state: ScaleEnvState) -> RemoteEpisode:
    if not state.agent_url:
        raise RuntimeError("no scaleenv episode in this rollout's state: the task's setup did not run")
    return RemoteEpisode(state.episode_id, state.domain, None, state.agent_url)


async def list_episode_tools(state: ScaleEnvState) -> list[dict[str, Any]]:
    """The MCP tools of the rollout's episode (name, description, inputSchema)."""
    async with _remote(state) as remote:
        return await remote.list_tools(_episode(state))


async def forward_call(state: ScaleEnvState, name: str, arguments: dict[str, Any]) -> ToolResult:
    """One tool call on the rollout's episode."""
    async with _remote(state) as remote:
        return await remote.call_tool(_episode(state), name, arguments)


class ScaleEnvToolset(vf.Toolset[vf.SharedToolsetConfig, ScaleEnvState]):
    """The episode's tools, unprefixed, served through verifiers' MCP boundary."""

    TOOL_PREFIX = None

    def register(self, mcp: Any) -> None:
        # The catalog is the episode's, found per rollout: replace the server's handlers, as
        # verifiers' own NeMo Gym toolset does, instead of registering static tools.
        mcp.list_tools = self._with_state(self.list_tools)
        mcp.call_tool = self._with_state(self.call_tool)

    async def list_tools(self) -> list[Any]:
        from mcp.types import Tool

        return [Tool(name=t["name"], description=t.get("description"), inputSchema=t.get("inputSchema", {}))
                for t in await list_episode_tools(self.state)]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        from mcp.types import CallToolResult, TextContent

        result = await forward_call(self.state, name, arguments)
        return CallToolResult(content=[TextContent(type="text", text=result.text)], isError=result.is_error,
                              structuredContent=result.structured)


class ScaleEnvTask(vf.Task[ScaleEnvData, ScaleEnvState, ScaleEnvTaskConfig]):
    @property
    def key(self) -> str:
        return f"{self.data.domain}/{self.data.task_id}"

    async def setup(self, trace: vf.Trace, runtime: Any) -> None:
        state = trace.state
        state.url, state.control_url = self.config.url, self.config.control_url
        state.token = _token(self.config.token_file)
        state.timeout, state.domain = self.config.timeout, self.data.domain
        async with _remote(state) as remote:
            episode = await remote.create_episode(self.data.domain, self.data.task_id)
        state.episode_id, state.agent_url = episode.id, episode.agent_url

    @vf.reward(weight=1.0)
    async def scaleenv(self, trace: vf.Trace) -> float:
        """The host's reward: 1.0 when the episode's state matches the task's gold, else 0.0."""
        state = trace.state
        told = [content_text(m.content) for m in trace.assistant_messages]
        told += [trace.root_reply] if trace.root_reply else []
        async with _remote(state) as remote:
            report = await remote.reward(_episode(state), told)
            await remote.close(_episode(state))
        trace.info["scaleenv"] = {"mismatches": report["mismatches"][:20], "table_match": report.get("table_match")}
        return float(report["reward"])


class ScaleEnvTaskset(vf.Taskset[ScaleEnvTask, ScaleEnvTasksetConfig]):
    @classmethod
    def toolsets(cls, config: ScaleEnvTasksetConfig) -> list[vf.Toolset]:
        return [ScaleEnvToolset(config.tools)]

    def load(self) -> Iterator[ScaleEnvTask]:
        task = self.config.task
        remote = ScaleEnvRemote(task.url, task.control_url, _token(task.token_file), timeout=task.timeout)
        slugs, split, limit = self.config.domain.split(","), self.config.split, self.config.per_domain

        async def cards() -> list[dict[str, Any]]:
            return [card for slug in slugs for card in (await remote.tasks(slug.strip(), split))[:limit]]

        for card in _run(cards(), remote):
            yield ScaleEnvTask(ScaleEnvData(id=card["id"], name=card["id"], prompt=task_prompt(card),
                                            task_id=card["id"], domain=card["domain"]), task)


def _token(path: str) -> str:
    from pathlib import Path

    return Path(path).expanduser().read_text().strip()


def _run(coroutine: Any, remote: ScaleEnvRemote) -> Any:
    """``load()`` is synchronous and may be called inside verifiers' event loop: run in a thread."""
    async def once() -> Any:
        try:
            return await coroutine
        finally:
            await remote.aclose()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(once())
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, once()).result()


def load_environment(domain: str = "smart_home", url: str = "http://127.0.0.1:8765",
                     control_url: str = "http://127.0.0.1:8766", token_file: str = "~/.scaleenv/control-token",
                     split: str | None = None, timeout: float = 60.0, **env: Any) -> vf.Env:
    """A verifiers env over ``domain`` (one slug, or several separated by commas) of the host at
    ``url``/``control_url`` (extra keywords: EnvConfig fields)."""
    taskset = ScaleEnvTasksetConfig(id=TASKSET_ID, domain=domain, split=split, task=ScaleEnvTaskConfig(
        url=url, control_url=control_url, token_file=token_file, timeout=timeout))
    return vf.load_environment(vf.SingleAgentEnvConfig(taskset=taskset, **env))



if __name__ == "__main__":  # verifiers launches a toolset as `python -m <its module>`
    ScaleEnvToolset.run()
