"""Boundary models of the eval clients: actions, observations, trace events, episode records.

Everything that crosses a module boundary or lands on disk (``episodes.jsonl``,
``traces.jsonl``, ``results.json``) is one of these models, so the files are the spec and a
Python caller gets the same objects the CLI writes. This module must not do any work.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from scaleenv_mcp.errors import HarnessError

__all__ = [
    "Action", "ContextFull", "EndReason", "EpisodeRecord", "EpisodeStatus", "EpisodeTrace", "InfraError", "InfraKind", "InfraRecord",
    "ListedTool", "MessageAction", "Observation", "ResetResult", "StepInfo", "StepResult", "TokenUsage", "ToolCallAction",
    "TraceEvent",
]


class InfraKind(str, Enum):
    """Why an episode could not be scored: never the agent's fault, so never scored 0."""

    llm = "llm"  # the agent's or the user's LLM endpoint failed (after retries)
    transport = "transport"  # MCP or control API unreachable, connection dropped
    environment = "environment"  # a tool crashed, timed out or broke its schema; the host refused
    host_lost = "host_lost"  # the episode's host died under it (a host actor, or its node, left: docs/cluster.md)


class InfraError(HarnessError):
    """An infrastructure failure during an episode; the runner records it apart from scores."""

    code = "infra_failure"

    def __init__(self, kind: InfraKind, message: str) -> None:
        super().__init__(f"{kind.value}: {message}")
        self.kind = kind
        self.detail = message


class ContextFull(InfraError):
    """The server refused a request as longer than the model's context (HTTP 400 "maximum context length").

    From the agent's own conversation it is the model's end, not infrastructure: its replies (a
    server that ignores max_tokens lets one run to the end of the context: llama-cpp-python's
    chatml-function-calling with tool_choice auto) filled the context, so the runner ends the
    episode there and scores it (``EndReason.context_full``). Anywhere else (the simulated user's
    requests) it stays an infrastructure failure, as its base class says."""


class EndReason(str, Enum):
    user_stop = "user_stop"  # the simulated user said ###STOP###: the only way a dialogue ends by itself
    turn_budget = "turn_budget"  # the agent used its last message
    call_budget = "call_budget"  # the agent asked for one tool call too many
    context_full = "context_full"  # the agent's conversation outgrew its model's context (the server said so)


class EpisodeStatus(str, Enum):
    completed = "completed"  # ran to an end and was scored
    infra_failure = "infra_failure"  # counted apart; retried by --resume


class ListedTool(BaseModel):
    """A tool as the episode's MCP endpoint lists it to an agent (not the manifest's ``ToolSpec``)."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ToolCallAction(BaseModel):
    kind: Literal["tool_call"] = "tool_call"
    name: str = Field(description="Tool name, as listed by the episode's MCP endpoint.")
    arguments: dict[str, Any] = Field(default_factory=dict)
    call_id: str | None = Field(default=None, description="The agent's id for this call (OpenAI tool_call_id).")
    arguments_error: str | None = Field(
        default=None, description="Set when the model's arguments were not a JSON object; the env answers with an error.")


class MessageAction(BaseModel):
    kind: Literal["message"] = "message"
    text: str = Field(description="What the agent says to the user (private reasoning is stripped before the user sees it).")


Action = Annotated[ToolCallAction | MessageAction, Field(discriminator="kind")]


class Observation(BaseModel):
    kind: Literal["user_message", "tool_result"]
    text: str = Field(description="The user's message, or the tool result as text (JSON on success).")
    call_id: str | None = None
    tool: str | None = None
    is_error: bool = False
    structured: dict[str, Any] | None = None


class ResetResult(BaseModel):
    episode_id: str
    observation: Observation = Field(description="The user's opening message.")
    tools: list[ListedTool]
    instructions: str = Field(default="", description="The MCP instructions: domain, today's date, policy.")


class StepInfo(BaseModel):
    turns: int = Field(description="Messages the agent has sent to the user.")
    calls: int = Field(description="Tool calls the agent has made.")
    end_reason: EndReason | None = None
    table_match: dict[str, float] = Field(default_factory=dict)
    mismatches: list[str] = Field(default_factory=list, description="Readable reward mismatches (at most 20).")


class StepResult(BaseModel):
    observation: Observation | None = Field(description="What the agent sees next; None when done.")
    reward: float = Field(description="0 until done; then the reward from the control API.")
    done: bool
    info: StepInfo


class TraceEvent(BaseModel):
    kind: Literal["user", "agent", "tool_call"]
    at_ms: float = Field(description="Milliseconds since the episode started.")
    duration_ms: float = Field(default=0.0, description="How long the env took: the tool call, or the user's reply.")
    agent_ms: float | None = Field(default=None, description="How long the agent took to choose this action "
                                                             "(its LLM latency), for agent messages and tool calls.")
    text: str | None = Field(default=None, description="Message text; for agent messages, as the user saw it.")
    raw_text: str | None = Field(default=None, description="Agent message before private reasoning was stripped.")
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    call_id: str | None = None
    result: str | None = None
    is_error: bool = False
    executed: bool = Field(default=False, description="The call reached the environment (replayed by --regrade).")


class TokenUsage(BaseModel):
    prompt: int = 0
    completion: int = 0
    requests: int = Field(default=0, description="LLM requests made (including those served from the cache).")
    cached: int = Field(default=0, description="Requests answered from the on-disk cache.")
    truncated: int = Field(default=0, description="Replies cut off at max_tokens (the model's failed turn, scored).")
    reduced_schemas: int = Field(default=0, description="Requests whose tool schemas went reduced to a portable "
                                 "subset, because the server refused them as served (scaleenv_mcp.clients.portable_schemas).")

    def add(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(prompt=self.prompt + other.prompt, completion=self.completion + other.completion,
                          requests=self.requests + other.requests, cached=self.cached + other.cached,
                          truncated=self.truncated + other.truncated,
                          reduced_schemas=self.reduced_schemas + other.reduced_schemas)


class InfraRecord(BaseModel):
    kind: InfraKind
    message: str


class EpisodeRecord(BaseModel):
    """One (task, trial): one line of ``episodes.jsonl``; writing it marks the episode finished."""

    key: str = Field(description="domain/task_id#trial, unique in a run.")
    domain: str
    task_id: str
    trial: int
    seed: int = Field(description="Seed of this episode's agent and user (passed to every LLM call).")
    status: EpisodeStatus
    reward: float | None = Field(default=None, description="None for infrastructure failures.")
    end_reason: EndReason | None = None
    infra: InfraRecord | None = None
    table_match: dict[str, float] = Field(default_factory=dict)
    mismatches: list[str] = Field(default_factory=list)
    turns: int = 0
    calls: int = 0
    duration_ms: float = 0.0
    agent_tokens: TokenUsage = Field(default_factory=TokenUsage)
    user_tokens: TokenUsage = Field(default_factory=TokenUsage)
    schema_fallback: str | None = Field(default=None, description="Why the agent's tools went with reduced schemas "
                                        "in this episode (the server's refusal of them as served); None: as served.")


class EpisodeTrace(BaseModel):
    """Every message and tool call of one episode, with timings: one line of ``traces.jsonl``."""

    key: str
    domain: str
    task_id: str
    trial: int
    episode_id: str | None = None
    instructions: str = ""
    events: list[TraceEvent] = Field(default_factory=list)

    def executed_calls(self) -> list[tuple[str, dict[str, Any]]]:
        """The calls that reached the environment, in order: replaying them on a fresh episode of
        the task leaves the state the agent left (tools are deterministic)."""
        return [(e.tool, e.arguments or {}) for e in self.events if e.kind == "tool_call" and e.executed and e.tool]

    def told(self) -> list[str]:
        """What the agent said to the user: the messages its ``communicate`` facts are judged on
        (a reward computed without them scores every information task 0)."""
        return [e.text for e in self.events if e.kind == "agent" and e.text]
