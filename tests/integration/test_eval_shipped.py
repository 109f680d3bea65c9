"""CI-sized admission check of every shipped domain: on a small deterministic sample of its tasks,
the oracle scores 1.0 and the do-nothing agent 0, through ``run_eval`` over real HTTP (also on a
refusal task: no change is right there, but the reason a person is owed is scored too).

The full check over every task is a documented command (docs/eval.md):
    scaleenv eval --domains <slug> --agent oracle --user scripted --out runs/oracle-<slug>
A domain without tasks.jsonl is skipped, and the skip reason says so.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.clients import EvalConfig, run_eval
from scaleenv_mcp.domain.loader import load_domain
from tests.unit.clients.library_tasks import HostThread

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (REPO / "domains").iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
SAMPLE = 3


def sample_task_ids(domain: Path, size: int = SAMPLE) -> list[str]:
    """The same few tasks on every run: a seeded sample of the sorted ids."""
    ids = sorted(load_domain(domain).tasks)
    return sorted(random.Random(0).sample(ids, min(size, len(ids))))


@pytest.fixture(params=SHIPPED, ids=[p.name for p in SHIPPED])
def shipped(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, HostThread]]:
    domain: Path = request.param
    if not (domain / "domain.json").is_file():
        pytest.skip(f"domains/{domain.name} has no domain.json yet: not a domain package")
    if not (domain / "tasks.jsonl").is_file() or not (domain / "tasks.jsonl").read_text().strip():
        pytest.skip(f"domains/{domain.name} has no tasks.jsonl yet: nothing to evaluate")
    # Procedural validation is tests/domains' job and costs tens of seconds per domain on a
    # small machine; this test is about the tasks, so its host serves the package unvalidated.
    with HostThread([domain], tmp_path / "token", skip_validation=True) as host:
        if domain.name not in host.host.registry.domains:
            pytest.fail(f"domains/{domain.name} is not served: {host.host.status.get(domain.name)}")
        yield domain, host


def test_oracle_scores_one_and_noop_zero(shipped: tuple[Path, HostThread], tmp_path: Path):
    domain, host = shipped
    ids = sample_task_ids(domain)
    common = dict(domains=[str(domain)], tasks=",".join(ids), url=host.url, control_url=host.control_url,
                  token_file=host.token_file, concurrency=2)
    oracle = anyio.run(run_eval, EvalConfig(agent="oracle", out=tmp_path / "oracle", **common))
    assert not oracle.infra_failures, oracle.infra_failures
    assert oracle.overall.episodes == len(ids)
    assert oracle.avg_at_k == 1.0, (tmp_path / "oracle" / "episodes.jsonl").read_text()[:3000]
    noop = anyio.run(run_eval, EvalConfig(agent="noop", out=tmp_path / "noop", **common))
    assert not noop.infra_failures
    # Doing nothing fails every task: an action or information task for the state or the answer, a
    # refusal task for the reason it never gave (a refusal without `because` facts would score 1).
    tasks = load_domain(domain).tasks
    episodes = [json.loads(line) for line in (tmp_path / "noop" / "episodes.jsonl").read_text().splitlines()]
    assert sorted(e["task_id"] for e in episodes) == ids
    assert {e["task_id"]: e["reward"] for e in episodes} == {
        e["task_id"]: (1.0 if tasks[e["task_id"]].kind == "refusal" and not tasks[e["task_id"]].communicate else 0.0)
        for e in episodes}
