"""Task selection: split, globs, a stable hash, and tasks that cannot be scored refused up front."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scaleenv_mcp.clients.task_set import load_task_set
from scaleenv_mcp.errors import UsageError


def test_selection_by_split_and_globs_with_a_stable_hash(library: Path):
    domain = str(library / "tiny_library")
    everything = load_task_set([domain])
    assert [t.id for t in everything.tasks] == ["lend-ada-dune", "lend-grace", "return-solaris", "swap-solaris"]
    assert [t.id for t in load_task_set([domain], split="train").tasks] == ["return-solaris"]
    picked = load_task_set([domain], tasks="lend-*, tiny_library/swap-*")
    assert [t.id for t in picked.tasks] == ["lend-ada-dune", "lend-grace", "swap-solaris"]
    assert load_task_set([domain]).hash == everything.hash != picked.hash
    assert everything.domain_hashes.keys() == {"tiny_library"}
    with pytest.raises(UsageError, match="no task matches"):
        load_task_set([domain], tasks="nothing-*")


def test_tasks_without_gold_or_domains_without_tasks_are_refused(library: Path):
    tasks_file = library / "tiny_library" / "tasks.jsonl"
    lines = tasks_file.read_text().splitlines()
    ungraded = {**json.loads(lines[0]), "gold": None}
    tasks_file.write_text("\n".join([json.dumps(ungraded), *lines[1:]]) + "\n")
    with pytest.raises(UsageError, match="without a gold state"):
        load_task_set([str(library / "tiny_library")])
    tasks_file.unlink()
    with pytest.raises(UsageError, match="has no tasks"):
        load_task_set([str(library / "tiny_library")])
