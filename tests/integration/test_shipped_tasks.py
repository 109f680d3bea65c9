"""Every shipped domain's tasks were verified against the package as it is now, and a sample replays.

The full sweep is ``scaleenv verify DOMAIN --transport http`` for each domain (docs/tasks.md);
CI replays a deterministic sample of 5 tasks per domain through every gate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.verifier.verify import sample_tasks, verify_domain

DOMAINS = Path(__file__).resolve().parents[2] / "domains"
WITH_TASKS = sorted(p.parent.name for p in DOMAINS.glob("*/tasks.jsonl"))
SAMPLE = 5

pytestmark = pytest.mark.skipif(not WITH_TASKS, reason="no shipped domain has a tasks.jsonl yet")


@pytest.mark.parametrize("slug", WITH_TASKS)
def test_tasks_were_verified_against_the_current_package(slug: str):
    package = load_domain(DOMAINS / slug)
    stale = sorted(t.id for t in package.tasks.values()
                   if t.verified is None or t.verified.package_hash != package.content_hash)
    assert not stale, (f"{slug}: {len(stale)} tasks were verified against another version of the package "
                       f"(first: {stale[:3]}); the domain changed after verification: re-run "
                       f"`scaleenv tasks synth {slug}` or `scaleenv verify {slug}`")
    assert all(t.gold is not None and t.verified.result == "pass" for t in package.tasks.values())


@pytest.mark.anyio
@pytest.mark.parametrize("slug", WITH_TASKS)
async def test_a_sample_of_tasks_passes_every_gate(slug: str):
    report = await verify_domain(DOMAINS / slug, transport="memory", sample=SAMPLE, workers=1, validate=False)
    failed = {v.task_id: v.failed_gates for v in report.verdicts if not v.passed}
    assert not failed and report.tasks == min(SAMPLE, len(load_domain(DOMAINS / slug).tasks))


# Every shipped set has multi-chain tasks since further chains are errands of the task's own story
# (scaleenv_mcp.generator.synthesis.story): express_logistics had none in 530 tasks of seeds 1-6 before, and
# second_hand_marketplace none in the 250 of stop 21; 47 and 26 of 250 now. A domain listed here is
# expected to have none (strict: the test fails as soon as synthesis makes one there).
MULTI_CHAIN_GAPS: set[str] = set()


async def _replay(slug: str, chosen: list, tmp_path: Path) -> None:
    (tmp_path / "tasks.jsonl").write_text("".join(t.to_line() + "\n" for t in chosen))
    report = await verify_domain(DOMAINS / slug, tmp_path / "tasks.jsonl", transport="memory", workers=1,
                                 validate=False)
    assert report.tasks == len(chosen) and report.passed == len(chosen), report.failures_by_gate


@pytest.mark.anyio
@pytest.mark.parametrize("slug", WITH_TASKS)
async def test_patched_tasks_pass_every_gate(slug: str, tmp_path: Path):
    """A task whose start state synthesis patched replays too."""
    tasks = sample_tasks(list(load_domain(DOMAINS / slug).tasks.values()), None)
    patched = [t for t in tasks if t.meta.patched_tools][:1]
    assert patched, f"{slug}: synthesis made no patched task"
    assert set(patched[0].meta.patched_tools) <= set(patched[0].meta.expanded_tools)
    await _replay(slug, patched, tmp_path)


@pytest.mark.anyio
@pytest.mark.parametrize("slug", [pytest.param(s, marks=pytest.mark.xfail(
    strict=True, reason="no multi-chain task in this domain's set (see MULTI_CHAIN_GAPS)")) if s in MULTI_CHAIN_GAPS
    else s for s in WITH_TASKS])
async def test_multi_chain_tasks_pass_every_gate(slug: str, tmp_path: Path):
    """A task grown by further chains replays too, with its chains' tools in order."""
    tasks = sample_tasks(list(load_domain(DOMAINS / slug).tasks.values()), None)
    grown = [t for t in tasks if len(t.meta.chains) > 1][:1]
    assert grown, f"{slug}: synthesis made no multi-chain task"
    # the chains' writes in order, with the identification and the lookups an agent needs between
    # them (a chain's read nothing came from is not in the gold: prune.py)
    manifest = load_domain(DOMAINS / slug).manifest
    actions = iter(a.tool for a in grown[0].actions)
    assert all(tool in actions for chain in grown[0].meta.chains for tool in chain if manifest.tool(tool).is_writing)
    await _replay(slug, grown, tmp_path)


@pytest.mark.anyio
@pytest.mark.parametrize("slug", WITH_TASKS)
async def test_mixed_refusals_do_the_allowed_errand_and_refuse_the_other(slug: str, tmp_path: Path):
    """A refusal whose user also asks for something allowed: its gold writes (the allowed errand)
    replay through every gate, the forbidden call is not among them, and the user asks for both."""
    tasks = sample_tasks(list(load_domain(DOMAINS / slug).tasks.values()), None)
    mixed = [t for t in tasks if t.kind == "refusal" and t.gold is not None and not t.gold.diff.is_empty]
    assert mixed, f"{slug}: synthesis made no mixed refusal"
    task = mixed[0]
    assert task.meta.forbidden and task.meta.forbidden[0] not in task.actions
    assert "You also want this:" in task.user.instruction
    await _replay(slug, [task], tmp_path)
