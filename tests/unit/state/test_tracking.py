"""Property: on every shipped domain, the fingerprint and diffs read from change sets equal the full scan.

Random sequences of tool calls (the shipped tasks' own actions, so real writes and real
refusals that roll back), snapshots, restores, forks and resets run on an in-process worker;
after every step the incremental fingerprint and diff from the start state must equal the
reference recomputation bit for bit, and at the end so must the diffs against every snapshot
and every other live episode. The default example count keeps this under ~30 s; the ``slow``
variant runs many more.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.episodes.domain_runtime import DomainRuntime
from scaleenv_mcp.workers.protocol import OK
from scaleenv_mcp.workers.worker import Worker

REPO = Path(__file__).resolve().parents[3]
DOMAINS = sorted(p.name for p in (REPO / "domains").iterdir() if (p / "domain.json").is_file())

Step = tuple[str, int]
STEPS = st.lists(st.tuples(st.sampled_from(["call", "call", "call", "snapshot", "restore", "fork", "switch", "reset"]),
                           st.integers(0, 10_000)), min_size=1, max_size=10)


@cache
def _loaded(slug: str) -> tuple[Worker, DomainRuntime, list, list]:
    package = load_domain(REPO / "domains" / slug)
    runtime = DomainRuntime(package)
    worker = Worker()
    assert worker.handle(("domain", runtime.bundle))[0] == OK
    tasks = sorted(package.tasks.values(), key=lambda t: t.id)
    actions = [(a.tool, a.arguments) for t in tasks for a in t.actions]
    return worker, runtime, tasks, actions


def _ok(worker: Worker, *message):
    status, payload = worker.handle(message)
    assert status == OK, payload
    return payload


def _check(worker: Worker, episode: str, against: bytes | None = None, other: str | None = None) -> None:
    assert _ok(worker, "diff", episode, against, other) == _ok(worker, "diff", episode, against, other, True)


class _Run:
    """One random sequence on one domain: live episodes (current first), snapshots."""

    def __init__(self, slug: str, task_index: int) -> None:
        self.worker, self.runtime, tasks, self.actions = _loaded(slug)
        self.task = tasks[task_index % len(tasks)]
        self.live: list[str] = []
        self.snapshots: list[bytes] = []
        self.open(f"{slug}-{task_index}-0")

    def open(self, episode: str) -> None:
        setup = [op.model_dump(mode="json") for op in self.task.setup]
        _ok(self.worker, "open", episode, self.runtime.bundle.content_hash, self.task.id, setup, None, [])
        self.live.insert(0, episode)

    def step(self, kind: str, n: int) -> None:
        current = self.live[0]
        if kind == "call":
            tool, arguments = self.actions[n % len(self.actions)]
            _ok(self.worker, "call", current, tool, arguments)
        elif kind == "snapshot":
            self.snapshots.append(_ok(self.worker, "snapshot", current))
        elif kind == "restore" and self.snapshots:
            _ok(self.worker, "restore", current, self.snapshots[n % len(self.snapshots)])
        elif kind == "fork":
            child = f"{current}-f{len(self.live)}"
            _ok(self.worker, "fork", current, child)
            self.live.insert(0, child)
        elif kind == "switch":
            self.live.insert(0, self.live.pop(n % len(self.live)))
        elif kind == "reset":  # as the registry does it: close, reopen from the task's start state
            _ok(self.worker, "close", current)
            self.live.pop(0)
            self.open(current)

    def check_now(self) -> None:
        current = self.live[0]
        assert _ok(self.worker, "fingerprint", current) == _ok(self.worker, "fingerprint", current, True)
        _check(self.worker, current)

    def check_all(self) -> None:
        for data in self.snapshots:
            _check(self.worker, self.live[0], against=data)
        for other in self.live[1:]:
            _check(self.worker, self.live[0], other=other)
        stats = _ok(self.worker, "episode_stats", self.live[0])
        assert stats["tracked"] > 0

    def close(self) -> None:
        for episode in self.live:
            _ok(self.worker, "close", episode)


def _property(slug: str, task_index: int, steps: list[Step]) -> None:
    run = _Run(slug, task_index)
    try:
        for kind, n in steps:
            run.step(kind, n)
            run.check_now()
        run.check_all()
    finally:
        run.close()


@pytest.mark.parametrize("slug", DOMAINS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task_index=st.integers(0, 10_000), steps=STEPS)
def test_incremental_state_equals_full_scan(slug: str, task_index: int, steps: list[Step]) -> None:
    _property(slug, task_index, steps)


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("slug", DOMAINS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task_index=st.integers(0, 10_000), steps=STEPS)
def test_incremental_state_equals_full_scan_many(slug: str, task_index: int, steps: list[Step]) -> None:
    _property(slug, task_index, steps)


def test_every_gold_replay_reaches_its_fingerprint_both_ways() -> None:
    """One domain's shipped tasks: the change-set fingerprint of each gold end state is the recorded one."""
    worker, runtime, tasks, _ = _loaded("smart_home")
    for task in tasks[:40]:
        setup = [op.model_dump(mode="json") for op in task.setup]
        _ok(worker, "open", "gold", runtime.bundle.content_hash, task.id, setup, None,
            [(a.tool, a.arguments) for a in task.actions])
        assert _ok(worker, "fingerprint", "gold") == _ok(worker, "fingerprint", "gold", True) == task.gold.fingerprint
        _ok(worker, "close", "gold")


def test_fingerprint_is_the_same_under_another_hash_seed() -> None:
    script = ("import sqlite3\n"
              "from tests.unit.state.test_tracking_containment import SCHEMA, SEED\n"
              "from scaleenv_mcp.state.canonical import dump_state\n"
              "from scaleenv_mcp.state.fingerprint import fingerprint_dump\n"
              "from scaleenv_mcp.state.start_states import build_start_state\n"
              "from scaleenv_mcp.state.tracking import BaseState, read_overlay\n"
              "conn = sqlite3.connect(':memory:')\n"
              "conn.deserialize(build_start_state(SCHEMA, SEED))\n"
              "base = BaseState(conn)\n"
              "conn.execute('PRAGMA recursive_triggers = ON')\n"
              "conn.execute(\"UPDATE pets SET name = 'n\u00e9' WHERE pet_id = 'PET-00001'\")\n"
              "conn.execute('DELETE FROM visits WHERE visit_id > 15')\n"
              "print(base.fingerprint(read_overlay(base, conn)), fingerprint_dump(dump_state(conn)))\n")
    seen = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        incremental, full = done.stdout.split()
        assert incremental == full
        seen.add(incremental)
    assert len(seen) == 1


def test_an_untracked_state_falls_back_to_the_full_scan_and_is_counted() -> None:
    """Bytes without the change table (restored from elsewhere) are still answered right, by the full scan."""
    import sqlite3

    worker, runtime, tasks, _ = _loaded("job_seeking")
    _ok(worker, "open", "plain", runtime.bundle.content_hash, "", [], None, [])
    conn = sqlite3.connect(":memory:")
    conn.deserialize(_ok(worker, "snapshot", "plain"))
    for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'").fetchall():
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute("DROP TABLE _scaleenv_changes")
    untracked = conn.serialize()
    conn.close()
    _ok(worker, "restore", "plain", untracked)
    assert _ok(worker, "fingerprint", "plain") == _ok(worker, "fingerprint", "plain", True)
    _check(worker, "plain")
    assert _ok(worker, "episode_stats", "plain") == {"tracked": 0, "full_scans": 4}
    _ok(worker, "close", "plain")
