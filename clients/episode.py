"""Play one eval episode (``EpisodePlayer.play``): an agent and a simulated user against an episode made
through a control API, scored by it. What ``scaleenv eval`` runs per (task, trial), in its own process
(``runner``) or inside a Ray task (``on_ray``); the seeds derive from (root seed, task, trial) only, so
where an episode is played changes nothing it records but its duration.

This module must not write the run folder or decide what to run: its caller does (``runner``).
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import AsyncIterator

from scaleenv_mcp.clients.agents import AgentView, build_agent
from scaleenv_mcp.clients.env import Budgets, EvalEnv
from scaleenv_mcp.clients.hosting import HostConnection
from scaleenv_mcp.clients.llm import LLMClient, LLMSettings
from scaleenv_mcp.clients.models import (
    ContextFull,
    EndReason,
    EpisodeRecord,
    EpisodeStatus,
    EpisodeTrace,
    InfraError,
    InfraKind,
    InfraRecord,
)
from scaleenv_mcp.clients.results import EvalConfig
from scaleenv_mcp.clients.specs import RoleSpec
from scaleenv_mcp.clients.user_sim import build_user
from scaleenv_mcp.control_client import lost_with_host
from scaleenv_mcp.domain.task import Task

__all__ = ["EpisodePlayer", "Played", "episode_key", "episode_seed", "open_llm", "unplayed"]

Played = tuple[EpisodeRecord, EpisodeTrace]


def episode_key(task: Task, trial: int) -> str:
    return f"{task.domain}/{task.id}#{trial}"


def episode_seed(root: int, task: Task, trial: int) -> int:
    """A 31-bit seed per episode (the agent gets it, the user gets it + 1): stable across machines."""
    digest = hashlib.sha256(f"{root}:{episode_key(task, trial)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFE


@contextlib.asynccontextmanager
async def open_llm(config: EvalConfig, *roles: RoleSpec) -> AsyncIterator[LLMClient | None]:
    """The one LLM client of a run (or of one Ray task of it), when some role needs it."""
    if not any(r.kind == "openai" for r in roles):
        yield None
        return
    cache = (config.cache_dir or config.out / "llm-cache") if config.llm_cache else None
    llm = LLMClient(LLMSettings(base_url=config.base_url, temperature=config.temperature, retries=config.llm_retries,
                                backoff=config.llm_backoff, cache_dir=cache,
                                portable_schemas=config.portable_schemas))
    try:
        yield llm
    finally:
        await llm.aclose()


def unplayed(config: EvalConfig, task: Task, trial: int, kind: InfraKind, message: str) -> Played:
    """The record and (empty) trace of an episode that could not be played: an infrastructure failure,
    retried by ``--resume``, never scored."""
    key = episode_key(task, trial)
    record = EpisodeRecord(key=key, domain=task.domain, task_id=task.id, trial=trial,
                           seed=episode_seed(config.seed, task, trial), status=EpisodeStatus.infra_failure,
                           infra=InfraRecord(kind=kind, message=message))
    return record, EpisodeTrace(key=key, domain=task.domain, task_id=task.id, trial=trial)


class EpisodePlayer:
    """Plays episodes of one run over one host connection and LLM client."""

    def __init__(self, config: EvalConfig, conn: HostConnection, llm: LLMClient | None, agent: RoleSpec,
                 user: RoleSpec) -> None:
        self.config, self.conn, self.agent, self.user = config, conn, agent, user
        # One endpoint and cache, each role with its own limits.
        self.agent_llm = llm.for_role(config.agent_max_tokens, config.agent_timeout) if llm else None
        self.user_llm = llm.for_role(config.user_max_tokens, config.user_timeout) if llm else None
        self.budgets = Budgets(max_turns=config.max_turns, max_calls=config.max_calls, call_timeout=config.call_timeout)

    async def play(self, task: Task, trial: int) -> Played:
        """One (task, trial) from reset to its end: its record (scored, or an infrastructure failure) and trace."""
        seed = episode_seed(self.config.seed, task, trial)
        key = episode_key(task, trial)
        env = EvalEnv(self.conn.control, lambda t: build_user(self.user, t.user, seed + 1, self.user_llm,
                                                              self.config.max_turns), self.budgets,
                      self.conn.episode_url)
        started = time.perf_counter()
        agent = None
        base = dict(key=key, domain=task.domain, task_id=task.id, trial=trial, seed=seed)
        try:
            reset = await env.reset(task)
            agent = build_agent(self.agent, AgentView(tools=reset.tools, instructions=reset.instructions, seed=seed),
                                task, self.agent_llm)
            observation = reset.observation
            while True:
                try:
                    action = await agent.act(observation)
                except ContextFull:  # the agent's own conversation filled its context: scored, the model's end
                    step = await env.end(EndReason.context_full)
                    break
                step = await env.step(action)
                if step.done:
                    break
                assert step.observation is not None
                observation = step.observation
            record = EpisodeRecord(**base, status=EpisodeStatus.completed, reward=step.reward,
                                   end_reason=step.info.end_reason, table_match=step.info.table_match,
                                   mismatches=step.info.mismatches, turns=env.turns, calls=env.calls)
        except InfraError as error:
            lost = await lost_with_host(self.conn.control, env.episode_id) if env.episode_id else None
            record = EpisodeRecord(**base, status=EpisodeStatus.infra_failure, turns=env.turns, calls=env.calls,
                                   infra=InfraRecord(kind=InfraKind.host_lost if lost else error.kind,
                                                     message=lost.message if lost else error.detail))
        finally:
            await env.close()
        record.duration_ms = round((time.perf_counter() - started) * 1000, 3)
        if agent is not None:
            record.agent_tokens = agent.usage
            if agent.usage.reduced_schemas and self.agent_llm is not None:
                record.schema_fallback = self.agent_llm.schema_fallback
        if env.user is not None:
            record.user_tokens = env.user.usage
        trace = env.trace or EpisodeTrace(key=key, domain=task.domain, task_id=task.id, trial=trial)
        trace.key, trace.trial = key, trial
        return record, trace
