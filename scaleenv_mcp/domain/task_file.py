"""The one reader of task files, and the one order tasks are sampled in.

A task file (a package's ``tasks.jsonl``, a synthesis output, a ``--tasks`` file) is one
``Task`` per line; blank lines are skipped; a line that is not a valid task is a
``DomainError`` naming the file and the line. ``rank_by_id_hash`` is the order behind both
the train/test split of synthesis and the verifier's samples: the tasks whose id hashes
lowest come first, which is stable as tasks are added and free of their order in the file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import DomainError

__all__ = ["first_error", "load_tasks", "parse_task_lines", "parse_tasks", "rank_by_id_hash"]


def first_error(exc: ValidationError) -> str:
    """The first problem pydantic found, as ``field.path: message``."""
    err = exc.errors()[0]
    return f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"


def parse_task_lines(text: str, source: str = "tasks.jsonl") -> list[tuple[int, Task]]:
    """(line number from 1, task) for every non-blank line of ``text``.

    Raises:
        DomainError: a line is not a valid task (``source`` and the line number say where).
    """
    tasks = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            tasks.append((number, Task.model_validate_json(line)))
        except ValidationError as exc:
            raise DomainError(source, first_error(exc), field=f"line {number}") from exc
    return tasks


def parse_tasks(text: str, source: str = "tasks.jsonl") -> list[Task]:
    """The tasks of a task file's text, in file order."""
    return [task for _, task in parse_task_lines(text, source)]


def load_tasks(path: Path) -> list[Task]:
    """The tasks of the file at ``path``, in file order."""
    return parse_tasks(path.read_text(encoding="utf-8"), path.name)


def rank_by_id_hash(tasks: Iterable[Task]) -> list[Task]:
    """The tasks ordered by the SHA-256 of their id (lowest first)."""
    return sorted(tasks, key=lambda t: hashlib.sha256(t.id.encode()).hexdigest())
