"""The generator's LLM client: the only module that imports ``openai``.

Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp, a gateway) must work, and
each behaves differently, so one call here (``complete``) hides: structured output through
``response_format`` json_schema when the endpoint takes it, else plain JSON instructions
(the refusal is remembered per endpoint, in the store too, so a restart does not ask again);
a forced function call when a role asks for ``tool`` mode; replies wrapped in fences or
prose, or missing fields (a repair round-trip quoting the validation error); replies cut
off at max_tokens, told from finish_reason or the token count (continued in plain mode,
retried with twice the budget otherwise); a 5xx to a structured request (llama-cpp-python
answers json_schema with HTTP 500, not 400) tried once in plain mode before it counts
against the budget, with a warning that suggests ``structured = "plain"``; 429/5xx/timeouts
(backoff from the run's shared ``RetryBudget``). Every response is stored
the moment it arrives (``ResponseStore``), keyed by the exact request, before it is parsed:
a killed run never asks again for an answer it had received.

Requests carry a first system line ``ROLE: <role>`` so logs, gateways and the loopback test
server (tests/support_llm_server.py) can tell roles apart without reading prompt prose.
This module never decides what to do with an answer: stages do.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from typing import Any, TypeVar

import openai
from pydantic import BaseModel

from scaleenv_mcp.errors import ScaleEnvError
from scaleenv_mcp.generator.backoff import LLMEndpointError, RetryBudget
from scaleenv_mcp.generator.cassette import Cassette, request_key, request_marker
from scaleenv_mcp.generator.parsing import ParseProblem, parse_reply
from scaleenv_mcp.generator.report import UsageLedger
from scaleenv_mcp.generator.roles import ResolvedRole
from scaleenv_mcp.generator.store import ResponseStore, content_key
from scaleenv_mcp.truncation import is_truncated

__all__ = ["CONTINUE_MARKER", "REPAIR_MARKER", "LLMClient", "LLMOutputError"]

Model = TypeVar("Model", bound=BaseModel)
Message = dict[str, Any]

REPAIR_MARKER = "REPAIR:"
CONTINUE_MARKER = "CONTINUE:"
_PLACEHOLDER_KEY = "not-needed-for-local-endpoints"
_MAX_CONTINUATIONS = 2
_MAX_BUDGET_DOUBLINGS = 2


class LLMOutputError(ScaleEnvError):
    """The model did not produce valid output after the repair round-trips; the stage decides."""

    code = "llm_output"


class _SchemaRefused(Exception):
    """The endpoint answered 400/422 to a request carrying response_format or tools."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _StructuredFailed(Exception):
    """The endpoint answered 5xx to a structured request: maybe the mode, maybe an outage."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _ProbeFailed(Exception):
    """The one plain-mode try after a structured 5xx failed too: the endpoint is failing, not the mode."""


#: Where a structured mode the endpoint refuses (4xx) or fails on (5xx) falls back to, once per call.
_NEXT_MODE = {"tool": "json_schema", "json_schema": "plain"}


def _plain_instructions(schema: dict[str, Any]) -> str:
    return ("\n\nOUTPUT FORMAT: reply with exactly one JSON object and nothing else (no prose, no code fences). "
            "It must validate against this JSON Schema:\n" + json.dumps(schema, sort_keys=True))


class LLMClient:
    """Structured completions by role, stored, retried, repaired and counted.

    Args:
        roles: each role's model, endpoint and limits (``scaleenv_mcp.generator.roles.resolve_roles``).
        store: where every response is kept (the never-lose-work store).
        budget: the run's shared retry budget.
        concurrency: requests in flight at once, over all roles.
        seed: sent as the request ``seed`` (endpoints that honour it reproduce their output).
        max_repairs: repair round-trips per call before ``LLMOutputError``.
        replay: answer from this cassette instead of the endpoint (``--replay``); a request it
            does not hold raises ``CassetteMissError`` (exit 3), naming the request's role and stage.

    Every request carries the headers ``X-ScaleEnv-Role`` and ``X-ScaleEnv-Stage`` (metadata
    for logs, gateways and ``scaleenv relay``; no server needs them).
    """

    def __init__(self, roles: dict[str, ResolvedRole], store: ResponseStore, budget: RetryBudget, *,
                 concurrency: int = 4, seed: int = 0, max_repairs: int = 2,
                 warn: Callable[[str], None] | None = None, replay: Cassette | None = None) -> None:
        self.roles = roles
        self.replay = replay
        self.store = store
        self.budget = budget
        self.seed = seed
        self.max_repairs = max_repairs
        self._gate = asyncio.Semaphore(max(1, concurrency))
        self._clients: dict[tuple[str | None, str], openai.AsyncOpenAI] = {}
        self._plain_endpoints: set[str] = set()
        self._fell_back: dict[tuple[str, str], str] = {}  # (endpoint, structured) -> the mode that then worked
        self._warn = warn or (lambda message: None)
        self.warnings: list[str] = []  # said once each; the report keeps them

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients.clear()

    def _client(self, rs: ResolvedRole) -> openai.AsyncOpenAI:
        key = (rs.base_url, rs.api_key_env)
        if key not in self._clients:
            # Our own retry loop (shared budget, stored responses) replaces the SDK's retries.
            self._clients[key] = openai.AsyncOpenAI(base_url=rs.base_url, api_key=os.environ.get(rs.api_key_env)
                                                    or _PLACEHOLDER_KEY, max_retries=0, timeout=rs.timeout)
        return self._clients[key]

    def _mode(self, rs: ResolvedRole) -> str:
        if rs.structured != "auto":
            return self._fell_back.get(self._endpoint_mode(rs), rs.structured)
        endpoint = rs.base_url or "openai-default"
        if endpoint in self._plain_endpoints or self.store.get("endpoint", content_key(endpoint)):
            self._plain_endpoints.add(endpoint)
            return "plain"
        return "json_schema"

    def _refused(self, rs: ResolvedRole) -> None:
        endpoint = rs.base_url or "openai-default"
        self._plain_endpoints.add(endpoint)
        self.store.put("endpoint", content_key(endpoint), {"endpoint": endpoint, "structured_output": False})

    def warn_once(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)
            self._warn(message)

    async def complete(self, role: str, stage: str, messages: list[Message], output: type[Model],
                       ledger: UsageLedger, context: dict[str, Any] | None = None) -> Model:
        """Ask ``role`` and return its answer as ``output``.

        ``messages`` are the system prompt and the user message(s); the role marker and, in
        plain mode, the schema instructions are added here. ``context`` goes to the output
        model's validators; a validation failure becomes a repair round-trip.

        Raises:
            LLMOutputError: still invalid after ``max_repairs`` repair round-trips.
            RetryBudgetExhaustedError, LLMEndpointError: the endpoint failed (exit code 3).
        """
        rs = self.roles[role]
        schema = output.model_json_schema()
        first = mode = self._mode(rs)
        probing, probe = True, False  # probing: a move to the next mode is tried once, free of the budget
        while True:
            try:
                answer = await self._converse(rs, stage, mode, messages, schema, output, ledger, context,
                                              fallback=probing, probe=probe)
                if mode != first:
                    self._fell_back[self._endpoint_mode(rs)] = mode  # later calls start where this one ended
                if probe and rs.structured == "auto":
                    self._refused(rs)  # plain worked where the structured mode got a 5xx: keep using it
                return answer
            except (_StructuredFailed, _SchemaRefused) as failed:
                refused = isinstance(failed, _SchemaRefused)
                if refused and rs.structured == "auto":
                    self._refused(rs)  # a 400/422 to json_schema: this endpoint has none, for good
                following = _NEXT_MODE[mode]
                self.warn_once(f"{rs.base_url or 'OpenAI'} answered HTTP {failed.status} to structured output "
                               f"({mode}) for role {role}; trying {following} once. If this server cannot do "
                               f"{mode}, set structured = \"{following}\" for it in the roles file")
                ledger.add(stage, role, fallbacks=1)
                mode, probe = following, probing and not (refused and rs.structured == "auto")
            except _ProbeFailed:
                mode, probing, probe = first, False, False  # an outage, not the mode: back to the retry budget

    def _endpoint_mode(self, rs: ResolvedRole) -> tuple[str, str]:
        return rs.base_url or "openai-default", rs.structured

    async def _converse(self, rs: ResolvedRole, stage: str, mode: str, messages: list[Message],
                        schema: dict[str, Any], output: type[Model], ledger: UsageLedger,
                        context: dict[str, Any] | None, *, fallback: bool = False, probe: bool = False) -> Model:
        system = f"ROLE: {rs.role}\n" + messages[0]["content"] + (_plain_instructions(schema) if mode == "plain" else "")
        thread = [{"role": "system", "content": system}, *messages[1:]]  # grows by repair turns only
        conversation, text, max_tokens = list(thread), "", rs.max_tokens
        repairs = continuations = doublings = 0
        while True:
            reply = await self._exchange(rs, stage, mode, conversation, schema, max_tokens, ledger,
                                         fallback=fallback, probe=probe)
            probe = False  # the endpoint answered: later failures spend the budget as usual
            counted = reply["completion_tokens"] if reply.get("usage_reported", True) else None
            truncated = is_truncated(reply["finish_reason"], counted, max_tokens,
                                     reply.get("tool_arguments") or reply["text"])
            if truncated:
                if mode == "plain" and continuations < _MAX_CONTINUATIONS:
                    text += reply["text"]
                    continuations += 1
                    ledger.add(stage, rs.role, continuations=1)
                    conversation = [*thread, {"role": "assistant", "content": text},
                                    {"role": "user", "content": f"{CONTINUE_MARKER} your reply was cut off. Continue "
                                     "exactly where it stopped, without repeating anything and without code fences."}]
                    continue
                if doublings < _MAX_BUDGET_DOUBLINGS:
                    doublings += 1
                    max_tokens *= 2
                    ledger.add(stage, rs.role, continuations=1)
                    conversation, text = list(thread), ""
                    continue
            full = text + reply["text"]
            try:
                return parse_reply(full, output, tool_arguments=reply.get("tool_arguments"), context=context)
            except ParseProblem as problem:
                if truncated:  # a repair would be cut off again
                    raise LLMOutputError(f"role {rs.role} ({rs.model}): the reply was cut off at max_tokens "
                                         f"{max_tokens} (finish_reason {reply['finish_reason']!r}, "
                                         f"{_tokens_said(reply)}) in {mode} mode; raise "
                                         f"max_tokens for this role in the roles file") from None
                if repairs >= self.max_repairs:
                    raise LLMOutputError(f"role {rs.role} ({rs.model}) gave no valid output after {repairs} "
                                         f"repair round-trips: {problem.message}") from None
                repairs += 1
                ledger.add(stage, rs.role, repairs=1)
                thread = [*thread, {"role": "assistant", "content": reply.get("tool_arguments") or full},
                          {"role": "user", "content": f"{REPAIR_MARKER} your previous reply could not be used: "
                           f"{problem.message}\nReply again with the whole corrected JSON object only."}]
                conversation, text = list(thread), ""

    async def _exchange(self, rs: ResolvedRole, stage: str, mode: str, conversation: list[Message],
                        schema: dict[str, Any], max_tokens: int, ledger: UsageLedger, *, fallback: bool = False,
                        probe: bool = False) -> dict[str, Any]:
        """One request: from the store if it was ever answered, else over HTTP (stored at once)."""
        key = content_key("chat/v1", rs.role, rs.model, mode, conversation, None if mode == "plain" else schema,
                          max_tokens, rs.temperature, self.seed)
        stored = self.store.get("llm", key)
        if stored is not None:
            if stored.get("refused"):
                raise _SchemaRefused(int(stored.get("status") or 400))
            ledger.add(stage, rs.role, stored_calls=1, prompt_tokens=stored["prompt_tokens"],
                       completion_tokens=stored["completion_tokens"])
            return stored
        request: dict[str, Any] = {"model": rs.model, "messages": conversation, "temperature": rs.temperature,
                                   "max_tokens": max_tokens, "seed": self.seed, "timeout": rs.timeout}
        if mode == "json_schema":
            request["response_format"] = {"type": "json_schema",
                                          "json_schema": {"name": rs.role, "schema": schema, "strict": False}}
        elif mode == "tool":
            name = f"submit_{rs.role}"
            request["tools"] = [{"type": "function", "function": {"name": name, "parameters": schema,
                                                                  "description": "Submit the answer."}}]
            request["tool_choice"] = {"type": "function", "function": {"name": name}}
        if self.replay is not None:
            entry = self.replay.get(request_key(request))
            if entry is None:
                raise self.replay.miss(rs.role, stage, request_marker(conversation))
            return self._received(entry.record(), key, stage, rs.role, ledger)
        request["extra_headers"] = {"X-ScaleEnv-Role": rs.role, "X-ScaleEnv-Stage": stage}
        async with self._gate:
            response = await self._send(rs, stage, request, mode, ledger, key, fallback=fallback, probe=probe)
        choice = response.choices[0]
        calls = choice.message.tool_calls or []
        usage = response.usage
        record = {"text": choice.message.content or "", "finish_reason": choice.finish_reason or "stop",
                  "tool_arguments": calls[0].function.arguments if calls else None,
                  "prompt_tokens": (usage.prompt_tokens or 0) if usage else 0,
                  "completion_tokens": (usage.completion_tokens or 0) if usage else 0,
                  "usage_reported": usage is not None}
        return self._received(record, key, stage, rs.role, ledger)

    def _received(self, record: dict[str, Any], key: str, stage: str, role: str, ledger: UsageLedger) -> dict[str, Any]:
        self.store.put("llm", key, record)  # before anything else: never ask for this answer again
        ledger.add(stage, role, calls=1, prompt_tokens=record["prompt_tokens"],
                   completion_tokens=record["completion_tokens"])
        return record

    async def _send(self, rs: ResolvedRole, stage: str, request: dict[str, Any], mode: str, ledger: UsageLedger,
                    key: str, *, fallback: bool = False, probe: bool = False) -> Any:
        """The request, retried from the budget; ``fallback``: a structured 5xx raises ``_StructuredFailed``
        at once; ``probe``: any retryable failure raises ``_ProbeFailed`` instead of spending."""
        attempt = 0
        while True:
            try:
                return await self._client(rs).chat.completions.create(**request)
            except (openai.BadRequestError, openai.UnprocessableEntityError) as error:
                if mode != "plain":
                    self.store.put("llm", key, {"refused": True, "status": error.status_code})
                    raise _SchemaRefused(error.status_code) from None
                raise LLMEndpointError(f"{rs.base_url or 'OpenAI'} refused the request for role {rs.role} "
                                       f"(HTTP {error.status_code}): {_brief(error)}") from None
            except openai.APIStatusError as error:
                if fallback and mode != "plain" and error.status_code >= 500:
                    raise _StructuredFailed(error.status_code) from None
                if error.status_code != 429 and error.status_code < 500 and error.status_code != 408:
                    hint = " (is the API key in $" + rs.api_key_env + "?)" if error.status_code in (401, 403) else ""
                    raise LLMEndpointError(f"{rs.base_url or 'OpenAI'} answered HTTP {error.status_code} for model "
                                           f"{rs.model}{hint}: {_brief(error)}") from None
                reason = f"HTTP {error.status_code} from {rs.base_url or 'OpenAI'}"
                retry_after = _retry_after(error)
            except openai.APITimeoutError:
                reason, retry_after = f"no answer within {rs.timeout:g}s from {rs.base_url or 'OpenAI'}", None
            except openai.APIConnectionError as error:
                reason, retry_after = f"cannot reach {rs.base_url or 'OpenAI'}: {error}", None
            if probe:
                raise _ProbeFailed() from None
            await self.budget.spend(attempt, reason, retry_after)  # raises when none is left: not a retry
            ledger.add(stage, rs.role, retries=1)
            attempt += 1


def _tokens_said(reply: dict[str, Any]) -> str:
    if not reply.get("usage_reported", True):
        return "no usage reported: the JSON never closed"
    return f"{reply['completion_tokens']} completion tokens"


def _brief(error: openai.APIStatusError) -> str:
    return str(getattr(error, "message", error))[:300]


def _retry_after(error: openai.APIStatusError) -> float | None:
    try:
        value = error.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, ValueError):
        return None
