"""Eval run folders (``scaleenv eval --out DIR``) as the web view shows them, read with the
eval clients' own models (``scaleenv_mcp.clients.store``, ``scaleenv_mcp.clients.results``).

A folder that is missing, partial (a run still going, or killed: no ``results.json`` yet) or
written by another version (a file that no longer fits the models) is never a traceback: it
loads as a ``RunView`` with ``problems`` saying what is wrong, and whatever could be read.
This module must not render anything.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from scaleenv_mcp import __version__
from scaleenv_mcp.clients.metrics import SUCCESS
from scaleenv_mcp.clients.models import EpisodeRecord, EpisodeTrace
from scaleenv_mcp.clients.results import EvalResults, RunRecord, build_results
from scaleenv_mcp.clients.store import RunStore

__all__ = ["RunFolder", "RunView", "TaskRow", "compare_runs", "find_runs", "load_run"]

_RUN_FILES = ("run.json", "results.json", "episodes.jsonl")


class RunFolder(BaseModel):
    name: str = Field(description="The run's path under its results folder (its id in URLs).")
    path: Path


class TaskRow(BaseModel):
    """One task of a run: its trials in order (None: not run or not finished)."""

    task: str  # domain/task_id
    trials: list[EpisodeRecord | None]

    @property
    def mean(self) -> float | None:
        rewards = [t.reward for t in self.trials if t is not None and t.reward is not None]
        return sum(rewards) / len(rewards) if rewards else None

    @property
    def passed(self) -> bool | None:
        return None if self.mean is None else self.mean >= SUCCESS


class RunView(BaseModel):
    folder: RunFolder
    record: RunRecord | None = None
    results: EvalResults | None = None
    records: dict[str, EpisodeRecord] = Field(default_factory=dict)
    problems: list[str] = Field(default_factory=list, description="What is wrong with the folder, in words.")
    computed: bool = Field(default=False, description="Results computed here from the finished episodes.")

    @property
    def k(self) -> int:
        if self.results is not None:
            return self.results.k
        return self.record.config.trials if self.record is not None else max((r.trial for r in self.records.values()),
                                                                                default=0) + 1

    def grid(self) -> list[TaskRow]:
        by_task: dict[str, dict[int, EpisodeRecord]] = defaultdict(dict)
        for record in self.records.values():
            by_task[f"{record.domain}/{record.task_id}"][record.trial] = record
        return [TaskRow(task=task, trials=[trials.get(i) for i in range(self.k)]) for task, trials in sorted(by_task.items())]

    def trace(self, key: str) -> EpisodeTrace | None:
        return RunStore(self.folder.path).traces().get(key)


def _is_run(path: Path) -> bool:
    return any((path / name).is_file() for name in _RUN_FILES)


def find_runs(roots: list[Path]) -> tuple[list[RunFolder], list[str]]:
    """Run folders under each root (the root itself, or its sub-folders up to two levels), newest
    first, and a sentence for each root that is not there."""
    found: list[RunFolder] = []
    problems = []
    for root in roots:
        if not root.is_dir():
            problems.append(f"results folder {root} does not exist (or is not a folder)")
            continue
        if _is_run(root):
            found.append(RunFolder(name=root.name, path=root))
            continue
        candidates = [p for p in root.glob("*") if p.is_dir()] + [p for p in root.glob("*/*") if p.is_dir()]
        found += [RunFolder(name=p.relative_to(root).as_posix(), path=p) for p in candidates if _is_run(p)]
    found.sort(key=lambda f: max((f.path / n).stat().st_mtime for n in _RUN_FILES if (f.path / n).exists()), reverse=True)
    return found, problems


def _version_hint(raw: Any) -> str:
    stamp = raw.get("stamp") if isinstance(raw, dict) else None
    written = stamp.get("host_version") if isinstance(stamp, dict) else None
    return f" (written by scaleenv {written}; this is {__version__})" if written else ""


def _read_model(path: Path, model: type[BaseModel], problems: list[str]) -> Any:
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as error:
        problems.append(f"{path.name} is not readable JSON: {error}")
        return None
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        problems.append(f"{path.name} does not fit this version's format{_version_hint(raw)}: {where}: {first['msg']}")
        return None


def _unreadable_lines(path: Path, read: int) -> int:
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text(errors="replace").splitlines() if line.strip()) - read


def load_run(folder: RunFolder) -> RunView:
    """Everything readable in one run folder, with the problems found on the way."""
    problems: list[str] = []
    if not folder.path.is_dir():
        return RunView(folder=folder, problems=[f"run folder {folder.path} does not exist"])
    if not _is_run(folder.path):
        return RunView(folder=folder, problems=[f"{folder.path} is not an eval run folder: it has none of "
                                                f"{', '.join(_RUN_FILES)}"])
    store = RunStore(folder.path)
    record = _read_model(store.run_path, RunRecord, problems)
    results = _read_model(store.results_path, EvalResults, problems)
    records = store.records()
    lines = len(store.records_path.read_text(errors="replace").splitlines()) if store.records_path.exists() else 0
    if (bad := _unreadable_lines(store.records_path, min(lines, len(records)))) > 0:
        problems.append(f"episodes.jsonl: {bad} line(s) not readable (cut off by a killed run, or from another "
                        "version); those episodes are left out")
    computed = False
    if results is None and not store.results_path.exists():
        if record is not None and records:
            results = build_results(list(records.values()), record.stamp, record.config.trials, record.config.seed)
            computed = True
            problems.append(f"partial run: no results.json yet (still running, or stopped); the numbers below are "
                            f"computed from the {len(records)} finished episode(s)")
        else:
            problems.append("partial run: no results.json yet" + ("" if records else ", and no finished episode"))
    return RunView(folder=folder, record=record, results=results, records=records, problems=problems, computed=computed)


class Flip(BaseModel):
    task: str
    a: float | None
    b: float | None
    flipped: bool


def compare_runs(a: RunView, b: RunView) -> list[Flip]:
    """Every task of either run with its mean reward in each; ``flipped`` when it passes in one only."""
    rows_a = {row.task: row for row in a.grid()}
    rows_b = {row.task: row for row in b.grid()}
    out = []
    for task in sorted(set(rows_a) | set(rows_b)):
        ra, rb = rows_a.get(task), rows_b.get(task)
        pa, pb = (ra.passed if ra else None), (rb.passed if rb else None)
        out.append(Flip(task=task, a=ra.mean if ra else None, b=rb.mean if rb else None,
                        flipped=pa is not None and pb is not None and pa != pb))
    out.sort(key=lambda f: (not f.flipped, f.task))
    return out
