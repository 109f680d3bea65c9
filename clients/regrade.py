"""Re-grade a finished run from its saved traces, without asking any agent, user or LLM again.

For every scored episode, a fresh episode of its task is created, the tool calls that
reached the environment are replayed in order over MCP (tools are deterministic, so the
end state is the one the agent left), and the control API scores it against the task's
current gold. Use it after the reward function or a task's gold changed, or to audit a
run. Episodes that failed for infrastructure reasons have nothing to replay and stay as
they are; an episode whose replay fails is reported, never dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from pydantic import BaseModel, Field

from scaleenv_mcp.clients.env import mismatch_lines
from scaleenv_mcp.clients.hosting import HostConnection, connect
from scaleenv_mcp.clients.mcp_session import McpSession
from scaleenv_mcp.clients.models import EpisodeRecord, EpisodeStatus, EpisodeTrace, InfraError
from scaleenv_mcp.clients.results import EvalResults, RunRecord, build_results
from scaleenv_mcp.clients.runner import gather_all
from scaleenv_mcp.clients.store import RunStore
from scaleenv_mcp.clients.task_set import load_task_set
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import HarnessError, UsageError
from scaleenv_mcp.state.reward import RewardReport

__all__ = ["RegradeChange", "RegradeReport", "regrade_run"]


class RegradeChange(BaseModel):
    key: str
    before: float | None
    after: float


class RegradeReport(BaseModel):
    regraded: int = Field(description="Episodes replayed and scored again.")
    changed: list[RegradeChange] = Field(description="Episodes whose reward differs from the saved one.")
    failed: dict[str, str] = Field(description="key -> why its replay failed (its saved record is kept).")
    results: EvalResults


async def _replay(conn: HostConnection, task: Task, trace: EpisodeTrace, timeout: float) -> RewardReport:
    [info] = await conn.control.create_episodes(task.domain, task.id)
    session = None
    try:
        session = await McpSession.open(conn.episode_url(info.agent_url), timeout)
        for tool, arguments in trace.executed_calls():
            await session.call(tool, arguments)
        report = await conn.control.reward(info.id, trace.told())
    finally:
        if session is not None:
            await session.close()
        with contextlib.suppress(HarnessError):
            await conn.control.close(info.id)
    return report


async def regrade_run(out: Path, *, concurrency: int = 4, url: str | None = None, control_url: str | None = None,
                      token_file: Path | None = None, workers: int | None = None) -> RegradeReport:
    """Re-score every completed episode of the run in ``out``; rewrites episodes.jsonl and results.json.

    The host is started here unless ``url``, ``control_url`` and ``token_file`` name a running one
    (it need not be the host the run used: tools are deterministic).

    Raises:
        UsageError: no run in ``out``.
    """
    store = RunStore(out)
    saved = store.read_json(store.run_path, RunRecord)
    if saved is None:
        raise UsageError(f"{out} holds no run to regrade (run.json missing or unreadable)")
    run = saved.config
    tasks = load_task_set(run.domains, run.domain_dirs, run.split, run.tasks)
    by_key = {f"{t.domain}/{t.id}": t for t in tasks.tasks}
    records, traces = store.records(), store.traces()
    todo = [r for r in records.values() if r.status is EpisodeStatus.completed]
    changed: list[RegradeChange] = []
    failed: dict[str, str] = {}
    gate = asyncio.Semaphore(concurrency)
    paths = [str(p) for p in tasks.domain_paths.values()]
    async with connect(paths, run.domain_dirs, url=url, control_url=control_url, token_file=token_file,
                       workers=workers) as conn:

        async def one(record: EpisodeRecord) -> None:
            task, trace = by_key.get(f"{record.domain}/{record.task_id}"), traces.get(record.key)
            if task is None or trace is None:
                failed[record.key] = "its task is gone from tasks.jsonl" if task is None else "no saved trace"
                return
            async with gate:
                try:
                    report = await _replay(conn, task, trace, run.call_timeout)
                except (InfraError, HarnessError) as error:
                    failed[record.key] = error.message
                    return
            if report.reward != record.reward:
                changed.append(RegradeChange(key=record.key, before=record.reward, after=report.reward))
            records[record.key] = record.model_copy(update={
                "reward": report.reward, "table_match": dict(report.table_match),
                "mismatches": mismatch_lines(report)})

        await gather_all(one(record) for record in todo)
    ordered = sorted(records.values(), key=lambda r: r.key)
    store.rewrite_records(ordered)
    stamp = saved.stamp.model_copy(update={"task_set_hash": tasks.hash, "domain_hashes": tasks.domain_hashes})
    results = build_results(ordered, stamp, run.trials, run.seed)
    store.write_json(store.results_path, results)
    return RegradeReport(regraded=len(todo) - len(failed), changed=sorted(changed, key=lambda c: c.key),
                         failed=dict(sorted(failed.items())), results=results)
