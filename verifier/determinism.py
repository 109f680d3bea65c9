"""The determinism gate: replay a batch of tasks in a second process under another PYTHONHASHSEED.

Tools must not depend on hash order, the wall clock or randomness; replay in a fresh
interpreter with a different hash seed is how that is checked. One subprocess per batch
(starting a host costs about a second), never one per task. The child is this module:

    python -m scaleenv_mcp.verifier.determinism PACKAGE_DIR TASKS_JSONL

It replays each task's actions on its own in-process host (no MCP: the layer under test
is the tools) and prints ``{task_id: fingerprint or "error: ..."}`` as JSON on stdout.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.domain.task_file import load_tasks
from scaleenv_mcp.errors import EnvironmentFaultError

__all__ = ["other_hash_seed", "replay_fingerprints", "verify_determinism"]


def other_hash_seed() -> str:
    """A PYTHONHASHSEED different from this process's (fixed, so runs are reproducible)."""
    return "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"


async def replay_fingerprints(package_dir: Path, tasks: list[Task], workers: int = 1, full: bool = True) -> dict[str, str]:
    """End-state fingerprint of each task's actions on a fresh episode of this process's own host.

    ``full``: by the reference full scan (the gate: the parent's gold_fingerprint gate read the
    change set, so agreement also checks one against the other); else from the change set."""
    from scaleenv_mcp.host.host import Host
    from scaleenv_mcp.settings import HostSettings

    settings = HostSettings.for_proving(workers=workers, port=0, control_port=None, skip_validation=True)
    found: dict[str, str] = {}
    async with Host.running(settings, domains=[str(package_dir)]) as host:
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
                except Exception as error:  # reported per task; the parent decides
                    found[task.id] = f"error: {type(error).__name__}: {error}"
                finally:
                    await host.close(episode.id)

        await asyncio.gather(*(one(t) for t in tasks))
    return found


def verify_determinism(package_dir: Path, tasks: list[Task], expected: dict[str, str],
                       timeout: float = 900.0) -> dict[str, str | None]:
    """task id -> None when the second process reached ``expected[id]``, else the reason."""
    if not tasks:
        return {}
    with tempfile.TemporaryDirectory(prefix="scaleenv-determinism-") as tmp:
        batch = Path(tmp) / "tasks.jsonl"
        batch.write_text("".join(t.to_line() + "\n" for t in tasks))
        env = {**os.environ, "PYTHONHASHSEED": other_hash_seed()}
        root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            done = subprocess.run([sys.executable, "-m", "scaleenv_mcp.verifier.determinism", str(package_dir), str(batch)],
                                  env=env, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise EnvironmentFaultError(f"the determinism replay took longer than {timeout:.0f} s") from None
    if done.returncode != 0:
        raise EnvironmentFaultError(f"the determinism replay failed: {done.stderr.strip().splitlines()[-1:]}")
    seen = json.loads(done.stdout)
    verdicts: dict[str, str | None] = {}
    for task in tasks:
        got = seen.get(task.id)
        if got == expected.get(task.id):
            verdicts[task.id] = None
        else:
            verdicts[task.id] = f"PYTHONHASHSEED={env['PYTHONHASHSEED']} replay reached {str(got)[:60]}"
    return verdicts


def main(argv: list[str]) -> int:
    package_dir, tasks_file = Path(argv[0]), Path(argv[1])
    tasks = load_tasks(tasks_file)
    found = asyncio.run(replay_fingerprints(package_dir, tasks))
    sys.stdout.write(json.dumps(found, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
