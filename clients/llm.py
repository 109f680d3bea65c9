"""The eval clients' one door to an OpenAI-compatible chat endpoint: retries, seeds, cache, usage.

The agent and the simulated user both call ``LLMClient.chat``. It passes the episode's seed
on every request, answers from the on-disk cache when the same request was made before
(exact reruns), counts tokens, and turns every failure that survives the retries into an
``InfraError`` of kind ``llm``: an LLM outage is infrastructure, never a 0 score.

Why not generator/llm.py: that client turns each request into a validated JSON object
(response_format, repair round-trips) under a run-wide retry budget. Evaluation needs free
dialogue with function calling, and retries per request, so that one endpoint failing for
one task is one infrastructure failure instead of spending the whole run's budget. This
wrapper stays small and must not grow prompt logic.

What every common server needs (docs/model-servers.md): ``tool_choice: "auto"`` sent with the
tools (llama-cpp-python only shows the model its tools when tool_choice is set), an assistant
tool-call turn sent back with ``content: ""`` rather than null (a 500 there), a ``max_tokens``
on every request (a model that writes until its context is full would otherwise time out and
be retried behind generations the server never cancels). A reply cut off at max_tokens is the
model's answer, marked ``truncated``: the agent's failed turn, scored, never infrastructure.
A request with tools that the server refuses (5xx, 400, 422) is tried once more with the tool
schemas reduced to a portable subset (scaleenv_mcp.clients.portable_schemas: llama-cpp-python's grammar
converter answers 500 to ``pattern``); when that works the endpoint is remembered as needing
reduced schemas for the rest of the run, and every reply says so (``schema_fallback``).
A server that dies on a schema instead of refusing it leaves nothing to react to: llama-cpp-python
with ``chatml-function-calling`` builds a grammar from the parameters of the tool the model picks,
llama.cpp's parser refuses the nested repetition a ``maxLength`` becomes ("exceeds sane
defaults"), and the server process exits (issue #31's sweep). ``portable_schemas`` (``scaleenv eval
--portable-schemas``) sends the reduced schemas from the first request.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

import openai
from pydantic import BaseModel, Field

from scaleenv_mcp.clients.models import ContextFull, InfraError, InfraKind, TokenUsage, ToolCallAction
from scaleenv_mcp.clients.portable_schemas import portable_tools
from scaleenv_mcp.clients.response_cache import ResponseCache, request_key
from scaleenv_mcp.truncation import is_truncated

__all__ = ["PORTABLE_ASKED", "ChatReply", "LLMClient", "LLMSettings"]

#: ``schema_fallback`` of a run that asked for reduced schemas rather than met a refusal.
PORTABLE_ASKED = "asked for (--portable-schemas)"

_RETRYABLE = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)
# How servers word "the prompt is longer than the context" in a 400: OpenAI, vLLM and llama-cpp-python "This
# model's maximum context length is N tokens", OpenAI's code context_length_exceeded, SGLang "longer than the
# model's context length", llama-server "exceeds the available context size" (docs/model-servers.md)
_CONTEXT_FULL = re.compile(r"maximum context length|context_length_exceeded|context length|context size|"
                           r"context window", re.IGNORECASE)
# What a server answers when it cannot take a tool schema (llama-cpp-python: 500; others 400 or 422).
_SCHEMA_REFUSALS = (openai.InternalServerError, openai.BadRequestError, openai.UnprocessableEntityError)


class LLMSettings(BaseModel):
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint; the openai default when None.")
    api_key: str | None = Field(default=None, description="API key; OPENAI_API_KEY, or a placeholder for local servers.")
    temperature: float = Field(default=0.0, description="Sampling temperature of every request.")
    max_tokens: int | None = Field(default=None, description="Completion token cap per request (None: the server's).")
    retries: int = Field(default=3, ge=0, description="Retries of a failed request (connection, 429, 5xx).")
    backoff: float = Field(default=1.0, ge=0, description="First retry delay, seconds; doubles each retry.")
    timeout: float = Field(default=120.0, description="Seconds per request.")
    cache_dir: Path | None = Field(default=None, description="On-disk response cache; None disables it.")
    portable_schemas: bool = Field(default=False, description="Send tool schemas reduced to the portable subset from "
                                   "the first request (for servers that crash on a schema rather than refuse it).")


class ChatReply(BaseModel):
    content: str | None
    tool_calls: list[ToolCallAction] = Field(default_factory=list)
    message: dict[str, Any] = Field(description="The assistant message, ready to append to the history.")
    usage: TokenUsage
    truncated: bool = Field(default=False, description="Cut off at max_tokens (finish_reason or token count).")
    schema_fallback: str | None = Field(default=None, description="Set when the tools went with reduced schemas: "
                                        "why (the server's refusal of the schemas as served).")


def _tool_calls(raw: list[dict[str, Any]], truncated: bool = False) -> list[ToolCallAction]:
    calls = []
    for index, call in enumerate(raw):
        function = call.get("function") or {}
        text = function.get("arguments") or "{}"
        try:
            arguments, problem = json.loads(text), None
        except json.JSONDecodeError as exc:
            arguments, problem = {}, f"arguments are not valid JSON ({exc.msg} at column {exc.colno})"
            if truncated:
                problem = "the reply was cut off at max_tokens before the arguments were complete"
        if not isinstance(arguments, dict):
            arguments, problem = {}, "arguments must be a JSON object"
        calls.append(ToolCallAction(name=str(function.get("name") or ""), arguments=arguments,
                                    call_id=call.get("id") or f"call_{index}", arguments_error=problem))
    return calls


def _replayable(call: dict[str, Any]) -> dict[str, Any]:
    """A tool call as it can go back in the history: broken arguments (a cut or malformed reply; the
    agent is told so by the tool error) become ``{}``."""
    try:
        whole = isinstance(json.loads(call["function"].get("arguments") or ""), dict)
    except json.JSONDecodeError:
        whole = False
    return call if whole else {**call, "function": {**call["function"], "arguments": "{}"}}


class LLMClient:
    """One shared ``AsyncOpenAI`` (building one costs tens of milliseconds) per model endpoint."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        key = settings.api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
        # Retries are ours (below), so that a failure is classified once and counted.
        self._client = openai.AsyncOpenAI(base_url=settings.base_url, api_key=key, max_retries=0,
                                          timeout=settings.timeout)
        self._cache = ResponseCache(settings.cache_dir) if settings.cache_dir else None
        self._endpoint = _Endpoint()
        if settings.portable_schemas:
            self._endpoint.schema_fallback = PORTABLE_ASKED

    @property
    def schema_fallback(self) -> str | None:
        """Why this endpoint gets reduced tool schemas (the server's first refusal), or None."""
        return self._endpoint.schema_fallback

    def for_role(self, max_tokens: int | None, timeout: float) -> LLMClient:
        """The same endpoint, cache and endpoint knowledge with a role's own limits (the agent writes
        longer than the user)."""
        role = object.__new__(LLMClient)
        role.settings = self.settings.model_copy(update={"max_tokens": max_tokens, "timeout": timeout})
        role._client, role._cache, role._endpoint = self._client, self._cache, self._endpoint
        return role

    async def aclose(self) -> None:
        await self._client.close()

    async def chat(self, model: str, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                   seed: int | None = None) -> ChatReply:
        """One chat completion (from the cache when this exact request was made before).

        Raises:
            InfraError: kind ``llm`` when the endpoint keeps failing or answers nonsense.
        """
        request: dict[str, Any] = {"model": model, "messages": messages, "temperature": self.settings.temperature}
        if tools:  # as sent (reduced when asked), so that a cached reply is to the same schemas
            request["tools"] = portable_tools(tools) if self.settings.portable_schemas else tools
            request["tool_choice"] = "auto"  # the OpenAI default, which some servers only honour when sent
        if seed is not None:
            request["seed"] = seed
        if self.settings.max_tokens is not None:
            request["max_tokens"] = self.settings.max_tokens
        key = request_key(request)
        stored = self._cache.get(key) if self._cache else None
        cached = stored is not None
        if stored is None:
            stored = await self._request(request)
            if self._cache:
                self._cache.put(key, stored)
        fallback = stored.get("schema_fallback")
        if fallback and self._endpoint.schema_fallback is None:
            self._endpoint.schema_fallback = fallback  # learned from the cache: the same endpoint refused
        raw = stored["message"]
        content, calls = raw.get("content"), raw.get("tool_calls") or []
        counted = stored["usage"]["completion"]  # None: the server reported no usage, the text tells
        said = [content or "", *(call["function"].get("arguments") or "" for call in calls)]
        truncated = any(is_truncated(stored.get("finish_reason"), counted, self.settings.max_tokens, text)
                        for text in said)
        # never null content (llama-cpp-python answers 500), never arguments that are not a JSON object
        # (vLLM and SGLang parse the history's tool-call arguments and answer 400 to the whole request)
        message = {**raw, "content": content or ""}
        if calls:
            message["tool_calls"] = [_replayable(call) for call in calls]
        usage = TokenUsage(prompt=stored["usage"]["prompt"], completion=counted or 0, requests=1,
                           cached=int(cached), truncated=int(truncated), reduced_schemas=int(bool(fallback)))
        return ChatReply(content=content, tool_calls=_tool_calls(calls, truncated),
                         message=message, usage=usage, truncated=truncated, schema_fallback=fallback)

    async def _send(self, request: dict[str, Any]) -> Any:
        return await self._client.chat.completions.create(**request, timeout=self.settings.timeout)

    async def _portable_retry(self, request: dict[str, Any], refusal: openai.OpenAIError) -> Any | None:
        """The request once more with reduced tool schemas; its completion, or None when that fails too
        (then the refusal was not about the schemas and the usual retries go on)."""
        try:
            completion = await self._send({**request, "tools": portable_tools(request["tools"])})
        except openai.OpenAIError:
            return None
        if self._endpoint.schema_fallback is None:
            self._endpoint.schema_fallback = _describe(refusal)
        return completion

    async def _request(self, request: dict[str, Any]) -> dict[str, Any]:
        reduced = bool(request.get("tools")) and self._endpoint.schema_fallback is not None
        sent = {**request, "tools": portable_tools(request["tools"])} if reduced else request
        tried = reduced or not request.get("tools")  # the reduced schemas are tried once per request
        delay = self.settings.backoff
        for attempt in range(self.settings.retries + 1):
            try:
                completion = await self._send(sent)
                break
            except openai.OpenAIError as exc:
                if isinstance(exc, openai.BadRequestError) and _CONTEXT_FULL.search(str(exc)):
                    raise ContextFull(InfraKind.llm, f"{request['model']}: {_describe(exc)}") from None
                if not tried and isinstance(exc, _SCHEMA_REFUSALS):
                    tried = True
                    retried = await self._portable_retry(request, exc)
                    if retried is not None:
                        completion, reduced = retried, True
                        break
                if not isinstance(exc, _RETRYABLE):  # 4xx other than 429, bad responses: retrying will not help
                    raise InfraError(InfraKind.llm, f"{request['model']}: {_describe(exc)}") from None
                if attempt == self.settings.retries:
                    raise InfraError(InfraKind.llm, f"{request['model']}: {_describe(exc)} "
                                                    f"(after {self.settings.retries} retries)") from None
                await asyncio.sleep(delay)
                delay *= 2
        if not completion.choices:
            raise InfraError(InfraKind.llm, f"{request['model']}: response has no choices")
        message = completion.choices[0].message
        assistant: dict[str, Any] = {"role": "assistant", "content": message.content or ""}
        if message.tool_calls:
            assistant["tool_calls"] = [
                {"id": c.id or f"call_{i}", "type": "function",
                 "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for i, c in enumerate(message.tool_calls)]
        usage = completion.usage
        stored = {"message": assistant, "finish_reason": completion.choices[0].finish_reason,
                  "usage": {"prompt": usage.prompt_tokens if usage else 0,
                            "completion": usage.completion_tokens if usage else None}}
        if reduced:
            stored["schema_fallback"] = self._endpoint.schema_fallback
        return stored


class _Endpoint:
    """What a run learned about its endpoint, shared by the agent's and the user's clients."""

    def __init__(self) -> None:
        self.schema_fallback: str | None = None


def _describe(exc: openai.OpenAIError) -> str:
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}{f' {status}' if status else ''}: {str(exc)[:200]}"
