"""``scaleenv eval``: run an agent on tasks x trials with a simulated user, score, write the run folder.

Per (task, trial) an episode is created through the control API and played out by
``EvalEnv`` (MCP for tools, the simulated user for messages, budgets); its reward comes from
the control API. Each finished episode is appended to the run folder at once, so a killed
run resumed with ``resume=True`` skips what finished and reruns only the rest (episodes
that failed for infrastructure reasons are retried). Seeds derive from (root seed, task,
trial), so the same flags give the same work, seeds and, with the LLM cache, the same dialogues.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import time
from collections.abc import AsyncIterator, Callable

from scaleenv_mcp.clients.agents import AgentView, build_agent
from scaleenv_mcp.clients.env import Budgets, EvalEnv
from scaleenv_mcp.clients.hosting import HostConnection, connect
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
from scaleenv_mcp.clients.results import RESUME_KEYS, EvalConfig, EvalResults, RunRecord, RunStamp, build_results
from scaleenv_mcp.clients.specs import AGENT_KINDS, USER_KINDS, RoleSpec, parse_role
from scaleenv_mcp.clients.store import RunStore
from scaleenv_mcp.clients.task_set import TaskSet, load_task_set
from scaleenv_mcp.clients.user_sim import build_user
from scaleenv_mcp.control_client import lost_with_host
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import HarnessError, UsageError
from scaleenv_mcp.gathering import gather_all

__all__ = ["episode_key", "episode_seed", "run_eval"]

Progress = Callable[[EpisodeRecord, int, int], None]
EARLY_STOP = 4  # episodes that all failed for infrastructure reasons before the run stops: the rest would too


def episode_key(task: Task, trial: int) -> str:
    return f"{task.domain}/{task.id}#{trial}"


def episode_seed(root: int, task: Task, trial: int) -> int:
    """A 31-bit seed per episode (the agent gets it, the user gets it + 1): stable across machines."""
    digest = hashlib.sha256(f"{root}:{episode_key(task, trial)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFE


@contextlib.asynccontextmanager
async def open_llm(config: EvalConfig, *roles: RoleSpec) -> AsyncIterator[LLMClient | None]:
    """The one LLM client of a run, when some role needs it."""
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


def _check_resumable(saved: RunRecord | None, config: EvalConfig, task_set_hash: str) -> RunRecord:
    if saved is None:
        raise UsageError(f"{config.out} has no readable run.json to resume")
    differ = [k for k in RESUME_KEYS if getattr(saved.config, k) != getattr(config, k)]
    if saved.stamp.task_set_hash != task_set_hash:
        differ.append("task set (tasks.jsonl changed?)")
    if differ:
        raise UsageError(f"cannot resume {config.out}: {', '.join(differ)} differ from the saved run")
    return saved


class _Run:
    def __init__(self, config: EvalConfig, conn: HostConnection, llm: LLMClient | None, agent: RoleSpec,
                 user: RoleSpec, store: RunStore) -> None:
        self.config, self.conn, self.agent, self.user, self.store = config, conn, agent, user, store
        # One endpoint and cache, each role with its own limits.
        self.agent_llm = llm.for_role(config.agent_max_tokens, config.agent_timeout) if llm else None
        self.user_llm = llm.for_role(config.user_max_tokens, config.user_timeout) if llm else None
        self.budgets = Budgets(max_turns=config.max_turns, max_calls=config.max_calls, call_timeout=config.call_timeout)

    async def episode(self, task: Task, trial: int) -> EpisodeRecord:
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
        self.store.append(record, trace)
        return record


def _stamp(config: EvalConfig, tasks: TaskSet, agent: RoleSpec, user: RoleSpec, host_version: str) -> RunStamp:
    from scaleenv_mcp import __version__

    return RunStamp(agent=str(agent), user=str(user), agent_model=agent.model, user_model=user.model,
                    host_version=host_version, clients_version=__version__, task_set_hash=tasks.hash,
                    domain_hashes=tasks.domain_hashes, tasks=len(tasks.tasks), trials=config.trials, seed=config.seed)


async def run_eval(config: EvalConfig, progress: Progress | None = None) -> EvalResults:
    """Run (or resume) an eval and write its run folder; returns what ``results.json`` holds.

    Raises:
        UsageError: bad flags, unknown domains or tasks, a run folder in the way, a run that cannot resume.
        HarnessError: the host could not be started or reached (exit 3).
    """
    agent = parse_role(config.agent, AGENT_KINDS, "--agent")
    user = parse_role(config.user, USER_KINDS, "--user")
    if "openai" in (agent.kind, user.kind) and not config.base_url and not os.environ.get("OPENAI_API_KEY"):
        raise UsageError("openai: roles need --base-url (an OpenAI-compatible endpoint) or OPENAI_API_KEY")
    tasks = load_task_set(config.domains, config.domain_dirs, config.split, config.tasks, config.num_tasks, config.seed)
    store = RunStore(config.out)
    if store.has_run() and not config.resume:
        raise UsageError(f"{config.out} already holds a run: pass --resume to continue it, or choose another --out")
    created = not config.out.exists()
    store.prepare()
    finished = {k for k, r in store.records().items() if r.status is EpisodeStatus.completed}
    saved = _check_resumable(store.read_json(store.run_path, RunRecord), config, tasks.hash) if finished else None
    work = [(t, i) for t in tasks.tasks for i in range(config.trials) if episode_key(t, i) not in finished]
    if work:
        try:
            stamp = await _run_work(config, tasks, agent, user, store, work, progress)
        except BaseException:
            if created and not any(r.status is EpisodeStatus.completed for r in store.records().values()):
                shutil.rmtree(config.out, ignore_errors=True)  # nothing worth keeping; the retry starts clean
            raise
    else:  # everything finished already: nothing to start a host for
        assert saved is not None
        stamp = saved.stamp
    keys = {episode_key(t, i) for t in tasks.tasks for i in range(config.trials)}
    records = [r for k, r in store.records().items() if k in keys]
    lost = [r for r in records if r.infra is not None]
    if created and lost and len(lost) == len(records):
        shutil.rmtree(config.out, ignore_errors=True)  # nothing worth keeping; the retry starts clean
        first = lost[0]
        assert first.infra is not None
        raise HarnessError(f"every episode failed for infrastructure reasons; the first ({first.key}): "
                           f"{first.infra.kind.value}: {first.infra.message} ({config.out} was removed)")
    results = build_results(records, stamp, config.trials, config.seed)
    store.write_json(store.results_path, results)
    return results


async def _run_work(config: EvalConfig, tasks: TaskSet, agent: RoleSpec, user: RoleSpec, store: RunStore,
                    work: list[tuple[Task, int]], progress: Progress | None) -> RunStamp:
    paths = [str(p) for p in tasks.domain_paths.values()]
    async with connect(paths, config.domain_dirs, url=config.url, control_url=config.control_url,
                       token_file=config.token_file, workers=config.workers, ray=config.ray,
                       hosts=config.hosts) as conn, open_llm(config, agent, user) as llm:
        stamp = _stamp(config, tasks, agent, user, conn.host_version)
        store.write_json(store.run_path, RunRecord(config=config.model_copy(update={"resume": False}), stamp=stamp))
        run = _Run(config, conn, llm, agent, user, store)
        gate = asyncio.Semaphore(config.concurrency)
        total, done, failed = len(work), 0, 0

        async def one(task: Task, trial: int) -> None:
            nonlocal done, failed
            async with gate:
                record = await run.episode(task, trial)
            done += 1
            failed += record.status is EpisodeStatus.infra_failure
            if progress:
                progress(record, done, total)
            if failed == done == min(EARLY_STOP, total) and done < total and record.infra is not None:
                raise HarnessError(f"the first {done} episodes all failed for infrastructure reasons, so the run "
                                   f"stopped; the last: {record.infra.kind.value}: {record.infra.message}")

        await gather_all(one(task, trial) for task, trial in work)
    return stamp
