"""The run's configuration, its stamps and ``results.json``: the models and how results are built.

``results.json`` keeps the headline numbers under stable top-level keys (``avg@k``,
``pass@k``, ``pass^k``: overall values) and the detail under ``overall`` and ``domains``.
Infrastructure failures ("the server failed": not scored) are listed one by one, apart from
the scores; what the model did wrong ("the model misbehaved": scored) is summed up in
``model_problems``: trials without a single tool call, replies cut off at max_tokens. How eval had
to adapt to the server is said once (``schema_fallback``: tool schemas it refused). The stamp says what
produced the numbers: agent and user (models included), host version, task-set hash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from scaleenv_mcp.clients.metrics import GroupMetrics, summarise
from scaleenv_mcp.clients.models import EndReason, EpisodeRecord, EpisodeStatus, InfraKind, TokenUsage
from scaleenv_mcp.clients.portable_schemas import KEPT_KEYWORDS

__all__ = ["EvalConfig", "EvalResults", "InfraFailure", "ModelProblems", "RunRecord", "RunStamp", "SchemaFallback",
           "build_results"]


class EvalConfig(BaseModel):
    """Everything ``scaleenv eval`` takes; the Python API (``run_eval``) takes the same."""

    domains: list[str] = Field(description="Domain slugs or paths to domain folders.")
    domain_dirs: list[Path] = Field(default_factory=list, description="Extra folders to find domains in.")
    split: Literal["train", "test"] | None = Field(default=None, description="Only tasks of this split.")
    tasks: str | None = Field(default=None, description="Comma-separated globs on task ids (or domain/id).")
    num_tasks: int | None = Field(default=None, ge=1, description="Run this many of the selected tasks, drawn with "
                                  "the root seed (the same seed, the same tasks).")
    agent: str = Field(description="oracle | noop | random | openai:MODEL")
    user: str = Field(default="scripted", description="scripted | openai:MODEL")
    trials: int = Field(default=1, ge=1, description="Trials per task (k of avg@k, pass@k, pass^k).")
    concurrency: int = Field(default=4, ge=1, description="Episodes run at once.")
    seed: int = Field(default=0, description="Root seed; each episode's seed derives from it, its task and trial.")
    out: Path = Field(description="Run folder (episodes.jsonl, traces.jsonl, results.json, run.json).")
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint for openai: roles.")
    url: str | None = Field(default=None, description="Agent listener of a running host (else one is started).")
    control_url: str | None = Field(default=None, description="Control listener of that host.")
    token_file: Path | None = Field(default=None, description="Control token file of that host.")
    resume: bool = Field(default=False, description="Continue the run in --out, skipping finished episodes.")
    max_turns: int = Field(default=20, ge=1, description="Agent messages per episode.")
    max_calls: int = Field(default=50, ge=0, description="Tool calls per episode.")
    call_timeout: float = Field(default=60.0, gt=0, description="Seconds per tool call.")
    temperature: float = Field(default=0.0, description="LLM sampling temperature.")
    llm_retries: int = Field(default=3, ge=0, description="Retries of a failed LLM request.")
    llm_backoff: float = Field(default=1.0, ge=0, description="First LLM retry delay, seconds.")
    agent_max_tokens: int = Field(default=2048, ge=1, description="Completion token cap of one agent reply; a reply "
                                  "cut there is the agent's failed turn (scored), not an infrastructure failure.")
    user_max_tokens: int = Field(default=512, ge=1, description="Completion token cap of one simulated-user reply.")
    agent_timeout: float = Field(default=120.0, gt=0, description="Seconds per agent LLM request.")
    user_timeout: float = Field(default=120.0, gt=0, description="Seconds per simulated-user LLM request.")
    llm_cache: bool = Field(default=True, description="Cache LLM responses on disk for exact reruns.")
    portable_schemas: bool = Field(default=False, description="Send the agent's tool schemas reduced to a portable "
                                   "subset from the first request: for servers that crash building a grammar from a "
                                   "served schema (llama-cpp-python) instead of refusing it (docs/model-servers.md).")
    cache_dir: Path | None = Field(default=None, description="LLM cache folder (default: OUT/llm-cache).")
    workers: int | None = Field(default=None, description="Worker processes of a host started here.")
    ray: str | None = Field(default=None, description="Run the episodes on host actors of this Ray cluster (local, "
                            "auto or host:port) behind one control API, instead of one host started here.")
    hosts: int | None = Field(default=None, ge=1, description="With ray: host actors to start (default: one per "
                              "free CPU).")


# Fields that define the work and its numbers: a resumed run must agree on all of them.
RESUME_KEYS = ("split", "tasks", "num_tasks", "agent", "user", "trials", "seed", "max_turns", "max_calls", "temperature",
               "agent_max_tokens", "user_max_tokens")


class RunStamp(BaseModel):
    agent: str
    user: str
    agent_model: str | None
    user_model: str | None
    host_version: str
    clients_version: str
    task_set_hash: str
    domain_hashes: dict[str, str]
    tasks: int
    trials: int
    seed: int


class RunRecord(BaseModel):
    """``run.json``: how the run was made (no secrets: API keys are never written)."""

    config: EvalConfig
    stamp: RunStamp


class InfraFailure(BaseModel):
    key: str
    kind: InfraKind
    message: str


class ModelProblems(BaseModel):
    """The model misbehaved (scored, the agent's own failure), as opposed to ``infra_failures``."""

    no_tool_call: list[str] = Field(default_factory=list, description="Scored episodes in which the agent made no "
                                    "tool call at all (a model that never saw or never used its tools).")
    truncated_replies: int = Field(default=0, description="Agent replies cut off at max_tokens (failed turns).")
    truncated_episodes: list[str] = Field(default_factory=list, description="Episodes with such a reply.")
    context_full: list[str] = Field(default_factory=list, description="Episodes ended because the agent's "
                                    "conversation outgrew its model's context (the server refused the next request "
                                    "as too long): scored, end_reason context_full.")


class SchemaFallback(BaseModel):
    """The server refused the tool schemas as served; eval sent them reduced (docs/model-servers.md)."""

    reason: str = Field(description="The server's refusal of the schemas as served (the first one seen).")
    kept: list[str] = Field(description="The JSON-Schema keywords kept; the others were told in descriptions.")
    episodes: int = Field(description="Episodes whose agent got reduced schemas.")
    requests: int = Field(description="Agent requests sent with reduced schemas.")


class EvalResults(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    k: int
    avg_at_k: float = Field(alias="avg@k", description="Overall Avg@k (mean reward).")
    pass_at_k: float = Field(alias="pass@k", description="Overall Pass@k (unbiased).")
    pass_hat_k: float = Field(alias="pass^k", description="Overall Pass^k (unbiased).")
    overall: GroupMetrics
    domains: dict[str, GroupMetrics]
    infra_failures: list[InfraFailure] = Field(description="Episodes not scored, and why (never counted as 0).")
    model_problems: ModelProblems = Field(default_factory=ModelProblems)
    schema_fallback: SchemaFallback | None = Field(default=None, description="Set when the endpoint refused the "
                                                   "tool schemas as served and eval sent them reduced.")
    agent_tokens: TokenUsage
    user_tokens: TokenUsage
    stamp: RunStamp

    def harness_failure(self) -> str | None:
        """Why this run, although it ran to its end, ends with exit 3 (the harness failed): every episode
        failed for infrastructure reasons, or episodes were lost with their host. None when it did not."""
        if self.overall.episodes == 0 and self.infra_failures:
            first = self.infra_failures[0]  # the reason, not just the count: it is the same for all, usually
            return (f"every episode failed for infrastructure reasons; the first ({first.key}): {first.kind.value}: "
                    f"{first.message}")
        if lost := [f for f in self.infra_failures if f.kind is InfraKind.host_lost]:
            return (f"{len(lost)} episode(s) were lost with their host (a host actor or its node left); the first "
                    f"({lost[0].key}): {lost[0].message}. The others are scored; `--resume` runs the lost ones again")
        return None


def build_results(records: list[EpisodeRecord], stamp: RunStamp, k: int, seed: int) -> EvalResults:
    overall, domains = summarise(records, k)
    ordered = sorted(records, key=lambda r: r.key)
    agent_tokens, user_tokens = TokenUsage(), TokenUsage()
    for record in ordered:
        agent_tokens, user_tokens = agent_tokens.add(record.agent_tokens), user_tokens.add(record.user_tokens)
    failures = [InfraFailure(key=r.key, kind=r.infra.kind, message=r.infra.message)
                for r in ordered if r.status is EpisodeStatus.infra_failure and r.infra is not None]
    scored = [r for r in ordered if r.status is EpisodeStatus.completed]
    problems = ModelProblems(no_tool_call=[r.key for r in scored if r.calls == 0],
                             truncated_replies=sum(r.agent_tokens.truncated for r in scored),
                             truncated_episodes=[r.key for r in scored if r.agent_tokens.truncated],
                             context_full=[r.key for r in scored if r.end_reason is EndReason.context_full])
    reduced = [r for r in ordered if r.schema_fallback]
    fallback = SchemaFallback(reason=reduced[0].schema_fallback or "", kept=list(KEPT_KEYWORDS), episodes=len(reduced),
                              requests=sum(r.agent_tokens.reduced_schemas for r in reduced)) if reduced else None
    return EvalResults(k=k, avg_at_k=overall.avg_at_k.value, pass_at_k=overall.pass_at_k.value,
                       pass_hat_k=overall.pass_hat_k.value, overall=overall, domains=domains,
                       infra_failures=failures, model_problems=problems, schema_fallback=fallback,
                       agent_tokens=agent_tokens,
                       user_tokens=user_tokens, stamp=stamp)
