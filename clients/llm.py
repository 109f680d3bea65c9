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
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import openai
from pydantic import BaseModel, Field

from clients.models import InfraError, InfraKind, TokenUsage, ToolCallAction
from clients.response_cache import ResponseCache, request_key

__all__ = ["ChatReply", "LLMClient", "LLMSettings"]

_RETRYABLE = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


class LLMSettings(BaseModel):
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint; the openai default when None.")
    api_key: str | None = Field(default=None, description="API key; OPENAI_API_KEY, or a placeholder for local servers.")
    temperature: float = Field(default=0.0, description="Sampling temperature of every request.")
    max_tokens: int | None = Field(default=None, description="Completion token cap per request.")
    retries: int = Field(default=3, ge=0, description="Retries of a failed request (connection, 429, 5xx).")
    backoff: float = Field(default=1.0, ge=0, description="First retry delay, seconds; doubles each retry.")
    timeout: float = Field(default=120.0, description="Seconds per request.")
    cache_dir: Path | None = Field(default=None, description="On-disk response cache; None disables it.")


class ChatReply(BaseModel):
    content: str | None
    tool_calls: list[ToolCallAction] = Field(default_factory=list)
    message: dict[str, Any] = Field(description="The assistant message, ready to append to the history.")
    usage: TokenUsage


def _tool_calls(raw: list[dict[str, Any]]) -> list[ToolCallAction]:
    calls = []
    for index, call in enumerate(raw):
        function = call.get("function") or {}
        text = function.get("arguments") or "{}"
        try:
            arguments, problem = json.loads(text), None
        except json.JSONDecodeError as exc:
            arguments, problem = {}, f"arguments are not valid JSON ({exc.msg} at column {exc.colno})"
        if not isinstance(arguments, dict):
            arguments, problem = {}, "arguments must be a JSON object"
        calls.append(ToolCallAction(name=str(function.get("name") or ""), arguments=arguments,
                                    call_id=call.get("id") or f"call_{index}", arguments_error=problem))
    return calls


class LLMClient:
    """One shared ``AsyncOpenAI`` (building one costs tens of milliseconds) per model endpoint."""

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        key = settings.api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
        # Retries are ours (below), so that a failure is classified once and counted.
        self._client = openai.AsyncOpenAI(base_url=settings.base_url, api_key=key, max_retries=0,
                                          timeout=settings.timeout)
        self._cache = ResponseCache(settings.cache_dir) if settings.cache_dir else None

    async def aclose(self) -> None:
        await self._client.close()

    async def chat(self, model: str, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                   seed: int | None = None) -> ChatReply:
        """One chat completion (from the cache when this exact request was made before).

        Raises:
            InfraError: kind ``llm`` when the endpoint keeps failing or answers nonsense.
        """
        request: dict[str, Any] = {"model": model, "messages": messages, "temperature": self.settings.temperature}
        if tools:
            request["tools"] = tools
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
        message = stored["message"]
        usage = TokenUsage(prompt=stored["usage"]["prompt"], completion=stored["usage"]["completion"], requests=1,
                           cached=int(cached))
        return ChatReply(content=message.get("content"), tool_calls=_tool_calls(message.get("tool_calls") or []),
                         message=message, usage=usage)

    async def _request(self, request: dict[str, Any]) -> dict[str, Any]:
        delay = self.settings.backoff
        for attempt in range(self.settings.retries + 1):
            try:
                completion = await self._client.chat.completions.create(**request)
                break
            except _RETRYABLE as exc:
                if attempt == self.settings.retries:
                    raise InfraError(InfraKind.llm, f"{request['model']}: {_describe(exc)} "
                                                    f"(after {self.settings.retries} retries)") from None
                await asyncio.sleep(delay)
                delay *= 2
            except openai.OpenAIError as exc:  # 4xx other than 429, bad responses: retrying will not help
                raise InfraError(InfraKind.llm, f"{request['model']}: {_describe(exc)}") from None
        if not completion.choices:
            raise InfraError(InfraKind.llm, f"{request['model']}: response has no choices")
        message = completion.choices[0].message
        assistant: dict[str, Any] = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            assistant["tool_calls"] = [
                {"id": c.id or f"call_{i}", "type": "function",
                 "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for i, c in enumerate(message.tool_calls)]
        usage = completion.usage
        return {"message": assistant, "usage": {"prompt": usage.prompt_tokens if usage else 0,
                                                "completion": usage.completion_tokens if usage else 0}}


def _describe(exc: openai.OpenAIError) -> str:
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}{f' {status}' if status else ''}: {str(exc)[:200]}"
