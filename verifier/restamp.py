"""Recompute every task's recorded ``gold.fingerprint`` after the fingerprint's definition changed.

Why: issue #32 changed how fingerprints are computed, so every shipped ``tasks.jsonl`` holds
stale values, and files re-synthesised elsewhere may too. Restamping replays each task's gold
actions on a fresh episode of an in-process host (the same replay as the determinism gate,
fingerprint from the change set: ``scaleenv verify``'s determinism gate recomputes it by the
full scan) and replaces only the 64 hex digits of the line's
``"fingerprint"`` value: every other byte of the file, line order included, stays as it was.
A task whose replay fails keeps its line untouched and is reported.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.task_file import parse_task_lines
from scaleenv_mcp.errors import UsageError
from scaleenv_mcp.verifier.determinism import replay_fingerprints

__all__ = ["RestampReport", "restamp"]

_FINGERPRINT = re.compile(r'("fingerprint"\s*:\s*")([0-9a-f]{64})(")')


class RestampReport(BaseModel):
    tasks_file: str
    tasks: int = Field(description="Tasks with a gold state (the others are left as they are).")
    changed: int = Field(description="Lines whose fingerprint was rewritten.")
    failed: dict[str, str] = Field(default_factory=dict, description="Task id -> why its replay failed (line untouched).")
    seconds: float


def restamp(package_dir: Path, tasks_file: Path | None = None, workers: int = 1) -> RestampReport:
    """Rewrite ``gold.fingerprint`` of every line of ``tasks_file`` (default: the package's tasks.jsonl)."""
    started = time.perf_counter()
    path = tasks_file or package_dir / "tasks.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    parsed = [(number - 1, task) for number, task in parse_task_lines("".join(lines), path.name)]
    golden = [(i, task) for i, task in parsed if task.gold is not None]
    for i, task in golden:
        matches = [m for m in _FINGERPRINT.finditer(lines[i]) if m.group(2) == task.gold.fingerprint]
        if len(matches) != 1:
            raise UsageError(f"{path}:{i + 1}: task {task.id}: cannot find its gold fingerprint exactly once in the line")
    found = asyncio.run(replay_fingerprints(package_dir, [task for _, task in golden], workers, full=False))
    failed, changed = {}, 0
    for i, task in golden:
        value = found.get(task.id, "error: not replayed")
        if value.startswith("error"):
            failed[task.id] = value
            continue
        old = task.gold.fingerprint
        if value != old:
            lines[i] = _FINGERPRINT.sub(lambda m: m.group(1) + value + m.group(3) if m.group(2) == old else m.group(0),
                                        lines[i])
            changed += 1
    if changed:
        path.write_text("".join(lines), encoding="utf-8")
    return RestampReport(tasks_file=str(path), tasks=len(golden), changed=changed, failed=failed,
                         seconds=round(time.perf_counter() - started, 2))
