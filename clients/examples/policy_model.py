"""The oracle and random policies as an OpenAI-compatible model, for frameworks that only drive models.

verifiers runs a model behind its harness; to run our two reference policies through its real
rollout engine, this serves ``POST /v1/chat/completions`` (streamed, as verifiers' chat harness
asks) on loopback. Each request is answered from the conversation alone: the first user message
names the task (it is the task's prompt, ``task_prompt``), the tool results so far say how far
the policy got, and the policy is replayed to that point (both are deterministic), so the server
keeps no state. Standard library and uvicorn only (clients/examples/adapter_cli.py serves it).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Awaitable, Callable
from typing import Any

from scaleenv_mcp.clients.adapters.policies import OraclePolicy, RandomPolicy, Step
from scaleenv_mcp.clients.adapters.remote import task_prompt

__all__ = ["policy_app"]

Asgi = Callable[[dict[str, Any], Callable[[], Awaitable[dict[str, Any]]], Callable[[dict[str, Any]], Awaitable[None]]],
                Awaitable[None]]


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def _next_step(policy: str, task: dict[str, Any], request: dict[str, Any], seed: int) -> Step:
    """Replay the policy over the tool results in the conversation, then take its next step."""
    results = [_json(_text(m.get("content"))) for m in request.get("messages", []) if m.get("role") == "tool"]
    if policy == "oracle":
        chosen: OraclePolicy | RandomPolicy = OraclePolicy(task)
    else:
        tools = [{"name": t["function"]["name"], "inputSchema": t["function"].get("parameters", {})}
                 for t in request.get("tools", []) if t.get("type") == "function"]
        chosen = RandomPolicy(tools, seed + zlib.crc32(task["id"].encode()))
    step = chosen.next(None)
    for result in results:
        step = chosen.next(result)
    return step


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _chunks(step: Step, model: str, turn: int) -> bytes:
    """The answer as server-sent events: the message (or one tool call), the finish reason, the usage."""
    if step.tool is not None:
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [{
            "index": 0, "id": f"call_{turn}", "type": "function",
            "function": {"name": step.tool, "arguments": json.dumps(step.arguments)}}]}
        finish = "tool_calls"
    else:
        delta, finish = {"role": "assistant", "content": step.message}, "stop"
    base = {"id": f"chatcmpl-{turn}", "object": "chat.completion.chunk", "created": 0, "model": model}
    events = [{**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
              {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
              {**base, "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}]
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"


def policy_app(policy: str, tasks: list[dict[str, Any]], seed: int = 0) -> Asgi:
    """An ASGI app answering chat completions as ``policy`` (oracle | random) would, for ``tasks``."""
    by_prompt = {task_prompt(task): task for task in tasks}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(body or b"{}")
        users = [_text(m.get("content")) for m in request.get("messages", []) if m.get("role") == "user"]
        task = next((t for prompt, t in by_prompt.items() if users and prompt in users[0]), None)
        if not scope["path"].endswith("/chat/completions") or task is None:
            answer = json.dumps({"error": {"message": "not a chat completion of a known task"}}).encode()
            await send({"type": "http.response.start", "status": 404,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": answer})
            return
        turn = sum(1 for m in request.get("messages", []) if m.get("role") == "tool")
        step = _next_step(policy, task, request, seed)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        await send({"type": "http.response.body", "body": _chunks(step, request.get("model", policy), turn)})

    return app
