"""Reward probes on real shipped tasks, replayed over in-memory MCP: what an agent does besides the
gold must move the reward the right way.

tests/unit/state/test_reward.py pins the same probes on hand-made diffs (minted ids in the other
order, the wrong created row, semantic negations); here they run on each shipped domain's first
action task (by id) that has a read and a write, through the host and the state layer an agent meets:
- the gold plus a harmless read (the gold's first read again) scores 1;
- the gold plus a write of another task, one that the tool accepts, scores 0;
- the gold without its last write scores 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.verifier.replay import MemoryTransport, replay_actions

DOMAINS = Path(__file__).resolve().parents[2] / "domains"
WITH_TASKS = sorted(p.parent.name for p in DOMAINS.glob("*/tasks.jsonl"))


def _probe_task(tasks: list[Task], writing: set[str]) -> Task | None:
    for task in sorted(tasks, key=lambda t: t.id):
        tools = [a.tool for a in task.actions]
        if task.kind == "action" and any(t in writing for t in tools) and any(t not in writing for t in tools):
            return task
    return None


@pytest.mark.anyio
@pytest.mark.parametrize("slug", WITH_TASKS)
async def test_extra_read_keeps_one_extra_write_and_missing_write_score_zero(slug: str):
    from scaleenv_mcp.host.host import Host
    from scaleenv_mcp.settings import HostSettings

    package = load_domain(DOMAINS / slug)
    manifest = package.manifest
    writing = {t.name for t in manifest.tools if t.is_writing}
    tasks = list(package.tasks.values())
    task = _probe_task(tasks, writing)
    assert task is not None, f"{slug} has no action task with a read and a write"
    read = next(a for a in task.actions if a.tool not in writing)
    last_write = max(i for i, a in enumerate(task.actions) if a.tool in writing)
    others = [a for t in sorted(tasks, key=lambda t: t.id) if t.id != task.id for a in t.actions
              if a.tool in writing and a not in task.actions]
    settings = HostSettings.from_env(workers=1, port=0, control_port=None, max_harness_episodes=1000,
                                     skip_validation=True)
    async with Host.running(settings, domains=[str(package.path)]) as host:
        await host.stage_tasks(slug, [task])
        async with MemoryTransport(host, slug).episode(task.id) as session:
            gold = await replay_actions(session, manifest, task, task.actions)
            assert gold.reward is not None and gold.reward.reward == 1.0, gold.reward

            with_read = await replay_actions(session, manifest, task, [*task.actions, read])
            assert with_read.errors == 0 and with_read.reward is not None
            assert with_read.reward.reward == 1.0, with_read.reward.explain()

            short = await replay_actions(session, manifest, task, task.actions[:last_write])
            assert short.reward is not None and short.reward.reward == 0.0

            landed = None
            for extra in others[:40]:  # the first write of another task the tool accepts here
                outcome = await replay_actions(session, manifest, task, [*task.actions, extra])
                if outcome.results[-1].ok:
                    landed = outcome
                    break
            assert landed is not None, f"{slug}: no other task's write landed after {task.id}'s gold"
            assert landed.reward is not None and landed.reward.reward == 0.0, landed.reward.explain()
