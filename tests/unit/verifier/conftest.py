"""A small set of synthesised, verified fixture-domain tasks, built once per test session."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.domain.task_file import load_tasks
from scaleenv_mcp.generator.tasks import synthesize_tasks

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Task]]:
    """(package folder with tasks.jsonl, its tasks): a copy of tiny_library with 6 verified tasks."""
    package = tmp_path_factory.mktemp("synth") / "tiny_library"
    shutil.copytree(FIXTURE, package)
    report = anyio.run(lambda: synthesize_tasks(package, 6, 5, workers=1))
    assert report.produced == 6, report
    return package, load_tasks(package / "tasks.jsonl")
