"""A loopback OpenAI-compatible chat server that plays both the agent and the user, for eval tests.

Real HTTP, real ``openai`` client, no mocks of our code. It reads a scenario (JSON file given
at start) mapping each task's opening message to the task's gold actions:

    {"agent_model": "test-agent", "user_model": "test-user", "delay": 0.0, "profile": "openai",
     "tasks": {"<opening>": {"actions": [{"tool": ..., "arguments": {...}}], "fail": false,
                             "ask_first": true, "ramble": false}}}

As the agent (``agent_model``) it finds the opening in the conversation, optionally asks a
question first, then returns one tool call per request following the gold actions (two in
one reply when ``parallel`` is set), then a final message wrapped around a private
``<think>`` block that says what was done (the user's request) and tells the task's
``communicate`` facts. As the user (``user_model``) it answers questions with a scripted line
and ends with ``###STOP###`` once the agent reports completion. ``fail`` makes every
request of that task answer 500; ``ramble`` makes the agent write to its token limit every time
(a cut tool call, then cut prose, alternately); ``overflow`` makes its first reply a cut tool call
that fills the context, and the profile's context error the answer to every later agent request; ``malformed`` makes its first tool call carry
arguments that are not JSON (vLLM's docs: auto-parsed arguments "may occasionally be malformed").
A profile whose server dies on a called tool's ``maxLength`` (llama.cpp) drops that connection
and every later one (``dead``), as the real server's exit does.
``"usage": false`` drops usage from every reply (only the text can tell a cut reply then). ``profile`` (tests/support_server_profiles.py)
makes the server refuse and answer what that server would (null content, tools without
tool_choice, the way a cut reply is reported). Every request is logged (``requests``), with the
read timeout the client sent along (``timeouts``).

    with serve_llm(scenario_path) as server:
        server.base_url, server.requests
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from scaleenv_mcp.clients.completion import as_clause
from tests.support_server_profiles import PROFILES, ServerProfile, cut_usage

PRIVATE = "PRIVATE-PLAN"
FINAL = f"<think>{PRIVATE}: the goal is met, say so.</think>Done: your request ({{request}}) has been completed."
QUESTION = f"<think>{PRIVATE}: confirm first.</think>Could you confirm the details, please?"


GENERIC = "test-doctor"  # a model name answered for any request, by ``profile`` (scaleenv doctor's probes)
RAMBLE = "Let me think about every possible angle of this request before doing anything at all. "
NO_TOOLS = "I would be glad to help with that, but I have no way to look anything up."


def _completion(model: str, message: dict[str, Any], prompt_tokens: int, finish: str | None = None,
                usage: dict[str, int] | None = None) -> dict[str, Any]:
    finish = finish or ("tool_calls" if message.get("tool_calls") else "stop")
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage or {"prompt_tokens": prompt_tokens, "completion_tokens": 7, "total_tokens": prompt_tokens + 7}}


class ScenarioServer:
    def __init__(self, scenario: dict[str, Any]) -> None:
        self.scenario = scenario
        base = PROFILES[scenario.get("profile", "openai")]  # "profile_changes": fields of it set otherwise
        self.profile = ServerProfile(**{**base.__dict__, **scenario.get("profile_changes", {})})
        self.requests: list[dict[str, Any]] = []
        # (model, the read timeout the openai client sent with the request: its x-stainless-read-timeout header)
        self.timeouts: list[tuple[str, str | None]] = []
        self.base_url = ""
        self.dead = False  # the profile's server died (dies_on_max_length): every connection drops

    def _task(self, messages: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
        for message in messages:
            text = message.get("content") or ""
            if text in self.scenario["tasks"]:
                return text, self.scenario["tasks"][text]
        return None

    def _agent(self, messages: list[dict[str, Any]], opening: str, task: dict[str, Any]) -> dict[str, Any]:
        done = sum(len(m.get("tool_calls") or []) for m in messages if m["role"] == "assistant")
        users = sum(1 for m in messages if m["role"] == "user")
        if task.get("ask_first") and users == 1 and done == 0:
            return {"role": "assistant", "content": QUESTION}
        actions = task["actions"]
        if task.get("malformed") and actions:  # first a call whose arguments are not JSON, then the gold ones
            if done == 0:
                arguments = json.dumps(actions[0]["arguments"]).replace('"', "'")
                return {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_m", "type": "function", "function": {"name": actions[0]["tool"],
                                                                        "arguments": arguments}}]}
            done -= 1
        if done < len(actions):
            batch = actions[done:done + (2 if task.get("parallel") else 1)]
            return {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{done + i}", "type": "function",
                 "function": {"name": a["tool"], "arguments": json.dumps(a["arguments"])}} for i, a in enumerate(batch)]}
        # a real agent says what it did: the scripted user stops only on a statement about the goal
        request = as_clause(opening)
        facts = "".join(f" {fact}" for fact in task.get("communicate", []))
        return {"role": "assistant", "content": FINAL.format(request=request) + facts}

    @staticmethod
    def _user(messages: list[dict[str, Any]]) -> dict[str, Any]:
        last = messages[-1].get("content") or ""
        if "completed" in last:
            return {"role": "assistant", "content": "<think>satisfied</think>###STOP###"}
        return {"role": "assistant", "content": "Yes, those details are right. Please go ahead."}

    async def chat(self, request: Request) -> Any:
        body = await request.json()
        self.requests.append(body)
        self.timeouts.append((body.get("model", ""), request.headers.get("x-stainless-read-timeout")))
        messages = body.get("messages", [])
        if self.dead:
            return _DROP
        if self.scenario.get("delay"):
            await asyncio.sleep(self.scenario["delay"])
        if body["model"] == GENERIC:
            return self._generic(body)
        found = self._task(messages)
        if found is None:
            return JSONResponse({"error": {"message": "unknown scenario"}}, status_code=400)
        opening, task = found
        if task.get("fail"):
            return JSONResponse({"error": {"message": "scripted outage"}}, status_code=500)
        refused = self.profile.refusal(body)
        if refused:
            return JSONResponse({"error": {"message": refused[1]}}, status_code=refused[0])
        prompt = len(json.dumps(messages)) // 4
        is_agent = body["model"] == self.scenario["agent_model"]
        if is_agent and task.get("overflow") and self.profile.context_error:
            if any(m["role"] == "assistant" for m in messages):  # the first reply filled the context
                return JSONResponse({"error": {"message": self.profile.context_error[1]}},
                                    status_code=self.profile.context_error[0])
            message, finish = self._ramble(body, task)
            return self._reply(_completion(body["model"], message, prompt, finish, cut_usage(body, prompt)), body)
        if body["model"] == self.scenario["agent_model"] and task.get("ramble"):
            message, finish = self._ramble(body, task)
            return self._reply(_completion(body["model"], message, prompt, finish, cut_usage(body, prompt)), body)
        if body["model"] == self.scenario["agent_model"] and (task.get("never_calls")
                                                              or not self.profile.shows_tools(body)):
            message = {"role": "assistant", "content": NO_TOOLS}  # the model never saw a tool
        elif body["model"] == self.scenario["agent_model"]:
            message = self._agent(messages, opening, task)
        elif body["model"] == self.scenario["user_model"]:
            message = self._user(messages)
        else:
            return JSONResponse({"error": {"message": f"unknown model {body['model']}"}}, status_code=404)
        return self._reply(_completion(body["model"], message, prompt), body)

    def _reply(self, completion: dict[str, Any], body: dict[str, Any] | None = None) -> Any:
        """The completion, without its usage when the scenario says the server reports none; the
        connection dropped instead when the profile's server dies on it."""
        if body is not None and self.profile.dies_on(body, completion["choices"][0]["message"]):
            self.dead = True
            return _DROP
        if self.scenario.get("usage", True) is False:
            completion = {k: v for k, v in completion.items() if k != "usage"}
        return JSONResponse(completion)

    def _generic(self, body: dict[str, Any]) -> Any:
        """Any request to model ``GENERIC``, as a small model on this profile's server would answer
        (``scaleenv doctor``'s probes): tool calls when it sees tools, JSON when asked, cut at a small cap."""
        refused = self.profile.refusal(body)
        if refused:
            return JSONResponse({"error": {"message": refused[1]}}, status_code=refused[0])
        prompt = len(json.dumps(body["messages"])) // 4
        if (body.get("max_tokens") or 1000) < 16:
            text = "1, 2, 3, 4"
            return JSONResponse(_completion(GENERIC, {"role": "assistant", "content": text}, prompt, "length",
                                            cut_usage(body, prompt)))
        if self.profile.shows_tools(body):
            choice = body.get("tool_choice")
            forced = self.profile.forces_named_tool(body)
            name = choice["function"]["name"] if forced else body["tools"][0]["function"]["name"]
            if not (isinstance(choice, dict) and not forced):  # an ignored forced call: the model chats instead
                arguments = '{"answer": "ok"}' if forced else '{"order_id": "ORD-1"}'
                call = {"id": "call_g", "type": "function", "function": {"name": name, "arguments": arguments}}
                finish = self.profile.forced_call_finish if self.profile.forced(body) else "tool_calls"
                message = {"role": "assistant", "content": None, "tool_calls": [call]}
                if self.profile.dies_on(body, message):
                    self.dead = True
                    return _DROP
                return JSONResponse(_completion(GENERIC, message, prompt, finish))
        asked_json = "JSON" in str(body["messages"][-1].get("content"))
        text = '{"answer": "ok"}' if asked_json else "OK, I can help with that."
        return JSONResponse(_completion(GENERIC, {"role": "assistant", "content": text}, prompt))

    def _ramble(self, body: dict[str, Any], task: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """A reply cut at max_tokens: a tool call whose arguments never close, or prose, alternately."""
        messages = body["messages"]
        turn = sum(1 for m in messages if m["role"] == "assistant")
        if turn % 2 == 0 and task["actions"]:
            name = task["actions"][0]["tool"]
            cut = json.dumps(task["actions"][0]["arguments"])[:-1] + ', "note": "' + RAMBLE * 3
            as_text = self.profile.cut_call_text(body, name, cut)
            if as_text is not None:  # the server's tool parser gave up on the cut call
                return {"role": "assistant", "content": as_text}, "length"
            return {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_r{turn}", "type": "function",
                 "function": {"name": name, "arguments": cut}}]}, self.profile.cut_tool_call_finish
        return {"role": "assistant", "content": RAMBLE * 20}, "length"

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self.chat, methods=["POST"])])


class _Drop:
    """A response that starts and never finishes: uvicorn closes the connection (a server process
    that died mid-request; the client sees a connection error, not a status)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"100")]})
        raise ConnectionAbortedError("the server died building a grammar (scenario)")


_DROP = _Drop()


@contextlib.contextmanager
def serve_llm(scenario_path: Path) -> Iterator[ScenarioServer]:
    """Serve the scenario on 127.0.0.1 (a free port) from a background thread."""
    server = ScenarioServer(json.loads(Path(scenario_path).read_text()))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    runner = uvicorn.Server(uvicorn.Config(server.app(), log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=runner.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not runner.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield server
    finally:
        runner.should_exit = True
        thread.join(timeout=10)
        sock.close()


def write_scenario(path: Path, tasks: list[Any], *, fail: set[str] = frozenset(), ask_first: bool = True,
                   parallel: set[str] = frozenset(), delay: float = 0.0, profile: str = "openai",
                   ramble: set[str] = frozenset(), malformed: set[str] = frozenset(), usage: bool = True,
                   overflow: set[str] = frozenset()) -> Path:
    """A scenario file for ``tasks`` (scaleenv Task objects): each plays its gold actions."""
    scenario = {"agent_model": "test-agent", "user_model": "test-user", "delay": delay, "profile": profile,
                "usage": usage, "tasks": {
        t.user.opening: {"actions": [a.model_dump() for a in t.actions], "fail": t.id in fail, "ask_first": ask_first,
                         "parallel": t.id in parallel, "ramble": t.id in ramble, "malformed": t.id in malformed,
                         "overflow": t.id in overflow,
                         "communicate": list(t.communicate)}
        for t in tasks}}
    path.write_text(json.dumps(scenario, indent=1))
    return path
