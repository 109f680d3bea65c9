"""A NeMo Gym resources server backed by a running ``scaleenv serve`` (its control API and MCP).

NeMo Gym's agent servers drive a resources server over HTTP: ``POST /seed_session`` with a dataset
row when a rollout starts, ``POST /{tool_name}`` with the arguments of each function call the model
makes, ``POST /verify`` with the row and the model's response to get the reward. Here:

- ``seed_session`` creates an episode of the row's ``task_id`` (per Gym session, by its cookie);
- ``/{tool_name}`` forwards the call to that episode's MCP URL and returns the tool's JSON (a tool
  error comes back as ``{"error": "..."}`` for the model to read);
- ``verify`` reads the reward from the control API (the assistant's messages count for the
  task's communicate facts), closes the episode, and returns it with the mismatches.

``dataset_rows`` builds the JSONL rows (``responses_create_params`` with the user's request and the
domain's tools as function tools). Configure it like any resources server (``scaleenv_url``,
``scaleenv_control_url``, ``scaleenv_token_file``, ``scaleenv_domain``). Imports only nemo-gym and httpx.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from nemo_gym.base_resources_server import (
    BaseResourcesServerConfig,
    BaseSeedSessionRequest,
    BaseSeedSessionResponse,
    BaseVerifyRequest,
    BaseVerifyResponse,
    SimpleResourcesServer,
)
from nemo_gym.server_utils import SESSION_ID_KEY
from pydantic import ConfigDict, Field, PrivateAttr

from scaleenv_mcp.clients.adapters.remote import HostError, RemoteEpisode, ScaleEnvRemote, task_prompt

__all__ = ["ScaleEnvResourcesServer", "ScaleEnvResourcesServerConfig", "ScaleEnvSeedSessionRequest",
           "ScaleEnvVerifyRequest", "ScaleEnvVerifyResponse", "dataset_rows"]


class ScaleEnvResourcesServerConfig(BaseResourcesServerConfig):
    scaleenv_url: str = Field(default="http://127.0.0.1:8765", description="The agent listener of `scaleenv serve`.")
    scaleenv_control_url: str = Field(default="http://127.0.0.1:8766", description="Its control API.")
    scaleenv_token_file: str = Field(description="The control token file `scaleenv serve` wrote.")
    scaleenv_domain: str = Field(description="The scaleenv domain served to this resources server's rollouts.")


class ScaleEnvSeedSessionRequest(BaseSeedSessionRequest):
    model_config = ConfigDict(extra="allow")
    task_id: str


class ScaleEnvSeedSessionResponse(BaseSeedSessionResponse):
    episode_id: str


class ScaleEnvVerifyRequest(BaseVerifyRequest):
    model_config = ConfigDict(extra="allow")
    task_id: str


class ScaleEnvVerifyResponse(BaseVerifyResponse):
    mismatches: list[Any] = Field(default_factory=list, description="Why the state differs from the gold, if it does.")


class ScaleEnvResourcesServer(SimpleResourcesServer):
    config: ScaleEnvResourcesServerConfig
    _episodes: dict[str, RemoteEpisode] = PrivateAttr(default_factory=dict)
    _remote: ScaleEnvRemote | None = PrivateAttr(default=None)

    def remote(self) -> ScaleEnvRemote:
        if self._remote is None:
            self._remote = ScaleEnvRemote(self.config.scaleenv_url, self.config.scaleenv_control_url,
                                          token_file=self.config.scaleenv_token_file)
        return self._remote

    def setup_webserver(self) -> FastAPI:
        app = super().setup_webserver()
        app.post("/{tool_name}")(self.call_tool)  # after /seed_session, /verify...: those match first
        return app

    async def seed_session(self, request: Request, body: ScaleEnvSeedSessionRequest) -> ScaleEnvSeedSessionResponse:
        session = request.session[SESSION_ID_KEY]
        previous = self._episodes.pop(session, None)
        if previous is not None:
            await self.remote().close(previous)
        episode = await self.remote().create_episode(self.config.scaleenv_domain, body.task_id)
        self._episodes[session] = episode
        return ScaleEnvSeedSessionResponse(episode_id=episode.id)

    async def call_tool(self, request: Request, tool_name: str) -> JSONResponse:
        episode = self._episodes.get(request.session[SESSION_ID_KEY])
        if episode is None:
            return JSONResponse({"error": "no episode for this session: POST /seed_session first"}, status_code=400)
        arguments = await request.json() if await request.body() else {}
        try:
            result = await self.remote().call_tool(episode, tool_name, arguments if isinstance(arguments, dict) else {})
        except HostError as error:  # an unknown tool or an episode that ended: the harness's business
            return JSONResponse({"error": str(error)}, status_code=400)
        if result.is_error:
            return JSONResponse({"error": result.text})
        return JSONResponse(result.structured if result.structured is not None else {"text": result.text})

    async def verify(self, request: Request, body: ScaleEnvVerifyRequest) -> ScaleEnvVerifyResponse:
        episode = self._episodes.pop(request.session[SESSION_ID_KEY], None)
        if episode is None:
            raise HostError("no episode for this session: POST /seed_session first")
        report = await self.remote().reward(episode, _assistant_texts(body.response))
        await self.remote().close(episode)
        return ScaleEnvVerifyResponse(**body.model_dump(), reward=report["reward"], mismatches=report["mismatches"])


def _assistant_texts(response: Any) -> list[str]:
    texts = []
    for item in response.output:
        if getattr(item, "type", None) == "message":
            texts += [part.text for part in item.content if getattr(part, "type", None) == "output_text"]
    return texts


async def dataset_rows(remote: ScaleEnvRemote, domain: str, limit: int | None = None) -> list[dict[str, Any]]:
    """NeMo Gym dataset rows for a domain's tasks: the user's request and the tools as function tools."""
    tasks = (await remote.tasks(domain))[:limit]
    if not tasks:
        return []
    probe = await remote.create_episode(domain)  # the tool list is the domain's, whatever the task
    try:
        tools = [{"type": "function", "name": t["name"], "description": t.get("description", ""),
                  "parameters": t.get("inputSchema", {}), "strict": False} for t in await remote.list_tools(probe)]
    finally:
        await remote.close(probe)
    return [{"task_id": task["id"], "responses_create_params": {
        "input": [{"role": "user", "content": task_prompt(task)}], "tools": tools}} for task in tasks]
