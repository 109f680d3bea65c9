"""Which tasks an eval runs, and the hash that stamps them into the results.

Tasks come from the domain packages' ``tasks.jsonl`` (local files, also when the host is
remote: the user simulator needs what the host never serves). The selection is sorted by
(domain, task id), so the same flags give the same work list, seeds and hash everywhere.
"""

from __future__ import annotations

import fnmatch
import hashlib
import random
from pathlib import Path

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.catalog import resolve_domain_path
from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import UsageError

__all__ = ["TaskSet", "load_task_set"]


class TaskSet(BaseModel):
    tasks: list[Task]
    hash: str = Field(description="SHA-256 over the selected tasks' canonical lines, in order.")
    domain_hashes: dict[str, str] = Field(description="slug -> content hash of the domain package.")
    domain_paths: dict[str, Path] = Field(description="slug -> package folder (what a local host serves).")


def _matches(task: Task, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(task.id, p) or fnmatch.fnmatchcase(f"{task.domain}/{task.id}", p) for p in patterns)


def load_task_set(domains: list[str], domain_dirs: list[Path] | None = None, split: str | None = None,
                  tasks: str | None = None, num_tasks: int | None = None, seed: int = 0) -> TaskSet:
    """The tasks of ``domains`` in ``split`` whose id matches one of the comma-separated ``tasks`` globs;
    with ``num_tasks``, that many of them drawn with ``seed`` (the same flags, the same tasks).

    Raises:
        UsageError: unknown domain, nothing selected, or a selected task without gold.
        DomainError: a package (or its tasks.jsonl) is broken.
    """
    if not domains:
        raise UsageError("give at least one domain (--domains)")
    patterns = [p.strip() for p in (tasks or "").split(",") if p.strip()]
    selected: list[Task] = []
    hashes: dict[str, str] = {}
    paths: dict[str, Path] = {}
    for name in dict.fromkeys(domains):
        package = load_domain(resolve_domain_path(name, domain_dirs or None))
        hashes[package.slug], paths[package.slug] = package.content_hash, package.path
        if not package.tasks:
            raise UsageError(f"domain {package.slug} has no tasks ({package.path / 'tasks.jsonl'} is missing or empty)")
        for task in package.tasks.values():
            if split and task.split != split:
                continue
            if patterns and not _matches(task, patterns):
                continue
            selected.append(task)
    if not selected:
        raise UsageError(f"no task matches (domains {', '.join(domains)}, split {split or 'any'}, tasks {tasks or '*'})")
    selected.sort(key=lambda t: (t.domain, t.id))
    if num_tasks is not None and num_tasks < len(selected):
        selected = sorted(random.Random(f"{seed}:num-tasks").sample(selected, num_tasks), key=lambda t: (t.domain, t.id))
    ungraded = [f"{t.domain}/{t.id}" for t in selected if t.gold is None]
    if ungraded:
        raise UsageError(f"tasks without a gold state cannot be scored: {', '.join(ungraded[:5])}")
    digest = hashlib.sha256()
    for task in selected:
        digest.update(task.to_line().encode() + b"\n")
    return TaskSet(tasks=selected, hash=digest.hexdigest(), domain_hashes=hashes, domain_paths=paths)
