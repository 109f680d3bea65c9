"""The determinism gate: replay a batch of tasks on workers started under another PYTHONHASHSEED.

Tools must not depend on hash order, the wall clock or randomness; replay on worker processes
whose interpreters run under a different hash seed is how that is checked. Everything a task's
end state comes from runs in the workers (the start state's seeding, the tools, the full-scan
fingerprint), so a second host in this process whose workers get ``PYTHONHASHSEED`` is enough: the
layer under test is the tools, as in ``validate_domain``'s rerun of the success cases. One such
host per batch, never one per task; it replays each task's actions without MCP.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from scaleenv_mcp.domain.task import Task

__all__ = ["other_hash_seed", "replay_fingerprints", "verify_determinism"]


def other_hash_seed() -> str:
    """A PYTHONHASHSEED different from this process's (fixed, so runs are reproducible)."""
    return "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"


async def replay_fingerprints(package_dir: Path, tasks: list[Task], workers: int = 1, full: bool = True,
                              worker_env: dict[str, str] | None = None, validate: bool = False) -> dict[str, str]:
    """End-state fingerprint of each task's actions on a fresh episode of an in-process host.

    ``full``: by the reference full scan (the gate: the parent's gold_fingerprint gate read the
    change set, so agreement also checks one against the other); else from the change set.
    ``worker_env``: what the host's workers start with (the gate's other hash seed). ``validate``: the
    host validates the package first, as any host that runs its tools does (a package validated at these
    contents before comes online at once from the host-side cache); without it the host says, on stderr,
    that it serves the package unvalidated."""
    from scaleenv_mcp.host.host import Host
    from scaleenv_mcp.settings import HostSettings

    settings = HostSettings.for_proving(workers=workers, port=0, control_port=None,
                                        skip_validation=None if validate else True)
    found: dict[str, str] = {}
    async with Host.running(settings, domains=[str(package_dir)], worker_env=worker_env) as host:
        slug = package_dir.name
        await host.stage_tasks(slug, tasks)
        in_flight = asyncio.Semaphore(8)

        async def one(task: Task) -> None:
            async with in_flight:
                episode = await host.create_episode(slug, task.id)
                try:
                    for action in task.actions:
                        await host.call(episode.id, action.tool, action.arguments)
                    found[task.id] = await host.fingerprint(episode.id, full=full)
                except Exception as error:  # reported per task; the caller decides
                    found[task.id] = f"error: {type(error).__name__}: {error}"
                finally:
                    await host.close(episode.id)

        await asyncio.gather(*(one(t) for t in tasks))
    return found


async def verify_determinism(package_dir: Path, tasks: list[Task], expected: dict[str, str],
                             validate: bool = True) -> dict[str, str | None]:
    """task id -> None when the replay under the other hash seed reached ``expected[id]``, else the reason.
    ``validate``: as the run whose tasks these are (its host validated the package, or was told not to)."""
    if not tasks:
        return {}
    seed = other_hash_seed()
    seen = await replay_fingerprints(package_dir, tasks, worker_env={"PYTHONHASHSEED": seed}, validate=validate)
    verdicts: dict[str, str | None] = {}
    for task in tasks:
        got = seen.get(task.id)
        if got == expected.get(task.id):
            verdicts[task.id] = None
        else:
            verdicts[task.id] = f"PYTHONHASHSEED={seed} replay reached {str(got)[:60]}"
    return verdicts
