"""``scaleenv eval``: run an agent on tasks x trials with a simulated user, score, write the run folder.

Per (task, trial) an episode is created through the control API and played out by
``EvalEnv`` (MCP for tools, the simulated user for messages, budgets; ``episode.EpisodePlayer``), in
this process or, with ``--ray``, in Ray tasks (``on_ray``); its reward comes from the control API. Each finished episode is appended to the run folder at once, so a killed
run resumed with ``resume=True`` skips what finished and reruns only the rest (episodes
that failed for infrastructure reasons are retried). Seeds derive from (root seed, task,
trial), so the same flags give the same work, seeds and, with the LLM cache, the same dialogues.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable

from scaleenv_mcp.clients.episode import EpisodePlayer, Played, episode_key, episode_seed, open_llm
from scaleenv_mcp.clients.hosting import connect
from scaleenv_mcp.clients.models import EpisodeRecord, EpisodeStatus
from scaleenv_mcp.clients.on_ray import play_on_ray
from scaleenv_mcp.clients.results import RESUME_KEYS, EvalConfig, EvalResults, RunRecord, RunStamp, build_results
from scaleenv_mcp.clients.specs import AGENT_KINDS, USER_KINDS, RoleSpec, parse_role
from scaleenv_mcp.clients.store import RunStore
from scaleenv_mcp.clients.task_set import TaskSet, load_task_set
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import HarnessError, UsageError
from scaleenv_mcp.gathering import gather_all

__all__ = ["episode_key", "episode_seed", "run_eval"]

Progress = Callable[[EpisodeRecord, int, int], None]
EARLY_STOP = 4  # episodes that all failed for infrastructure reasons before the run stops: the rest would too


def _check_resumable(saved: RunRecord | None, config: EvalConfig, task_set_hash: str) -> RunRecord:
    if saved is None:
        raise UsageError(f"{config.out} has no readable run.json to resume")
    differ = [k for k in RESUME_KEYS if getattr(saved.config, k) != getattr(config, k)]
    if saved.stamp.task_set_hash != task_set_hash:
        differ.append("task set (tasks.jsonl changed?)")
    if differ:
        raise UsageError(f"cannot resume {config.out}: {', '.join(differ)} differ from the saved run")
    return saved


class _Tally:
    """What the runner does with each finished episode, wherever it was played: append it to the run
    folder at once, report progress, and stop the run early when its first episodes all failed for
    infrastructure reasons (the rest would too)."""

    def __init__(self, store: RunStore, progress: Progress | None, total: int) -> None:
        self.store, self.progress, self.total = store, progress, total
        self.done = self.failed = 0

    def add(self, played: Played) -> None:
        record, trace = played
        self.store.append(record, trace)
        self.done += 1
        self.failed += record.status is EpisodeStatus.infra_failure
        if self.progress:
            self.progress(record, self.done, self.total)
        if (self.failed == self.done == min(EARLY_STOP, self.total) and self.done < self.total
                and record.infra is not None):
            raise HarnessError(f"the first {self.done} episodes all failed for infrastructure reasons, so the run "
                               f"stopped; the last: {record.infra.kind.value}: {record.infra.message}")


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
                       hosts=config.hosts) as conn:
        stamp = _stamp(config, tasks, agent, user, conn.host_version)
        store.write_json(store.run_path, RunRecord(config=config.model_copy(update={"resume": False}), stamp=stamp))
        tally = _Tally(store, progress, len(work))
        if conn.cluster is not None:  # --ray: every episode is played in a Ray task (on_ray)
            await play_on_ray(config, agent, user, conn, work, tally.add)
            return stamp
        async with open_llm(config, agent, user) as llm:
            player = EpisodePlayer(config, conn, llm, agent, user)
            gate = asyncio.Semaphore(config.concurrency)

            async def one(task: Task, trial: int) -> None:
                async with gate:
                    played = await player.play(task, trial)
                tally.add(played)

            await gather_all(one(task, trial) for task, trial in work)
    return stamp
